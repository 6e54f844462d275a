import type { RateLimitInfo } from '../../../../shared/client/index.js';
import type { Clock } from './clock.js';

/**
 * Paces requests by the rate-limit headers (product §3.10: `X-RateLimit-Reset` is whole
 * seconds until the window resets): when an answer says no request is left in this window,
 * the next one waits for the reset instead of earning a 429.
 */
export class Pacer {
  private notBefore = 0;
  /** How many times a request waited for a window to reset. */
  waits = 0;

  constructor(
    private readonly clock: Clock,
    /** Told before each wait, so a person at a terminal sees why the run paused. */
    private readonly onWait: (ms: number) => void = () => {},
  ) {}

  observe(rate: RateLimitInfo): void {
    if (rate.remaining === undefined || rate.remaining > 0 || rate.resetSeconds === undefined) return;
    this.holdFor(rate.resetSeconds * 1000);
  }

  holdFor(ms: number): void {
    this.notBefore = Math.max(this.notBefore, this.clock.now() + Math.max(0, ms));
  }

  async ready(signal?: AbortSignal): Promise<void> {
    const wait = this.notBefore - this.clock.now();
    if (wait <= 0) return;
    this.waits++;
    this.onWait(wait);
    await this.clock.sleep(wait, signal);
  }
}

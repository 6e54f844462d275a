import type { RateLimitInfo } from '../../../../shared/client/index.js';
import type { Clock } from './clock.js';

/**
 * Paces requests by the rate-limit headers (`X-RateLimit-Remaining`, and `X-RateLimit-Reset`:
 * whole seconds until the window resets), for several requests in flight: a request goes out
 * only while the window has room for it beside those already out, otherwise it waits for the
 * reset instead of earning a 429. After a reset, one request goes first to learn the new count.
 */
export class Pacer {
  /** A 429's Retry-After: nothing goes out before this. */
  private notBefore = 0;
  private remaining: number | undefined;
  private resetAt = 0;
  private inFlight = 0;
  private wakers: (() => void)[] = [];
  private waiting = 0;
  private waitingSince = 0;
  /** How many times a request waited for a window to reset. */
  waits = 0;
  /** Wall-clock time during which at least one request waited for the rate limit. */
  waitedMs = 0;
  /** `X-RateLimit-Limit`, once an answer said it: requests a window. */
  limit: number | undefined;

  constructor(
    private readonly clock: Clock,
    /** Told when the run starts and stops waiting (the deadline, or undefined), for a countdown. */
    private readonly onWait: (until: number | undefined) => void = () => {},
  ) {}

  observe(rate: RateLimitInfo): void {
    if (rate.limit !== undefined) this.limit = rate.limit;
    if (rate.remaining === undefined || rate.resetSeconds === undefined) return;
    const resetAt = this.clock.now() + rate.resetSeconds * 1000;
    // Answers of one window can arrive out of order: the lowest count is the latest.
    const sameWindow = this.remaining !== undefined && Math.abs(resetAt - this.resetAt) < 1500;
    this.remaining = sameWindow ? Math.min(this.remaining ?? rate.remaining, rate.remaining) : rate.remaining;
    this.resetAt = resetAt;
    this.wake();
  }

  holdFor(ms: number): void {
    this.notBefore = Math.max(this.notBefore, this.clock.now() + Math.max(0, ms));
  }

  /**
   * Waits until a request may go out, and counts it as in flight until `release`. First come,
   * first served: a later batch never overtakes an earlier one at a reset, so when Ctrl-C cuts
   * the waits short, the batches that went out are the earliest ones and are all recorded.
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    const before = this.queue;
    let done = () => {};
    this.queue = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      await before;
      await this.admit(signal);
    } finally {
      done();
    }
  }

  private queue: Promise<void> = Promise.resolve();

  private async admit(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock.now();
      const known = this.remaining !== undefined;
      if (this.notBefore > now) {
        await this.wait(this.notBefore, signal);
      } else if (known && now < this.resetAt && (this.remaining ?? 0) - this.inFlight <= 0) {
        await this.wait(this.resetAt, signal);
      } else if (known && now >= this.resetAt && this.inFlight > 0) {
        // A new window: let the request already out learn its count first.
        await new Promise<void>((resolve) => this.wakers.push(resolve));
      } else {
        break;
      }
    }
    this.inFlight++;
  }

  release(): void {
    // The answer's own count (observe) already includes this request.
    this.inFlight--;
    this.wake();
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }

  private async wait(until: number, signal?: AbortSignal): Promise<void> {
    this.waits++;
    if (this.waiting++ === 0) this.waitingSince = this.clock.now();
    this.onWait(until);
    try {
      await this.clock.sleep(until - this.clock.now(), signal);
    } finally {
      if (--this.waiting === 0) {
        this.waitedMs += this.clock.now() - this.waitingSince;
        this.onWait(undefined);
      }
    }
  }
}

import { setTimeout as delay } from 'node:timers/promises';

/** Time, passed in so the retry and pacing rules can be tested without waiting. */
export interface Clock {
  now(): number;
  /** Rejects with an AbortError when `signal` fires first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, { signal }),
};

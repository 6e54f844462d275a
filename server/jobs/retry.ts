/** How a queue tries again (docs/architecture.md, "Background work: the job runtime"). */
export interface RetryPolicy {
  /** Entry n is the wait after the n-th failed attempt; an item gets one attempt more than entries. */
  readonly scheduleMs: readonly number[];
  /**
   * Up to this share of each wait is added at random (0.1: up to 10 % later), so items that
   * failed together (a receiver down for an hour) are not all tried again in the same instant.
   * 0 keeps the schedule exact.
   */
  readonly jitter: number;
}

/** What an attempt came to, as the runtime needs to know it. */
export interface AttemptOutcome {
  ok: boolean;
  /** Refused for good (a mail server's 5xx): dead now, whatever the schedule says. */
  permanent?: boolean;
}

export interface NextState {
  outcome: 'succeeded' | 'retried' | 'dead';
  nextAttemptAt: Date | null;
}

/** The item's next state after its attempt number `attemptsBefore + 1` came to `result`. */
export function nextState(
  policy: RetryPolicy,
  attemptsBefore: number,
  result: AttemptOutcome,
  now: Date,
  random: () => number = Math.random,
): NextState {
  if (result.ok) return { outcome: 'succeeded', nextAttemptAt: null };
  const wait = policy.scheduleMs[attemptsBefore];
  if (result.permanent || wait === undefined) return { outcome: 'dead', nextAttemptAt: null };
  const extra = policy.jitter > 0 ? Math.floor(random() * wait * policy.jitter) : 0;
  return { outcome: 'retried', nextAttemptAt: new Date(now.getTime() + wait + extra) };
}

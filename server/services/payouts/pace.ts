/**
 * Spaces one provider account's calls (docs/payouts-providers.md, "How fast"): at most
 * `perSecond` calls start in a second from this daemon, each waiting for its turn. Asaas and
 * Stripe answer past their limits with 429, which the daemon would treat as unclear and look up
 * later: pacing keeps a run of payouts under the limit instead. Per daemon: several daemons
 * sending for one account share the provider's limit between them.
 */
export interface Pacer {
  /** Resolves when a call to `account` may start. */
  turn(account: string): Promise<void>;
}

/** Accounts remembered at most: past it, those whose turn has passed are forgotten. */
const KEPT = 1000;

export function pacer(perSecond: number, now: () => number = Date.now): Pacer {
  const gapMs = 1000 / perSecond;
  const nextAt = new Map<string, number>();
  return {
    async turn(account) {
      const at = now();
      if (nextAt.size > KEPT) for (const [key, due] of nextAt) if (due <= at) nextAt.delete(key);
      const start = Math.max(at, nextAt.get(account) ?? 0);
      nextAt.set(account, start + gapMs);
      if (start > at) await new Promise((resolve) => setTimeout(resolve, start - at));
    },
  };
}

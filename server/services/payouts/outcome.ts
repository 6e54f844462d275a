import type { Trx } from '../../db/knex.js';
import { payoutStatusOf, settleSentPayout } from '../../repositories/payouts.js';
import type { ProviderOutcome } from './providers/index.js';
import type { SettlementEffects } from './settlement.js';

/**
 * Writes a provider's word on a sent payout, from the send queue or a callback: `paid` and
 * `failed` move a `processing` payout with one conditional update, so the same word heard twice
 * (a replayed callback, a poll after a callback, two daemons) changes it once. Answers whether
 * this call moved it.
 */
export interface OutcomeWriter {
  apply(trx: Trx, campaignId: number, payoutId: number, outcome: ProviderOutcome, now: Date): Promise<boolean>;
  isProcessing(trx: Trx, campaignId: number, payoutId: number): Promise<boolean>;
}

export function outcomeWriter(effects: SettlementEffects): OutcomeWriter {
  return {
    async apply(trx, campaignId, payoutId, outcome, now) {
      if (outcome.status === 'paid') {
        if (!(await settleSentPayout(trx, campaignId, payoutId, { to: 'paid', receipt: outcome.receipt }, now)))
          return false;
        await effects.paid(trx, campaignId, payoutId, now);
        return true;
      }
      if (outcome.status === 'failed') {
        if (!(await settleSentPayout(trx, campaignId, payoutId, { to: 'failed', reason: outcome.reason }, now)))
          return false;
        await effects.failed(trx, campaignId, payoutId, now);
        return true;
      }
      return false;
    },
    async isProcessing(trx, campaignId, payoutId) {
      return (await payoutStatusOf(trx, campaignId, payoutId)) === 'processing';
    },
  };
}

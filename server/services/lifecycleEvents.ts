import type { Conversion } from '../../shared/schemas/conversion.js';
import type { Payout } from '../../shared/schemas/payout.js';
import type { Trx } from '../db/knex.js';

/**
 * What the conversion and payout services report about each change, from inside the
 * transaction that makes it, so that what records it (the webhook outbox, wired in
 * `createServices`) commits or rolls back with the change itself.
 */
export type LifecycleEvent =
  | {
      type: 'conversion.approved' | 'conversion.rejected' | 'conversion.paid';
      campaignId: number;
      conversion: Conversion;
    }
  | { type: 'payout.created' | 'payout.paid' | 'payout.failed'; campaignId: number; payout: Payout };

export type LifecycleRecorder = (trx: Trx, event: LifecycleEvent) => Promise<void>;

import type { Knex } from 'knex';
import { retryingDdl } from './ddl.js';

/**
 * PayPal batches (docs/payouts-providers.md#paypal): the sends that left in one
 * `POST /v1/payments/payouts` share the batch's `sender_batch_id`, kept on each of them before
 * the call, so a send after a crash carries the same batch again (PayPal refuses a repeated one
 * and points at the original) instead of a new batch that would pay its items twice. An expand
 * step: a nullable column older daemons never write (they send one payout a batch, whose
 * `sender_batch_id` is the payout's own reference).
 */
export async function up(knex: Knex): Promise<void> {
  await retryingDdl(() =>
    knex.schema.alterTable('payout_sends', (t) => {
      t.string('batch_reference', 64).nullable();
      // Not (campaign_id, batch_reference): MySQL would let the campaign's foreign key rest on it,
      // and `down` could no longer drop it. A batch reference is a digest: alone it is selective.
      t.index(['batch_reference']);
    }),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payout_sends', (t) => t.dropIndex(['batch_reference']));
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['payout_sends', 'batch_reference']);
}

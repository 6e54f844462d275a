import type { Db } from '../../db/knex.js';
import { fanOutChunk, oldestPendingFanouts } from '../../repositories/webhookFanout.js';

/** Campaigns served per round, and deliveries written per transaction. */
const CAMPAIGNS_PER_ROUND = 50;
const CHUNK = 250;

/**
 * One round of fan-out (docs/webhooks.md#fairness): the oldest pending message of each campaign
 * gets one chunk of its deliveries, each chunk its own short transaction, so a campaign with
 * a thousand endpoints and a thousand messages never holds the database, nor another campaign's
 * messages, for longer than one chunk. Answers whether anything was pending (another round may
 * be due at once).
 */
export async function fanOutRound(db: Db): Promise<boolean> {
  const pending = await oldestPendingFanouts(db, CAMPAIGNS_PER_ROUND);
  for (const message of pending) await fanOutChunk(db, message, CHUNK);
  return pending.length > 0;
}

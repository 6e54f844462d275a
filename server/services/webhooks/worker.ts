import { inTransaction } from '../../db/knex.js';
import type { LeasedItem, QueueJob } from '../../jobs/queue.js';
import {
  type ClaimedDelivery,
  claimDeliveries,
  DELIVERY_QUEUE,
  dueHeads,
  dueOf,
} from '../../repositories/webhookClaims.js';
import { markEndpointFailing, markEndpointHealthy, recordAttempt } from '../../repositories/webhookDeliveries.js';
import type { ServiceDeps } from '../deps.js';
import { fanOutRounds } from './fanout.js';
import type { SecretBox } from './secretBox.js';
import { type AttemptResult, createSender, type Sender } from './send.js';

/**
 * Fanning out rests this many times as long as its last round took: it takes at most a tenth
 * of the daemon's time (and, on SQLite, of its one connection), however many deliveries a
 * campaign's endpoints make, and intake keeps the rest. Measured (`npm run bench`, 1,000 hung
 * endpoints): resting 3 times as long, with chunks of 100, doubled another campaign's p99.
 */
const FAN_OUT_REST = 9;

/** docs/webhooks.md: an endpoint whose deliveries have all failed for 5 days is disabled. */
const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
const DISABLED_REASON =
  'Disabled automatically: every delivery attempt failed for 5 days. Fix the receiver, then enable the endpoint again.';

export interface WorkerOptions extends ServiceDeps {
  box: SecretBox;
  /** On stop, how long in-flight attempts may finish before they are cut (and retried later). */
  stopGraceMs?: number;
}

/** A delivery in the runtime's hands: shared out by campaign (the tenant) and endpoint (the lane). */
export type DeliveryItem = ClaimedDelivery & LeasedItem & { tenant: number; lane: number };

/**
 * Webhook delivery as a queue of the job runtime (server/jobs/): fans recorded messages out to
 * their endpoints (the queue's feed), claims due deliveries fairly (a campaign, and an endpoint,
 * holds at most its share, so a stalled one never stalls the others), sends each signed, and
 * records the attempt; the runtime schedules the next one on WEBHOOK_RETRY_SCHEDULE.
 */
export function webhookDeliveryJob(options: WorkerOptions): QueueJob<DeliveryItem, AttemptResult> {
  const { db, box, logger, now: clock } = options;
  const config = options.config.webhooks;
  const fanOuts = fanOutRounds(db);
  let sender: Sender | undefined;

  /** The secrets that sign now: the current one, then every retired one still within its 24 h. */
  async function secretsOf(delivery: ClaimedDelivery): Promise<string[] | undefined> {
    const [currentEnc, ...retiredEnc] = delivery.secretsEnc;
    const current = currentEnc === undefined ? undefined : await box.open(currentEnc);
    if (current === undefined) return undefined;
    const retired = await Promise.all(retiredEnc.map((sealed) => box.open(sealed)));
    return [current, ...retired.filter((secret): secret is string => secret !== undefined)];
  }

  return {
    name: 'webhooks',
    label: 'webhook',
    idField: 'deliveryId',
    enabled: true,
    table: DELIVERY_QUEUE,
    pollMs: config.pollMs,
    leaseMs: config.leaseMs,
    maxInFlight: config.maxInFlight,
    // WEBHOOK_RETRY_SCHEDULE is documented as exact waits (docs/webhooks.md).
    retry: { scheduleMs: config.retryScheduleMs, jitter: 0 },
    stopGraceMs: options.stopGraceMs ?? 5_000,
    fairness: {
      tenantInFlight: config.campaignInFlight,
      laneInFlight: config.endpointInFlight,
      async heads(now, skip) {
        const heads = await dueHeads(db, { now, skipCampaigns: skip.tenants, skipEndpoints: skip.lanes });
        return heads.map((head) => ({ tenant: head.campaignId, lane: head.endpointId, id: head.deliveryId }));
      },
      dueOf: (lane, now, limit) => dueOf(db, lane, now, limit),
    },
    feed: { name: 'fan-out', rest: FAN_OUT_REST, round: () => fanOuts.round() },
    async claim(ids, now, leaseMs) {
      const claimed = await claimDeliveries(db, ids, { now, leaseMs });
      return claimed.map((delivery) => ({ ...delivery, tenant: delivery.campaignId, lane: delivery.endpointId }));
    },
    async attempt(delivery, signal) {
      const at = clock();
      const secrets = await secretsOf(delivery);
      if (!secrets) {
        return {
          at,
          ok: false,
          statusCode: null,
          error:
            'the signing secret cannot be decrypted with this daemon’s key (was WEBHOOK_SECRET_KEY changed?): rotate the secret',
          durationMs: 0,
          response: null,
        };
      }
      if (!sender) return undefined;
      return sender.send({ ...delivery, secrets }, signal);
    },
    async settle(delivery, result, next) {
      const now = clock();
      const disabled = await inTransaction(db, async (trx) => {
        await recordAttempt(trx, delivery, result, next);
        if (result.ok) {
          await markEndpointHealthy(trx, delivery.endpointId);
          return false;
        }
        return markEndpointFailing(
          trx,
          delivery.endpointId,
          now,
          new Date(now.getTime() - DISABLE_AFTER_MS),
          DISABLED_REASON,
        );
      });
      logger.debug('webhook attempt', {
        deliveryId: delivery.id,
        endpointId: delivery.endpointId,
        attempt: delivery.attemptCount + 1,
        statusCode: result.statusCode,
        error: result.error,
        next: next.outcome === 'succeeded' ? 'succeeded' : next.outcome === 'retried' ? 'pending' : 'failed',
      });
      if (disabled)
        logger.warn('webhook endpoint disabled', { endpointId: delivery.endpointId, reason: DISABLED_REASON });
    },
    open() {
      sender = createSender({
        allowPrivateNetworks: config.allowPrivateNetworks,
        attemptTimeoutMs: config.attemptTimeoutMs,
      });
    },
    async close() {
      await sender?.close();
    },
  };
}

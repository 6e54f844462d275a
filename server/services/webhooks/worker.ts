import { inTransaction } from '../../db/knex.js';
import { safeStack } from '../../logger.js';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  markEndpointFailing,
  markEndpointHealthy,
  recordAttempt,
  releaseDeliveries,
} from '../../repositories/webhookDeliveries.js';
import type { ServiceDeps, Worker } from '../deps.js';
import type { SecretBox } from './secretBox.js';
import { type AttemptResult, createSender, type Sender } from './send.js';

export interface WebhookWorker extends Worker {
  /** Look for due deliveries now rather than at the next poll (after a test or a retry). */
  wake(): void;
}

/** docs/webhooks.md: an endpoint whose deliveries have all failed for 5 days is disabled. */
const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
const DISABLED_REASON =
  'Disabled automatically: every delivery attempt failed for 5 days. Fix the receiver, then enable the endpoint again.';

export interface WorkerOptions extends ServiceDeps {
  box: SecretBox;
  /** In flight at once, per endpoint and in all, in this daemon. */
  perEndpoint?: number;
  maxInFlight?: number;
  /** On stop, how long in-flight attempts may finish before they are cut (and retried later). */
  stopGraceMs?: number;
}

/**
 * Drains the outbox: claims due deliveries in batches (a lease each), sends each signed, records
 * the attempt and schedules the next one. A slow endpoint holds at most `perEndpoint` slots, so it
 * never stalls the others, and intake only ever writes rows.
 */
export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, box, logger, now: clock } = options;
  const config = options.config.webhooks;
  const perEndpoint = options.perEndpoint ?? 4;
  const maxInFlight = options.maxInFlight ?? 32;
  const inFlight = new Map<number, number>();
  const running = new Set<Promise<void>>();
  let abort = new AbortController();
  let sender: Sender | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timerDue = 0;
  let polling = false;
  let stopped = true;

  function schedule(delayMs: number): void {
    if (stopped) return;
    const due = Date.now() + delayMs;
    if (timer && timerDue <= due) return;
    clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => {
      timer = undefined;
      void poll();
    }, delayMs);
  }

  /** The secrets that sign now: the current one, and the previous one for 24 h after a rotation. */
  async function secretsOf(delivery: ClaimedDelivery, now: Date): Promise<string[] | undefined> {
    const current = await box.open(delivery.secretEnc);
    if (current === undefined) return undefined;
    const { previousSecretEnc, previousSecretExpiresAt } = delivery;
    const previous =
      previousSecretEnc !== null && previousSecretExpiresAt !== null && previousSecretExpiresAt > now
        ? await box.open(previousSecretEnc)
        : undefined;
    return previous === undefined ? [current] : [current, previous];
  }

  async function attempt(delivery: ClaimedDelivery): Promise<AttemptResult | undefined> {
    const at = clock();
    const secrets = await secretsOf(delivery, at);
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
    const result = await sender.send({ ...delivery, secrets }, abort.signal);
    // Cut by stop(): not an attempt the receiver failed; the lease is given back instead.
    return abort.signal.aborted ? undefined : result;
  }

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const result = await attempt(delivery);
    if (!result) return releaseDeliveries(db, [delivery]);
    const now = clock();
    const number = delivery.attemptCount + 1;
    const wait = config.retryScheduleMs[number - 1];
    const next = result.ok
      ? { status: 'succeeded' as const, nextAttemptAt: null }
      : wait === undefined
        ? { status: 'failed' as const, nextAttemptAt: null }
        : { status: 'pending' as const, nextAttemptAt: new Date(now.getTime() + wait) };
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
      attempt: number,
      statusCode: result.statusCode,
      error: result.error,
      next: next.status,
    });
    if (disabled)
      logger.warn('webhook endpoint disabled', { endpointId: delivery.endpointId, reason: DISABLED_REASON });
  }

  function launch(delivery: ClaimedDelivery): void {
    inFlight.set(delivery.endpointId, (inFlight.get(delivery.endpointId) ?? 0) + 1);
    const task: Promise<void> = deliver(delivery)
      .catch((err: unknown) => {
        // The lease runs out and the delivery is tried again: nothing is lost.
        logger.error('webhook delivery failed to record', { deliveryId: delivery.id, stack: safeStack(err) });
      })
      .finally(() => {
        const left = (inFlight.get(delivery.endpointId) ?? 1) - 1;
        if (left === 0) inFlight.delete(delivery.endpointId);
        else inFlight.set(delivery.endpointId, left);
        running.delete(task);
        schedule(0);
      });
    running.add(task);
  }

  async function poll(): Promise<void> {
    if (stopped || polling) return;
    polling = true;
    let more = false;
    try {
      const room = maxInFlight - running.size;
      if (room > 0) {
        const busy = [...inFlight].filter(([, count]) => count >= perEndpoint).map(([id]) => id);
        const claimed = await claimDueDeliveries(db, {
          now: clock(),
          leaseMs: config.leaseMs,
          limit: room,
          skipEndpoints: busy,
        });
        const over: ClaimedDelivery[] = [];
        for (const delivery of claimed) {
          if (stopped || (inFlight.get(delivery.endpointId) ?? 0) >= perEndpoint) over.push(delivery);
          else launch(delivery);
        }
        // Beyond an endpoint's share: back to the pool at once, for later or for another daemon.
        if (over.length > 0) await releaseDeliveries(db, over);
        more = claimed.length === room && over.length === 0;
      }
    } catch (err) {
      const code = (err as { code?: string }).code;
      // Another daemon claimed the same deliveries first: on a Galera cluster the loser's claim
      // is refused at commit as a deadlock. Normal there, and nothing is lost: poll again.
      if (code === 'ER_LOCK_DEADLOCK') logger.debug('webhook claim lost to another daemon', { code });
      else logger.error('webhook claim failed', { code, stack: safeStack(err) });
    } finally {
      polling = false;
      schedule(more ? 0 : config.pollMs);
    }
  }

  return {
    name: 'webhooks',
    start() {
      if (!stopped) return;
      stopped = false;
      abort = new AbortController();
      sender = createSender({ allowPrivateNetworks: config.allowPrivateNetworks });
      schedule(0);
    },
    wake() {
      schedule(0);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      const graceMs = options.stopGraceMs ?? 5_000;
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise<void>((resolve) => {
          grace = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(grace);
      abort.abort();
      while (running.size > 0 || polling) await Promise.allSettled([...running, new Promise((r) => setTimeout(r, 10))]);
      await sender?.close();
    },
  };
}

import { inTransaction } from '../../db/knex.js';
import { errorSite } from '../../logger.js';
import {
  anythingDue,
  type ClaimedDelivery,
  claimDeliveries,
  dueHeads,
  dueOf,
  releaseDeliveries,
  renewLeases,
} from '../../repositories/webhookClaims.js';
import { markEndpointFailing, markEndpointHealthy, recordAttempt } from '../../repositories/webhookDeliveries.js';
import type { ServiceDeps, Worker } from '../deps.js';
import { inFlightTally, shareSlots } from './fairness.js';
import { fanOutRounds } from './fanout.js';
import type { SecretBox } from './secretBox.js';
import { type AttemptResult, createSender, type Sender } from './send.js';

export interface WebhookWorker extends Worker {
  /** Look for due deliveries now rather than at the next poll (after a test or a retry). */
  wake(): void;
}

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

/**
 * Drains the outbox: fans recorded messages out to their endpoints, claims due deliveries (a
 * lease each), sends each signed, records the attempt and schedules the next one. Slots are
 * shared out fairly (fairness.ts): a campaign, and an endpoint, holds at most its share, so a
 * stalled one never stalls the others, and intake only ever writes one row per change.
 */
export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, box, logger, now: clock } = options;
  const config = options.config.webhooks;
  const campaigns = inFlightTally();
  const endpoints = inFlightTally();
  /** Lease tokens of the deliveries in flight, renewed while they run. */
  const leases = new Map<string, number>();
  const fanOuts = fanOutRounds(db);
  const running = new Set<Promise<void>>();
  let abort = new AbortController();
  let sender: Sender | undefined;
  let timer: NodeJS.Timeout | undefined;
  let renewal: NodeJS.Timeout | undefined;
  let timerDue = 0;
  /** When fanning out may run again (Date.now()), and whether messages wait for it. */
  let fanOutAfter = 0;
  let fanOutPending = false;
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

  /** The secrets that sign now: the current one, then every retired one still within its 24 h. */
  async function secretsOf(delivery: ClaimedDelivery): Promise<string[] | undefined> {
    const [currentEnc, ...retiredEnc] = delivery.secretsEnc;
    const current = currentEnc === undefined ? undefined : await box.open(currentEnc);
    if (current === undefined) return undefined;
    const retired = await Promise.all(retiredEnc.map((sealed) => box.open(sealed)));
    return [current, ...retired.filter((secret): secret is string => secret !== undefined)];
  }

  async function attempt(delivery: ClaimedDelivery): Promise<AttemptResult | undefined> {
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
    campaigns.add(delivery.campaignId);
    endpoints.add(delivery.endpointId);
    leases.set(delivery.leaseToken, (leases.get(delivery.leaseToken) ?? 0) + 1);
    const task: Promise<void> = deliver(delivery)
      .catch((err: unknown) => {
        // The lease runs out and the delivery is tried again: nothing is lost.
        logger.error('webhook delivery failed to record', { deliveryId: delivery.id, thrownAt: errorSite(err) });
      })
      .finally(() => {
        campaigns.remove(delivery.campaignId);
        endpoints.remove(delivery.endpointId);
        const left = (leases.get(delivery.leaseToken) ?? 1) - 1;
        if (left === 0) leases.delete(delivery.leaseToken);
        else leases.set(delivery.leaseToken, left);
        running.delete(task);
        schedule(0);
      });
    running.add(task);
  }

  /** Fills free slots fairly; answers whether a next round may find more at once. */
  async function claimRound(): Promise<boolean> {
    const room = config.maxInFlight - running.size;
    const now = clock();
    if (room <= 0 || !(await anythingDue(db, now))) return false;
    const heads = await dueHeads(db, {
      now,
      skipCampaigns: campaigns.atLeast(config.campaignInFlight),
      skipEndpoints: endpoints.atLeast(config.endpointInFlight),
    });
    const plan = shareSlots(
      heads,
      { room, campaignInFlight: config.campaignInFlight, endpointInFlight: config.endpointInFlight },
      { campaigns: campaigns.counts, endpoints: endpoints.counts },
    );
    const ids: number[] = [];
    for (const [endpointId, count] of plan) {
      const head = heads.find((candidate) => candidate.endpointId === endpointId);
      if (count === 1 && head) ids.push(head.deliveryId);
      else ids.push(...(await dueOf(db, endpointId, now, count)));
    }
    const claimed = await claimDeliveries(db, ids, { now, leaseMs: config.leaseMs });
    if (stopped) {
      await releaseDeliveries(db, claimed);
      return false;
    }
    for (const delivery of claimed) launch(delivery);
    return claimed.length > 0 && running.size < config.maxInFlight;
  }

  /** One round of fan-out, unless it is resting; paced by FAN_OUT_REST. */
  async function fanOut(): Promise<void> {
    if (Date.now() < fanOutAfter) return;
    const started = Date.now();
    try {
      fanOutPending = await fanOuts.round();
    } catch (err) {
      const code = (err as { code?: string }).code;
      // On a Galera cluster a chunk raced by other daemons can still be refused after the
      // transaction's retries: nothing was written, and the next round takes the messages again.
      if (code === 'ER_LOCK_DEADLOCK') logger.debug('webhook fan-out lost to another daemon', { code });
      else logger.error('webhook fan-out failed', { code, thrownAt: errorSite(err) });
    }
    fanOutAfter = Date.now() + (Date.now() - started) * FAN_OUT_REST;
  }

  async function poll(): Promise<void> {
    if (stopped || polling) return;
    polling = true;
    let more = false;
    await fanOut();
    try {
      more = await claimRound();
    } catch (err) {
      const code = (err as { code?: string }).code;
      // Another daemon claimed the same deliveries first: on a Galera cluster the loser's claim
      // is refused at commit as a deadlock. Normal there, and nothing is lost: poll again.
      if (code === 'ER_LOCK_DEADLOCK') logger.debug('webhook claim lost to another daemon', { code });
      else logger.error('webhook claim failed', { code, thrownAt: errorSite(err) });
    } finally {
      polling = false;
      const fanOutDue = fanOutPending ? Math.max(0, fanOutAfter - Date.now()) : config.pollMs;
      schedule(more ? 0 : Math.min(fanOutDue, config.pollMs));
    }
  }

  /** A lease never runs out under an attempt in flight (docs/webhooks.md). */
  function renewLeasesInFlight(): void {
    if (leases.size === 0) return;
    renewLeases(db, [...leases.keys()], new Date(clock().getTime() + config.leaseMs)).catch((err: unknown) => {
      logger.warn('webhook lease renewal failed', { code: (err as { code?: string }).code });
    });
  }

  return {
    name: 'webhooks',
    start() {
      if (!stopped) return;
      stopped = false;
      abort = new AbortController();
      sender = createSender({
        allowPrivateNetworks: config.allowPrivateNetworks,
        attemptTimeoutMs: config.attemptTimeoutMs,
      });
      renewal = setInterval(renewLeasesInFlight, Math.max(100, Math.floor(config.leaseMs / 3)));
      renewal.unref();
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
      clearInterval(renewal);
      await sender?.close();
    },
  };
}

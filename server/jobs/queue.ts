import { AsyncResource } from 'node:async_hooks';
import type { Db } from '../db/knex.js';
import { isRetryableTxError } from '../db/knex.js';
import { errorSite, type Logger } from '../logger.js';
import {
  anythingDue,
  dueItems,
  type LeasedTable,
  queueState,
  releaseItems,
  renewLeases,
} from '../repositories/leasedQueue.js';
import { inFlightTally, type LaneHead, shareSlots } from './fairness.js';
import type { QueueFigures } from './figures.js';
import { type AttemptOutcome, nextState, type NextState, type RetryPolicy } from './retry.js';

/** An item a runner holds the lease of. `tenant` and `lane` are set when the queue is shared out fairly. */
export interface LeasedItem {
  id: number;
  leaseToken: string;
  attemptCount: number;
  tenant?: number;
  lane?: number;
}

/**
 * A queue of the job runtime: where its items live and how they are claimed, what one attempt
 * does, and how its outcome is written. The runner does the rest (polling, leases, the retry
 * schedule, fairness, stop, conflicts and logging).
 */
export interface QueueJob<Item extends LeasedItem, Result extends AttemptOutcome> {
  /** The worker's and the figures' name: `webhooks`, `mail`. */
  readonly name: string;
  /** How the log names an item's queue: `webhook claim failed`, `mail attempt`. */
  readonly label: string;
  /** The log field that names an item: `deliveryId`, `mailId`. */
  readonly idField: string;
  /** False: this daemon does not run the queue (its items wait for a daemon that does). */
  readonly enabled: boolean;
  readonly table: LeasedTable;
  readonly pollMs: number;
  readonly leaseMs: number;
  /** Items in flight at once in this daemon. */
  readonly maxInFlight: number;
  readonly retry: RetryPolicy;
  /** On stop, how long items in flight may finish before their signal aborts them; absent: never aborted. */
  readonly stopGraceMs?: number;
  /** Per-tenant fairness (fairness.ts); without it, due items are claimed oldest first. */
  readonly fairness?: {
    readonly tenantInFlight: number;
    readonly laneInFlight: number;
    /** Each lane's oldest due and free item, but those of the lanes and tenants skipped. */
    heads(now: Date, skip: { tenants: readonly number[]; lanes: readonly number[] }): Promise<LaneHead[]>;
    /** Up to `limit` due and free items of one lane, oldest first. */
    dueOf(lane: number, now: Date, limit: number): Promise<number[]>;
  };
  /**
   * Work that fills the queue before each claim (webhooks: fanning messages out), paced so it
   * rests `rest` times as long as its last round took. Answers whether more waits.
   */
  readonly feed?: { readonly name: string; readonly rest: number; round(): Promise<boolean> };
  /** Claims these items (leasedQueue.claimItems) and reads them back with what an attempt needs. */
  claim(ids: readonly number[], now: Date, leaseMs: number): Promise<Item[]>;
  /** One attempt; undefined when the signal cut it (the lease is given back, no attempt counted). */
  attempt(item: Item, signal: AbortSignal): Promise<Result | undefined>;
  /** Writes the attempt's outcome while the lease is held (leasedQueue.settleItem, and the queue's own records). */
  settle(item: Item, result: Result, next: NextState): Promise<void>;
  /** Resources the attempts need while the queue runs (an HTTP pool, an SMTP transport). */
  open?(): void;
  close?(): Promise<void> | void;
}

export interface QueueRunner {
  readonly name: string;
  start(): void;
  /** Resolves once the items in hand are settled or given back; nothing is claimed after it is called. */
  stop(): Promise<void>;
  /** Look for due items now rather than at the next poll. */
  wake(): void;
  figures(): Promise<QueueFigures>;
}

/**
 * Runs one queue: polls for due items, claims them (a lease each, renewed while they run) up to
 * `maxInFlight`, fairly when the queue says how, runs each attempt, and settles it on the retry
 * schedule; a lost race with another daemon (a deadlock, a Galera conflict) is normal and only
 * means polling again. Nothing is lost when anything fails: the lease runs out and the item is
 * tried again.
 */
export function queueRunner<Item extends LeasedItem, Result extends AttemptOutcome>(
  deps: { db: Db; logger: Logger; now: () => Date },
  job: QueueJob<Item, Result>,
): QueueRunner {
  const { db, logger, now: clock } = deps;
  const tenants = inFlightTally();
  const lanes = inFlightTally();
  /** Lease tokens of the items in flight, renewed while they run. */
  const leases = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const attempts = { succeeded: 0, retried: 0, dead: 0 };
  let abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let renewal: NodeJS.Timeout | undefined;
  let timerDue = 0;
  /** When the feed may run again (Date.now()), and whether work waits for it. */
  let feedAfter = 0;
  let feedPending = false;
  let polling = false;
  /** A wake during a poll: poll again as soon as it ends. */
  let again = false;
  let stopped = true;

  /** The context the queue was made in (createServices): every poll runs in it. */
  const home = new AsyncResource('affiliated.queue');

  function schedule(delayMs: number): void {
    if (stopped) return;
    const due = Date.now() + delayMs;
    if (timer && timerDue <= due) return;
    clearTimeout(timer);
    timerDue = due;
    // A wake from a request must not carry the request's context (its audit actor) into polls.
    timer = setTimeout(() => {
      timer = undefined;
      void home.runInAsyncScope(poll);
    }, delayMs);
  }

  /** A failure of the database work around attempts: a lost race is news only when debugging. */
  function failed(what: string, err: unknown): void {
    const code = (err as { code?: string }).code;
    // On a Galera cluster the loser of two daemons' claims (or fan-outs) of the same rows is
    // refused at commit as a deadlock: nothing was written, and the next poll tries again.
    if (isRetryableTxError(err)) logger.debug(`${job.label} ${what} lost to another daemon`, { code });
    else logger.error(`${job.label} ${what} failed`, { code, thrownAt: errorSite(err) });
  }

  async function execute(item: Item): Promise<void> {
    const result = await job.attempt(item, abort.signal);
    // Cut by stop(): not an attempt that failed; the lease is given back instead.
    if (!result || abort.signal.aborted) return releaseItems(db, job.table, [item]);
    const next = nextState(job.retry, item.attemptCount, result, clock());
    await job.settle(item, result, next);
    attempts[next.outcome]++;
  }

  function launch(item: Item): void {
    if (item.tenant !== undefined) tenants.add(item.tenant);
    if (item.lane !== undefined) lanes.add(item.lane);
    leases.set(item.leaseToken, (leases.get(item.leaseToken) ?? 0) + 1);
    const task: Promise<void> = execute(item)
      .catch((err: unknown) => {
        // The lease runs out and the item is tried again: nothing is lost.
        logger.error(`${job.label} delivery failed to record`, { [job.idField]: item.id, thrownAt: errorSite(err) });
      })
      .finally(() => {
        if (item.tenant !== undefined) tenants.remove(item.tenant);
        if (item.lane !== undefined) lanes.remove(item.lane);
        const left = (leases.get(item.leaseToken) ?? 1) - 1;
        if (left === 0) leases.delete(item.leaseToken);
        else leases.set(item.leaseToken, left);
        running.delete(task);
        schedule(0);
      });
    running.add(task);
  }

  /** The ids to claim now: shared out fairly, or the oldest due. */
  async function candidates(room: number, now: Date): Promise<number[]> {
    const fair = job.fairness;
    if (!fair) return dueItems(db, job.table, { now, limit: room });
    const heads = await fair.heads(now, {
      tenants: tenants.atLeast(fair.tenantInFlight),
      lanes: lanes.atLeast(fair.laneInFlight),
    });
    const plan = shareSlots(
      heads,
      { room, tenantInFlight: fair.tenantInFlight, laneInFlight: fair.laneInFlight },
      { tenants: tenants.counts, lanes: lanes.counts },
    );
    const ids: number[] = [];
    for (const [lane, count] of plan) {
      const head = heads.find((candidate) => candidate.lane === lane);
      if (count === 1 && head) ids.push(head.id);
      else ids.push(...(await fair.dueOf(lane, now, count)));
    }
    return ids;
  }

  /** Fills free slots; answers whether a next round may find more at once. */
  async function claimRound(): Promise<boolean> {
    const room = job.maxInFlight - running.size;
    const now = clock();
    if (room <= 0 || !(await anythingDue(db, job.table, now))) return false;
    const claimed = await job.claim(await candidates(room, now), now, job.leaseMs);
    if (stopped) {
      await releaseItems(db, job.table, claimed);
      return false;
    }
    for (const item of claimed) launch(item);
    return claimed.length > 0 && running.size < job.maxInFlight;
  }

  /** One round of the feed, unless it is resting. */
  async function feed(): Promise<void> {
    if (!job.feed || Date.now() < feedAfter) return;
    const started = Date.now();
    try {
      feedPending = await job.feed.round();
    } catch (err) {
      failed(job.feed.name, err);
    }
    feedAfter = Date.now() + (Date.now() - started) * job.feed.rest;
  }

  async function poll(): Promise<void> {
    if (stopped) return;
    if (polling) {
      again = true;
      return;
    }
    polling = true;
    again = false;
    let more = false;
    await feed();
    try {
      more = await claimRound();
    } catch (err) {
      failed('claim', err);
    } finally {
      polling = false;
      const feedDue = feedPending ? Math.max(0, feedAfter - Date.now()) : job.pollMs;
      schedule(more || again ? 0 : Math.min(feedDue, job.pollMs));
    }
  }

  /** A lease never runs out under an attempt in flight. */
  function renewLeasesInFlight(): void {
    if (leases.size === 0) return;
    renewLeases(db, job.table, [...leases.keys()], new Date(clock().getTime() + job.leaseMs)).catch((err: unknown) => {
      logger.warn(`${job.label} lease renewal failed`, { code: (err as { code?: string }).code });
    });
  }

  return {
    name: job.name,
    start() {
      if (!stopped || !job.enabled) return;
      stopped = false;
      abort = new AbortController();
      job.open?.();
      renewal = setInterval(renewLeasesInFlight, Math.max(100, Math.floor(job.leaseMs / 3)));
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
      const graceMs = job.stopGraceMs;
      if (graceMs !== undefined) {
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...running]),
          new Promise<void>((resolve) => {
            grace = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(grace);
        abort.abort();
      }
      while (running.size > 0 || polling) await Promise.allSettled([...running, new Promise((r) => setTimeout(r, 10))]);
      clearInterval(renewal);
      await job.close?.();
    },
    async figures() {
      const now = clock();
      const state = await queueState(db, job.table, now);
      return {
        queue: job.name,
        depth: state.depth,
        oldestDueSeconds: state.oldestDue ? Math.max(0, (now.getTime() - state.oldestDue.getTime()) / 1000) : 0,
        dead: state.dead,
        attempts: { ...attempts },
      };
    },
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import { inLockingTransaction } from '../../db/knex.js';
import type { PeriodicJob } from '../../jobs/periodic.js';
import { addToRollup, type RollupFact } from '../../repositories/analytics.js';
import {
  hasPendingClicks,
  markClicksFolded,
  type PendingClick,
  pendingClickState,
  takePendingClicks,
} from '../../repositories/clicks.js';
import type { ServiceDeps } from '../deps.js';

/** Clicks one transaction of the fold takes: a short hold of SQLite's one writer, one upsert of their rows. */
const FOLD_BATCH = 500;
/** The wait between the end of one run of the periodic fold and the next. */
const EVERY_MS = 500;
/** A breath between two batches of a long run, so intake and the clicks never wait long behind it. */
const PAUSE_MS = 5;
/** Batches a run of the fold may see taken from under it by another daemon's before it gives up. */
const OVERTAKEN_TRIES = 5;

/** A click as the analytics rollup counts it, with its dimensions; bots apart. */
const rollupFact = (click: PendingClick): RollupFact => ({
  campaignId: click.campaignId,
  affiliateId: click.affiliateId,
  at: click.createdAt,
  dimensions: {
    device: click.device,
    country: click.country ?? '',
    referrer: click.referrer ?? '',
    utm_source: click.utmSource ?? '',
  },
  counts: click.bot ? { bot_clicks: 1 } : { clicks: 1 },
});

/** Another daemon folded some of the clicks this batch read: it is rolled back and read again. */
class Overtaken extends Error {
  constructor(readonly clicks: number) {
    super('another fold took some of these clicks first');
  }
}

export interface ClickFold {
  /**
   * Before a read of the rollup's clicks (`GET /v1/analytics`, its funnel, the portal's chart):
   * every click of the campaign stored so far is folded in, so the answer counts each click
   * whose redirect was answered, whatever the periodic fold has done yet.
   */
  campaign(campaignId: number): Promise<void>;
  /**
   * The periodic fold of every campaign's clicks, on the job runtime; its run answers how many it
   * folded. Its figures are the clicks waiting as the queue `click-rollup` (docs/operations.md).
   */
  job: PeriodicJob<number>;
}

/**
 * The clicks' share of the analytics rollup (docs/analytics.md, "The rollups"): the click writer
 * stores a click pending, and the fold takes pending clicks a batch at a time, adds them to
 * `analytics_hourly` and clears their flag, in one transaction. Each click is counted exactly
 * once: the flag is cleared by a conditional update in the transaction that adds it, the clicks
 * read are locked on MySQL/MariaDB (a second daemon's fold waits, then finds them folded), and
 * a batch whose flags another daemon cleared first (Galera certifies apart) rolls back whole
 * and is read again.
 */
export function clickFold({ db, config }: Pick<ServiceDeps, 'db' | 'config'>): ClickFold {
  /** Clicks this daemon folded (`succeeded`), and read in a batch another daemon overtook (`retried`). */
  const attempts = { succeeded: 0, retried: 0, dead: 0 };

  /** One batch: answers how many clicks it folded (0: none was pending). */
  async function batch(campaignId?: number): Promise<number> {
    for (let tries = 1; ; tries++) {
      try {
        // READ COMMITTED on MySQL/MariaDB: the read locks the clicks it takes, not the gap after
        // them, so the click writer's inserts never wait for a fold.
        const folded = await inLockingTransaction(db, async (trx) => {
          const clicks = await takePendingClicks(trx, { campaignId, limit: FOLD_BATCH });
          if (clicks.length === 0) return 0;
          const cleared = await markClicksFolded(
            trx,
            clicks.map((click) => click.id),
          );
          if (cleared !== clicks.length) throw new Overtaken(clicks.length);
          await addToRollup(trx, clicks.map(rollupFact));
          return clicks.length;
        });
        attempts.succeeded += folded;
        return folded;
      } catch (err) {
        if (!(err instanceof Overtaken)) throw err;
        attempts.retried += err.clicks;
        if (tries >= OVERTAKEN_TRIES) throw err;
      }
    }
  }

  /**
   * Batches until one comes back short: every click of the campaign (or of all) pending when it
   * started. The periodic job (`signal`) breathes between batches and stops when the daemon
   * does; a read waiting for its answer does neither. Nothing pending: no lock, no commit.
   */
  async function foldPending(campaignId: number | undefined, signal?: AbortSignal): Promise<number> {
    let folded = 0;
    if (!(await hasPendingClicks(db, campaignId))) return folded;
    for (let taken = FOLD_BATCH; taken === FOLD_BATCH && !signal?.aborted;) {
      taken = await batch(campaignId);
      folded += taken;
      if (taken === FOLD_BATCH && signal) await sleep(PAUSE_MS);
    }
    return folded;
  }

  return {
    async campaign(campaignId) {
      if (config.rollupUpkeep) await foldPending(campaignId);
    },
    job: {
      name: 'click-rollup-fold',
      everyMs: EVERY_MS,
      // Without upkeep (the bench's baseline only) the rollup is not kept: clicks are never stored pending.
      enabled: config.rollupUpkeep,
      failure: { message: 'folding clicks into the analytics rollup failed', level: 'warn' },
      run: (signal) => foldPending(undefined, signal),
      async figures(now) {
        const { pending, oldest } = await pendingClickState(db);
        return {
          queue: 'click-rollup',
          depth: pending,
          // A click is due to be folded from the instant it is stored.
          oldestDueSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
          // A click is never given up: a fold that fails leaves it pending for the next run.
          dead: 0,
          attempts: { ...attempts },
        };
      },
    },
  };
}

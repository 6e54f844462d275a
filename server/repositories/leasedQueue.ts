import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { toDate } from '../db/rows.js';

/**
 * The lease SQL of every queue of the job runtime (docs/architecture.md, "Background work: the
 * job runtime"). Each queue keeps its own table; what they share is the shape below, so a
 * daemon of an older release, which claims with the same conditional UPDATE on the same
 * columns, and a daemon of this one exclude each other on one database.
 *
 * A claim is a conditional UPDATE that sets a token and an expiry only where the lease is free,
 * never a row lock alone, so it holds on a Galera cluster too, where `SELECT … FOR UPDATE` on
 * two nodes can return the same row (its certification refuses the second of two conflicting
 * updates). What a claim took is read back by its token.
 */
export interface LeasedTable {
  /** The table: one row an item, with `id`, `status`, `attempt_count`, `next_attempt_at`, `lease_token`, `lease_until`. */
  readonly table: string;
  /** The statuses: waiting to run (due at `next_attempt_at`), done, and given up (dead, for a person to retry). */
  readonly pending: string;
  readonly done: string;
  readonly dead: string;
}

/** An item this daemon holds the lease of. */
export interface Held {
  id: number;
  leaseToken: string;
}

/** The tables hold different rows: the lease SQL only ever names the common columns. */
function rows(db: Db | Trx, queue: LeasedTable, alias?: string): Knex.QueryBuilder {
  return db.table(alias ? `${queue.table} as ${alias}` : queue.table);
}

/** Narrows a query to the items due at `now` whose lease is free (`alias` when the query joins). */
export function dueAndFree(query: Knex.QueryBuilder, queue: LeasedTable, now: Date, alias?: string): Knex.QueryBuilder {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return query
    .where(column('status'), queue.pending)
    .andWhere(column('next_attempt_at'), '<=', now)
    .andWhere((lease) => lease.whereNull(column('lease_until')).orWhere(column('lease_until'), '<=', now));
}

/** Whether anything at all is due: an idle daemon's poll is this one indexed read. */
export async function anythingDue(db: Db, queue: LeasedTable, now: Date): Promise<boolean> {
  const due = await rows(db, queue).where('status', queue.pending).andWhere('next_attempt_at', '<=', now).first('id');
  return due !== undefined;
}

/** Up to `limit` due and free items, oldest due first, read without a lock (candidates for a claim). */
export async function dueItems(
  db: Db,
  queue: LeasedTable,
  options: { now: Date; limit: number; where?: (query: Knex.QueryBuilder) => void },
): Promise<number[]> {
  const query = dueAndFree(rows(db, queue), queue, options.now)
    .orderBy([
      { column: 'next_attempt_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(options.limit);
  options.where?.(query);
  const found = (await query.select('id')) as { id: number }[];
  return found.map((row) => Number(row.id));
}

/**
 * Claims these items where they are still due and free (and match `where`): one conditional
 * UPDATE per chunk of ids sets a fresh token and the lease's expiry. Answers the token, or
 * nothing when another daemon took every one first; read what was taken back by the token.
 */
export async function claimItems(
  db: Db,
  queue: LeasedTable,
  ids: readonly number[],
  options: { now: Date; leaseMs: number; where?: (query: Knex.QueryBuilder) => void; token?: string },
): Promise<string | undefined> {
  if (ids.length === 0) return undefined;
  // A token already held: the items join that claim (a PayPal batch's sends share one lease).
  const token = options.token ?? randomBytes(12).toString('hex');
  const until = new Date(options.now.getTime() + options.leaseMs);
  let claimed = 0;
  await inChunks(ids, async (part) => {
    const query = dueAndFree(rows(db, queue), queue, options.now).whereIn('id', part);
    options.where?.(query);
    claimed += Number(await query.update({ lease_token: token, lease_until: until }));
    return [];
  });
  return claimed > 0 ? token : undefined;
}

/**
 * Extends the leases of these tokens while their items run, so a lease never runs out under
 * work in flight; a daemon that dies stops renewing and its leases run out.
 */
export async function renewLeases(db: Db, queue: LeasedTable, tokens: readonly string[], until: Date): Promise<void> {
  await inChunks(tokens, async (part) => {
    await rows(db, queue).whereIn('lease_token', part).update({ lease_until: until });
    return [];
  });
}

/** Gives claimed items back untouched (this daemon will not run them now). */
export async function releaseItems(db: Db, queue: LeasedTable, held: readonly Held[]): Promise<void> {
  for (const item of held) {
    await rows(db, queue)
      .where({ id: item.id, lease_token: item.leaseToken })
      .update({ lease_token: null, lease_until: null });
  }
}

/**
 * An attempt's outcome, written only while this daemon still holds the lease: the status, one
 * attempt more, when it is due again, the lease freed, and the queue's own columns (`columns`).
 * Answers whether the lease was still held.
 */
export async function settleItem(
  db: Db | Trx,
  queue: LeasedTable,
  item: Held,
  next: { outcome: 'succeeded' | 'retried' | 'dead'; nextAttemptAt: Date | null },
  columns: Record<string, unknown> = {},
): Promise<boolean> {
  const status = next.outcome === 'succeeded' ? queue.done : next.outcome === 'retried' ? queue.pending : queue.dead;
  const changed = await rows(db, queue)
    .where({ id: item.id, lease_token: item.leaseToken })
    .update({
      ...columns,
      status,
      attempt_count: db.raw('attempt_count + 1'),
      next_attempt_at: next.nextAttemptAt,
      lease_token: null,
      lease_until: null,
    });
  return Number(changed) > 0;
}

/**
 * A person's retry of a dead item: due now, pending again, one attempt more (the count is kept,
 * so the item gives up again after that attempt fails). Answers whether there was such an item.
 */
export async function retryDeadItem(
  db: Db,
  queue: LeasedTable,
  id: number,
  now: Date,
  columns: Record<string, unknown> = {},
): Promise<boolean> {
  const changed = await rows(db, queue)
    .where({ id, status: queue.dead })
    .update({ ...columns, status: queue.pending, next_attempt_at: now, lease_token: null, lease_until: null });
  return Number(changed) > 0;
}

/** What a queue holds now: items waiting, the oldest due one's due time, and the dead. */
export async function queueState(
  db: Db,
  queue: LeasedTable,
  now: Date,
): Promise<{ depth: number; oldestDue: Date | null; dead: number }> {
  const [waiting, due, dead] = await Promise.all([
    rows(db, queue).where('status', queue.pending).count({ n: '*' }).first(),
    rows(db, queue)
      .where('status', queue.pending)
      .andWhere('next_attempt_at', '<=', now)
      .min({ at: 'next_attempt_at' })
      .first(),
    rows(db, queue).where('status', queue.dead).count({ n: '*' }).first(),
  ]);
  const at = (due as { at?: string | number | Date | null } | undefined)?.at;
  return {
    depth: Number((waiting as { n?: number } | undefined)?.n ?? 0),
    oldestDue: at === null || at === undefined ? null : toDate(at),
    dead: Number((dead as { n?: number } | undefined)?.n ?? 0),
  };
}

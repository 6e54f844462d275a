import type { Db } from '../db/knex.js';

/** Rows one statement of retention deletes at most: short statements, short locks. */
export const RETENTION_BATCH = 500;

/**
 * Deletes up to one batch of clicks whose id sorts below `floor` (made before its time) and that
 * the rollup has counted; answers how many. A click still pending for the fold stays until it is
 * folded: deleted first, it would never be counted.
 */
export async function deleteClicksBefore(db: Db, floor: string): Promise<number> {
  const ids = await db('clicks')
    .where('id', '<', floor)
    .andWhere('rollup_pending', false)
    .orderBy('id')
    .limit(RETENTION_BATCH)
    .pluck('id');
  if (ids.length === 0) return 0;
  await db('clicks').whereIn('id', ids).delete();
  return ids.length;
}

/**
 * One batch of the tracking events after `afterId`, in primary-key order: the page views among
 * them stored before `before` are deleted. Answers where the scan stopped, or undefined once it
 * met a row stored at or after `before` (rows are stored in id order, so the rest are newer).
 * Leads and conversions are never deleted: sales, refunds and payouts rest on them.
 */
export async function deletePageViewsBefore(
  db: Db,
  afterId: number,
  before: Date,
): Promise<{ next: number | undefined; deleted: number }> {
  const rows = await db('tracking_events')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(RETENTION_BATCH)
    .select<{ id: number; event_type: string; created_at: Date | number | string }[]>('id', 'event_type', 'created_at');
  const old = rows.filter((row) => new Date(row.created_at).getTime() < before.getTime());
  const pageViews = old.filter((row) => row.event_type === 'page_view').map((row) => Number(row.id));
  if (pageViews.length > 0) await db('tracking_events').whereIn('id', pageViews).delete();
  const last = rows.at(-1);
  const done = last === undefined || old.length < rows.length;
  return { next: done ? undefined : Number(last.id), deleted: pageViews.length };
}

import type { Db, Trx } from '../db/knex.js';

/** One affiliate on a chain of parents, as read. */
export interface Ancestor {
  id: number;
  parentId: number | null;
  version: number;
}

/**
 * The chain of parents that starts at `startId` (itself first, then its parent, and so on up to
 * an affiliate with none), within the campaign; empty when `startId` is not an affiliate of it.
 * Stops after `limit` affiliates. Plain reads: `claimChain` decides whether they still hold.
 */
export async function chainFrom(
  trx: Db | Trx,
  campaignId: number,
  startId: number,
  limit: number,
): Promise<Ancestor[]> {
  const chain: Ancestor[] = [];
  for (let id: number | null = startId; id !== null && chain.length < limit;) {
    const row: { id: number; parent_affiliate_id: number | null; lineage_version: number } | undefined = await trx(
      'affiliates',
    )
      .where({ campaign_id: campaignId, id })
      .first('id', 'parent_affiliate_id', 'lineage_version');
    if (!row) break;
    const parentId: number | null = row.parent_affiliate_id === null ? null : Number(row.parent_affiliate_id);
    chain.push({ id: Number(row.id), parentId, version: Number(row.lineage_version) });
    id = parentId;
  }
  return chain;
}

/**
 * Increments `lineage_version` on every affiliate of the chain, each on condition that its parent
 * and version are still as read: false when one changed meanwhile (read the chain again). A change
 * that could close a cycle with this one must have changed a parent on this chain, so the two
 * write one common row: InnoDB makes one wait and its condition fail, Galera certifies only one of
 * them, SQLite runs them one after the other.
 */
export async function claimChain(trx: Trx, chain: readonly Ancestor[]): Promise<boolean> {
  for (const ancestor of chain) {
    const query = trx('affiliates').where({ id: ancestor.id, lineage_version: ancestor.version });
    if (ancestor.parentId === null) query.whereNull('parent_affiliate_id');
    else query.where('parent_affiliate_id', ancestor.parentId);
    const changed = await query.update({ lineage_version: ancestor.version + 1 });
    if (changed === 0) return false;
  }
  return true;
}

import { MESSAGES } from '../../shared/errors.js';
import type { Db, Trx } from '../db/knex.js';
import { ValidationError } from '../errors.js';
import { isGroupOfCampaign } from '../repositories/groups.js';
import { chainFrom, claimChain } from '../repositories/lineage.js';
import { MissingReference } from '../repositories/missingReference.js';

/** How many parents above an affiliate the daemon follows at most (a chain is rarely deeper than a few). */
const MAX_CHAIN = 1000;

/** A parent on the checked chain changed before this transaction claimed it: run it again. */
export class ChainMoved extends Error {
  override name = 'ChainMoved';
}

const invalid = (message: string) => new ValidationError([message]);

/** spec §12.3: an affiliate's group is one of its campaign's (a group never changes campaign). */
export async function checkGroup(trx: Trx, campaignId: number, groupId: number): Promise<void> {
  if (!(await isGroupOfCampaign(trx, campaignId, groupId))) throw invalid(MESSAGES.groupNotInCampaign);
}

/**
 * spec §12.5: a parent is another affiliate of the campaign, not below the affiliate (no
 * cycles). For an existing affiliate the chain above the new parent is read and claimed
 * (repositories/lineage.ts), so two changes that would close a cycle together cannot both
 * commit; ChainMoved when the chain changed under this transaction.
 */
export async function checkParent(
  trx: Trx,
  campaignId: number,
  affiliateId: number | undefined,
  parentId: number,
): Promise<void> {
  if (parentId === affiliateId) throw invalid(MESSAGES.parentIsSelf);
  const chain = await chainFrom(trx, campaignId, parentId, MAX_CHAIN);
  if (chain.length === 0) throw invalid(MESSAGES.parentNotInCampaign);
  // A new affiliate has nobody below it yet: no cycle can go through it.
  if (affiliateId === undefined) return;
  if (chain.some((ancestor) => ancestor.id === affiliateId)) throw invalid(MESSAGES.parentCycle(affiliateId, parentId));
  // A chain read only in part could hide the affiliate above its last link: refuse, never guess.
  if (chain.length === MAX_CHAIN && chain[chain.length - 1]?.parentId !== null) {
    throw invalid(MESSAGES.parentChainTooDeep(MAX_CHAIN));
  }
  if (!(await claimChain(trx, chain))) throw new ChainMoved();
}

/** A group or parent that vanished between the check and the write is the check's 400 too. */
export function referenceError(err: unknown): ValidationError | undefined {
  if (!(err instanceof MissingReference)) return undefined;
  return invalid(err.field === 'groupId' ? MESSAGES.groupNotInCampaign : MESSAGES.parentNotInCampaign);
}

/**
 * The context check of create and update (one round of validation, spec §10.6): a `groupId` or
 * `parentAffiliateId` the body names that is not the campaign's. Cycles need the affiliate's id
 * and are judged in the update's transaction.
 */
export async function referenceIssues(db: Db, campaignId: number, body: unknown): Promise<string[]> {
  if (typeof body !== 'object' || body === null) return [];
  const { groupId, parentAffiliateId } = body as Record<string, unknown>;
  const issues: string[] = [];
  const named = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;
  if (named(groupId) && !(await isGroupOfCampaign(db, campaignId, groupId))) {
    issues.push(MESSAGES.groupNotInCampaign);
  }
  if (named(parentAffiliateId)) {
    if ((await chainFrom(db, campaignId, parentAffiliateId, 1)).length === 0) issues.push(MESSAGES.parentNotInCampaign);
  }
  return issues;
}

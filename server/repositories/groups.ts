import { fromCents } from '../../shared/money.js';
import type { Group } from '../../shared/schemas/group.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import { type AffiliateGroupRow, toIso } from '../db/rows.js';
import {
  apiProducts,
  apiRate,
  type LevelRule,
  productsColumn,
  productsOf,
  recurringColumns,
  recurringOf,
} from './ruleColumns.js';
import { conflictsAs } from './uniqueConflict.js';

/** A group's fields as a service sets them (rates in hundredths). */
export interface GroupFields {
  name: string;
  rule: LevelRule;
}

/** spec §12.1: names are unique per campaign, trimmed and ignoring case. */
const nameKey = (name: string) => name.trim().toLowerCase();

function columns(fields: GroupFields) {
  const { rule } = fields;
  return {
    name: fields.name.trim(),
    name_key: nameKey(fields.name),
    commission_type: rule.rate.type,
    commission_value: rule.rate.hundredths,
    ...recurringColumns(rule.recurring),
    second_tier_percent: rule.secondTierHundredths,
    products: productsColumn(rule.products),
  };
}

function ruleOf(row: AffiliateGroupRow): LevelRule {
  return {
    rate: { type: row.commission_type, hundredths: Number(row.commission_value) },
    products: productsOf(row.products),
    recurring: recurringOf(row.recurring, row.recurring_months),
    secondTierHundredths: row.second_tier_percent === null ? null : Number(row.second_tier_percent),
  };
}

type GroupView = AffiliateGroupRow & { affiliate_count: number | string };

function toGroup(row: GroupView): Group {
  const rule = ruleOf(row);
  return {
    id: Number(row.id),
    name: row.name,
    ...apiRate(rule.rate),
    recurring: rule.recurring,
    products: apiProducts(rule.products),
    secondTierPercent: rule.secondTierHundredths === null ? null : fromCents(rule.secondTierHundredths),
    affiliateCount: Number(row.affiliate_count),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** Groups with how many affiliates each holds (one correlated count, served by the group_id index). */
function withCount(db: Db | Trx) {
  return db('affiliate_groups as g').select<GroupView[]>(
    'g.*',
    db.raw('(SELECT COUNT(*) FROM affiliates a WHERE a.group_id = g.id) as affiliate_count'),
  );
}

const NAME_UNIQUE = { name_key: 'groupName' } as const;

/** A new group; a taken name is a UniqueConflict. Answers its id. */
export async function insertGroup(trx: Trx, campaignId: number, fields: GroupFields, now: Date): Promise<number> {
  const [id] = await conflictsAs(NAME_UNIQUE, () =>
    trx('affiliate_groups').insert({ campaign_id: campaignId, ...columns(fields), created_at: now, updated_at: now }),
  );
  return Number(id);
}

/** Writes every field; a taken name is a UniqueConflict. */
export async function updateGroup(trx: Trx, campaignId: number, id: number, fields: GroupFields, now: Date) {
  await conflictsAs(NAME_UNIQUE, () =>
    trx('affiliate_groups')
      .where({ campaign_id: campaignId, id })
      .update({ ...columns(fields), updated_at: now }),
  );
}

/** Deletes the group; its affiliates' `group_id` becomes null (the foreign key's ON DELETE SET NULL). */
export async function deleteGroup(trx: Trx, campaignId: number, id: number): Promise<number> {
  return trx('affiliate_groups').where({ campaign_id: campaignId, id }).delete();
}

export async function findGroup(db: Db | Trx, campaignId: number, id: number): Promise<Group | undefined> {
  const row = await withCount(db).where({ 'g.campaign_id': campaignId, 'g.id': id }).first();
  return row && toGroup(row);
}

/** The group's fields under a row lock, for a change of some of them. */
export async function lockGroup(trx: Trx, campaignId: number, id: number): Promise<GroupFields | undefined> {
  const row = await trx('affiliate_groups').where({ campaign_id: campaignId, id }).forUpdate().first();
  return row && { name: row.name, rule: ruleOf(row) };
}

export async function listGroups(
  db: Db,
  campaignId: number,
  page: { page: number; limit: number },
): Promise<{ groups: Group[]; total: number }> {
  const base = db('affiliate_groups as g').where('g.campaign_id', campaignId);
  const [total, rows] = await Promise.all([
    countRows(base.clone()),
    newestFirstPage(withCount(db).where('g.campaign_id', campaignId), 'g.', page),
  ]);
  return { groups: rows.map(toGroup), total };
}

/** The ids of the campaign's affiliates in a group (for their `affiliate.updated` when it goes). */
export async function affiliateIdsInGroup(trx: Trx, campaignId: number, groupId: number): Promise<number[]> {
  const rows = await trx('affiliates')
    .where({ campaign_id: campaignId, group_id: groupId })
    .select<{ id: number }[]>('id');
  return rows.map((row) => Number(row.id));
}

/** Whether a group of this id belongs to the campaign (a group never changes campaign). */
export async function isGroupOfCampaign(db: Db | Trx, campaignId: number, groupId: number): Promise<boolean> {
  const row = await db('affiliate_groups').where({ id: groupId, campaign_id: campaignId }).first('id');
  return row !== undefined;
}

/** The rules of these groups, as intake applies them (one read per flush). */
export async function groupRules(trx: Trx, ids: readonly number[]): Promise<Map<number, LevelRule>> {
  const rows = await inChunks(ids, (part) =>
    trx('affiliate_groups').whereIn('id', part).select<AffiliateGroupRow[]>('*'),
  );
  return new Map(rows.map((row) => [Number(row.id), ruleOf(row)]));
}

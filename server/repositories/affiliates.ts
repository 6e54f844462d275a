import type { PayoutMethod } from '../../shared/payoutDetails.js';
import { fromCents } from '../../shared/money.js';
import type { Affiliate, AffiliateStatus } from '../../shared/schemas/affiliate.js';
import type { Knex } from 'knex';
import type { Db, Trx } from '../db/knex.js';
import { engineOf } from '../db/knex.js';
import { inChunks } from '../db/bulk.js';
import { newestFirstPage } from '../db/pages.js';
import { preparedRead } from '../db/prepared.js';
import { type AffiliateRow, toDate } from '../db/rows.js';
import { fulltextQuery, MIN_WORD_CHARS, searchWords, trigramQuery } from './affiliateSearch.js';
import { apiRate, type Rate } from './ruleColumns.js';
import { referencesAs } from './missingReference.js';
import { conflictsAs } from './uniqueConflict.js';
import { countLiveAffiliates } from './usage.js';

interface AffiliateTotals {
  conversions: number;
  commissionsCents: number;
  paidCents: number;
  /** Another affiliate of the campaign has the same payout identity. */
  sharedPayoutIdentity: boolean;
}

const NO_TOTALS: AffiliateTotals = { conversions: 0, commissionsCents: 0, paidCents: 0, sharedPayoutIdentity: false };

/** spec §10.4: e-mails are unique within a campaign, compared trimmed and case-insensitively. */
const emailKey = (email: string) => email.trim().toLowerCase();
/** spec §10.3: referral codes are unique across campaigns on their upper-cased form. */
const referralKey = (code: string) => code.toUpperCase();

/** Lower-cased name, e-mail and referral code: LIKE over it decides the list's `search` (spec §4.2). */
function searchKey(fields: { name: string | null; email: string; referralId: string }): string {
  return [fields.name ?? '', emailKey(fields.email), fields.referralId].join('\n').toLowerCase();
}

/** The fields of an affiliate a caller sets; the derived keys are this module's business. */
export interface AffiliateFields {
  email: string;
  referralId: string;
  name: string | null;
  phone: string | null;
  status: AffiliateStatus;
  /** The commission rule's fields (docs/commissions.md); absent: none. */
  groupId?: number | null;
  commissionOverride?: Rate | null;
  parentAffiliateId?: number | null;
}

/** Where the affiliate is paid (set in the portal), as stored. */
export interface PayoutColumns {
  payoutMethod: PayoutMethod | null;
  pixKeyType: 'cpf' | 'cnpj' | 'email' | 'phone' | 'random' | null;
  payoutAccount: string | null;
  payoutIdentity: string | null;
}

/** An affiliate as stored, without its totals: what an update starts from. */
export interface AffiliateRecord extends AffiliateFields, PayoutColumns {
  id: number;
  groupId: number | null;
  commissionOverride: Rate | null;
  parentAffiliateId: number | null;
  createdAt: Date;
}

/** Which unique index guards which field (the 409 texts never say where, spec §4.1.4). */
const UNIQUE_FIELDS = { referral_key: 'referralId', email_key: 'email' } as const;
/** Which foreign key guards which field: a group or parent deleted meanwhile. */
const REFERENCES = { parent_affiliate_id: 'parentAffiliateId', group_id: 'groupId' } as const;

/** A write of an affiliate row: a taken key is a UniqueConflict, a vanished group or parent a MissingReference. */
const guarded = <T>(write: () => Promise<T>) => referencesAs(REFERENCES, () => conflictsAs(UNIQUE_FIELDS, write));

/** A whole row for a new affiliate, keys derived here (also used by tests and the benchmark that insert directly). */
export function newAffiliateRow(
  campaignId: number,
  fields: AffiliateFields,
  passwordHash: string,
  now: Date,
): Omit<AffiliateRow, 'id'> {
  return {
    campaign_id: campaignId,
    ...derivedColumns(fields),
    password_hash: passwordHash,
    lineage_version: 0,
    created_at: now,
    updated_at: now,
  };
}

function derivedColumns(fields: AffiliateFields) {
  const email = fields.email.trim();
  const key = searchKey({ name: fields.name, email, referralId: fields.referralId });
  return {
    email,
    email_key: emailKey(email),
    referral_id: fields.referralId,
    referral_key: referralKey(fields.referralId),
    name: fields.name,
    phone: fields.phone,
    status: fields.status,
    search_key: key,
    search_words: searchWords(key),
    group_id: fields.groupId ?? null,
    commission_override_type: fields.commissionOverride?.type ?? null,
    commission_override_value: fields.commissionOverride?.hundredths ?? null,
    parent_affiliate_id: fields.parentAffiliateId ?? null,
  };
}

const PUBLIC_COLUMNS = [
  'id',
  'email',
  'referral_id',
  'name',
  'phone',
  'status',
  'group_id',
  'commission_override_type',
  'commission_override_value',
  'parent_affiliate_id',
  'payout_method',
  'pix_key_type',
  'payout_account',
  'payout_identity',
  'created_at',
] as const;
type PublicRow = Pick<AffiliateRow, (typeof PUBLIC_COLUMNS)[number]>;

function recordOf(row: PublicRow): AffiliateRecord {
  return {
    id: Number(row.id),
    email: row.email,
    referralId: row.referral_id,
    name: row.name,
    phone: row.phone,
    status: row.status,
    groupId: row.group_id === null ? null : Number(row.group_id),
    commissionOverride:
      row.commission_override_type === null
        ? null
        : { type: row.commission_override_type, hundredths: Number(row.commission_override_value ?? 0) },
    parentAffiliateId: row.parent_affiliate_id === null ? null : Number(row.parent_affiliate_id),
    payoutMethod: row.payout_method ?? null,
    pixKeyType: row.payout_method === 'pix' ? (row.pix_key_type ?? null) : null,
    payoutAccount: row.payout_account ?? null,
    payoutIdentity: row.payout_identity ?? null,
    createdAt: toDate(row.created_at),
  };
}

function toAffiliate(record: AffiliateRecord, totals: AffiliateTotals = NO_TOTALS): Affiliate {
  return {
    id: record.id,
    ...(record.name !== null && { name: record.name }),
    email: record.email,
    ...(record.phone !== null && { phone: record.phone }),
    referralId: record.referralId,
    status: record.status,
    createdAt: record.createdAt.toISOString(),
    totalConversions: totals.conversions,
    totalCommissions: fromCents(totals.commissionsCents),
    totalPaid: fromCents(totals.paidCents),
    groupId: record.groupId,
    commissionOverride: record.commissionOverride && apiRate(record.commissionOverride),
    parentAffiliateId: record.parentAffiliateId,
    payoutMethod: record.payoutMethod,
    pixKeyType: record.pixKeyType,
    payoutAccount: record.payoutAccount,
    flags: totals.sharedPayoutIdentity ? ['duplicate_payout_identity'] : [],
  };
}

/** Stores a new affiliate; a taken e-mail or referral code is a UniqueConflict. Answers it as the API shows it. */
export async function insertAffiliate(
  trx: Trx,
  campaignId: number,
  fields: AffiliateFields,
  passwordHash: string,
  now: Date,
): Promise<Affiliate> {
  const row = newAffiliateRow(campaignId, fields, passwordHash, now);
  const [id] = await guarded(() => trx('affiliates').insert(row));
  return toAffiliate(
    recordOf({
      ...row,
      id: Number(id),
      payout_method: null,
      pix_key_type: null,
      payout_account: null,
      payout_identity: null,
    }),
  );
}

/** The totals of one affiliate, as `totalsFor` counts them, as columns of one row. */
type RowWithTotals = PublicRow & {
  t_conversions: number | string | null;
  t_commissions: number | string | null;
  t_paid: number | string | null;
  t_same_identity: number | string;
};

/** Aggregates without GROUP BY answer exactly one row each, so the cross joins keep the row. */
const ONE_WITH_TOTALS = `SELECT ${PUBLIC_COLUMNS.map((column) => `a.${column}`).join(', ')},
  c.t_conversions, c.t_commissions, p.t_paid,
  (SELECT COUNT(*) FROM affiliates d
    WHERE d.campaign_id = a.campaign_id AND d.payout_identity = a.payout_identity) AS t_same_identity
FROM affiliates a
CROSS JOIN (SELECT SUM(CASE WHEN source_key = 0 THEN 1 ELSE 0 END) AS t_conversions,
    SUM(CASE WHEN status IN ('approved', 'paid') THEN commission_cents ELSE 0 END) AS t_commissions
  FROM conversions WHERE affiliate_id = ?) c
CROSS JOIN (SELECT SUM(amount_cents) AS t_paid FROM payouts WHERE affiliate_id = ? AND status = 'paid') p
WHERE a.campaign_id = ? AND a.id = ?`;

/**
 * spec §4.3: one affiliate and its totals (spec §2.1) in one statement, so a read by id is one
 * round trip to the database rather than three, as a prepared statement.
 */
export async function findAffiliate(db: Db, campaignId: number, id: number): Promise<Affiliate | undefined> {
  const [found] = await preparedRead<RowWithTotals>(db, ONE_WITH_TOTALS, [id, id, campaignId, id]);
  if (!found) return undefined;
  const { t_conversions, t_commissions, t_paid, t_same_identity, ...row } = found;
  return toAffiliate(recordOf(row), {
    conversions: Number(t_conversions ?? 0),
    commissionsCents: Number(t_commissions ?? 0),
    paidCents: Number(t_paid ?? 0),
    sharedPayoutIdentity: Number(t_same_identity) > 1,
  });
}

/** Locks the row (MySQL; SQLite serialises writers anyway) for a read-modify-write of non-unique fields. */
export async function lockAffiliate(trx: Trx, campaignId: number, id: number): Promise<AffiliateRecord | undefined> {
  const row = await trx<AffiliateRow>('affiliates')
    .where({ campaign_id: campaignId, id })
    .forUpdate()
    .first<PublicRow | undefined>(...PUBLIC_COLUMNS);
  return row && recordOf(row);
}

/** The affiliate with its totals (spec §2.1) as they stand in this transaction. */
export async function withTotals(db: Db | Trx, record: AffiliateRecord): Promise<Affiliate> {
  return toAffiliate(record, (await totalsFor(db, [record])).get(record.id));
}

/** Affiliates of the campaign by id, with their totals, in id order. */
export async function findAffiliatesWithTotals(
  db: Db | Trx,
  campaignId: number,
  ids: readonly number[],
): Promise<Affiliate[]> {
  const rows = await inChunks(ids, (part) =>
    db<AffiliateRow>('affiliates')
      .where('campaign_id', campaignId)
      .whereIn('id', part)
      .orderBy('id')
      .select<PublicRow[]>(...PUBLIC_COLUMNS),
  );
  const records = rows.map(recordOf);
  const totals = await totalsFor(db, records);
  return records.map((record) => toAffiliate(record, totals.get(record.id)));
}

/** Writes every field (and its derived keys); a new password hash only when given. A taken e-mail or code is a UniqueConflict. */
export async function updateAffiliate(
  trx: Trx,
  campaignId: number,
  id: number,
  fields: AffiliateFields,
  passwordHash: string | undefined,
  now: Date,
): Promise<void> {
  await guarded(() =>
    trx('affiliates')
      .where({ campaign_id: campaignId, id })
      .update({
        ...derivedColumns(fields),
        updated_at: now,
        ...(passwordHash !== undefined && { password_hash: passwordHash }),
      }),
  );
}

export async function deleteAffiliate(trx: Trx, campaignId: number, id: number): Promise<number> {
  return trx('affiliates').where({ campaign_id: campaignId, id }).delete();
}

/** `%`, `_` and the escape character itself match literally. */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** The server's `innodb_ft_min_token_size`: shorter words are not in the FULLTEXT index. */
const minWordChars = new WeakMap<object, Promise<number>>();

function fulltextMinWord(db: Db): Promise<number> {
  let found = minWordChars.get(db.client);
  if (!found) {
    found = db
      .raw('SELECT @@innodb_ft_min_token_size AS n')
      .then(([rows]: [Array<{ n: number | string }>]) =>
        Math.max(MIN_WORD_CHARS, Number(rows[0]?.n ?? MIN_WORD_CHARS)),
      );
    minWordChars.set(db.client, found);
  }
  return found;
}

/**
 * `search` (spec §4.2): LIKE over `search_key` decides, the engine's text index (when the term
 * allows it) narrows the rows LIKE reads. See affiliateSearch.ts for what each index serves.
 */
async function whereSearch(db: Db, query: Knex.QueryBuilder, search: string): Promise<void> {
  const term = search.toLowerCase();
  if (engineOf(db) === 'sqlite') {
    // FTS5 cannot take a NUL in a query; such a term is left to instr, which compares every byte
    // (LIKE would stop reading the pattern at the NUL and match everything).
    const phrase = term.includes('\0') ? undefined : trigramQuery(term);
    if (phrase)
      query.whereRaw('affiliates.id IN (SELECT rowid FROM affiliates_fts WHERE affiliates_fts MATCH ?)', [phrase]);
    // Both sides are lower-cased here, so a plain substring test is the case-insensitive match.
    query.andWhereRaw('instr(search_key, ?) > 0', [term]);
    return;
  }
  const words = fulltextQuery(term, await fulltextMinWord(db));
  if (words) query.whereRaw('MATCH (search_words) AGAINST (? IN BOOLEAN MODE)', [words]);
  query.andWhereRaw(`search_key LIKE ? ESCAPE '!'`, [likePattern(term)]);
}

/** A page of the campaign's affiliates, newest first, each with its totals (spec §2.1). */
export async function listAffiliates(
  db: Db,
  campaignId: number,
  filter: { status?: AffiliateStatus; search?: string; groupId?: number; page: number; limit: number },
): Promise<{ affiliates: Affiliate[]; total: number }> {
  const base = db<AffiliateRow>('affiliates').where('campaign_id', campaignId);
  if (filter.groupId !== undefined) base.andWhere('group_id', filter.groupId);
  if (filter.status) base.andWhere('status', filter.status);
  if (filter.search) await whereSearch(db, base, filter.search);
  const filtered = Boolean(filter.status || filter.search || filter.groupId !== undefined);
  // Deferred join: the offset walks the (campaign_id[, status], created_at, id) index only, and
  // full rows are read for the page's ids alone, however deep the page.
  const pageIds = newestFirstPage(base.clone(), '', filter).select('id');
  const [total, rows] = await Promise.all([
    // Unfiltered, the campaign's live affiliate counters are the exact total: no scan to count.
    filtered
      ? base
          .clone()
          .count<{ n: number | string }[]>({ n: '*' })
          .then((counted) => Number(counted[0]?.n ?? 0))
      : countLiveAffiliates(db, campaignId),
    db('affiliates as a')
      .join(pageIds.as('page'), 'page.id', 'a.id')
      .select<PublicRow[]>(PUBLIC_COLUMNS.map((column) => `a.${column}`))
      .orderBy([
        { column: 'a.created_at', order: 'desc' },
        { column: 'a.id', order: 'desc' },
      ]),
  ]);
  const records = rows.map(recordOf);
  const totals = await totalsFor(db, records);
  return { affiliates: records.map((record) => toAffiliate(record, totals.get(record.id))), total };
}

/** Those of these affiliates whose payout identity another affiliate of their campaign has too. */
async function sharingIdentity(db: Db | Trx, records: AffiliateRecord[]): Promise<Set<number>> {
  const ids = records.filter((record) => record.payoutIdentity !== null).map((record) => record.id);
  if (ids.length === 0) return new Set();
  const rows = await db('affiliates as a')
    .join('affiliates as d', function sameAccount() {
      this.on('d.campaign_id', 'a.campaign_id')
        .andOn('d.payout_identity', 'a.payout_identity')
        .andOn('d.id', '<>', 'a.id');
    })
    .whereIn('a.id', ids)
    .distinct<{ id: number }[]>('a.id');
  return new Set(rows.map((row) => Number(row.id)));
}

/** spec §2.1 totals for a page of affiliates: a few grouped queries, whatever the page size. */
async function totalsFor(db: Db | Trx, records: AffiliateRecord[]): Promise<Map<number, AffiliateTotals>> {
  const totals = new Map<number, AffiliateTotals>();
  if (records.length === 0) return totals;
  const affiliateIds = records.map((record) => record.id);
  const shared = await sharingIdentity(db, records);
  const [conversions, payouts] = await Promise.all([
    inChunks(affiliateIds, (part) =>
      db('conversions')
        .whereIn('affiliate_id', part)
        .groupBy('affiliate_id')
        .select<{ affiliate_id: number; conversions: number | string | null; commissions: number | string | null }[]>(
          'affiliate_id',
          // spec §2.1 counts the affiliate's own sales; second-tier conversions (source_key > 0) only earn.
          db.raw('SUM(CASE WHEN source_key = 0 THEN 1 ELSE 0 END) as conversions'),
          db.raw(`SUM(CASE WHEN status IN ('approved', 'paid') THEN commission_cents ELSE 0 END) as commissions`),
        ),
    ),
    inChunks(affiliateIds, (part) =>
      db('payouts')
        .whereIn('affiliate_id', part)
        .andWhere('status', 'paid')
        .groupBy('affiliate_id')
        .select<{ affiliate_id: number; paid: number | string | null }[]>(
          'affiliate_id',
          db.raw('SUM(amount_cents) as paid'),
        ),
    ),
  ]);
  const entry = (id: number) => {
    let found = totals.get(id);
    if (!found) {
      found = { ...NO_TOTALS };
      totals.set(id, found);
    }
    return found;
  };
  for (const row of conversions) {
    const t = entry(Number(row.affiliate_id));
    t.conversions = Number(row.conversions ?? 0);
    t.commissionsCents = Number(row.commissions ?? 0);
  }
  for (const row of payouts) entry(Number(row.affiliate_id)).paidCents = Number(row.paid ?? 0);
  for (const id of shared) entry(id).sharedPayoutIdentity = true;
  return totals;
}

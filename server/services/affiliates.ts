import bcrypt from 'bcrypt';
import { MESSAGES } from '../../shared/errors.js';
import type {
  Affiliate,
  AffiliateList,
  CreateAffiliateInput,
  ListAffiliatesQuery,
  UpdateAffiliateInput,
} from '../../shared/schemas/affiliate.js';
import { type Db, inTransaction, isUniqueViolation, violatedIndex } from '../db/knex.js';
import type { AffiliateRow } from '../db/rows.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import {
  affiliateUsage,
  deleteAffiliateRow,
  findAffiliate,
  findAffiliateForUpdate,
  insertAffiliate,
  listAffiliateRows,
  releaseAffiliateSlot,
  reserveAffiliateSlot,
  searchKey,
  toAffiliate,
  totalsFor,
  updateAffiliateRow,
} from '../repositories/affiliates.js';
import { randomReferralCode } from './random.js';

export interface AffiliateService {
  create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate>;
  list(campaignId: number, query: ListAffiliatesQuery): Promise<AffiliateList>;
  get(campaignId: number, id: number): Promise<Affiliate>;
  update(campaignId: number, id: number, input: UpdateAffiliateInput): Promise<Affiliate>;
  remove(campaignId: number, id: number): Promise<void>;
}

const emailKey = (email: string) => email.trim().toLowerCase();
const referralKey = (code: string) => code.toUpperCase();

/** Which unique index a violation hit; the 409 texts never say where (spec 4.1.4). */
function conflictOf(err: unknown): ConflictError | undefined {
  if (!isUniqueViolation(err)) return undefined;
  const index = violatedIndex(err);
  if (index.includes('referral_key')) return new ConflictError(MESSAGES.referralTaken);
  if (index.includes('email_key')) return new ConflictError(MESSAGES.emailTaken);
  return undefined;
}

export function affiliateService(db: Db, bcryptRounds: number): AffiliateService {
  async function withTotals(row: Parameters<typeof toAffiliate>[0]): Promise<Affiliate> {
    const totals = await totalsFor(db, [row.id]);
    return toAffiliate(row, totals.get(row.id));
  }

  async function create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate> {
    // Hash outside the transaction: bcrypt's async API runs on the thread pool, and no lock waits for it.
    const passwordHash = await bcrypt.hash(input.password, bcryptRounds);
    const email = input.email.trim();
    // product §3.3: generated codes are retried on collision; a code the merchant chose is a 409.
    for (let attempt = 1; ; attempt++) {
      const referralId = input.referralId ?? randomReferralCode();
      const now = new Date();
      const row: Omit<AffiliateRow, 'id'> = {
        campaign_id: campaignId,
        email,
        email_key: emailKey(email),
        referral_id: referralId,
        referral_key: referralKey(referralId),
        name: input.name ?? null,
        phone: input.phone ?? null,
        status: input.status ?? 'active',
        password_hash: passwordHash,
        search_key: searchKey({ name: input.name ?? null, emailKey: emailKey(email), referralId }),
        created_at: now,
        updated_at: now,
      };
      try {
        const id = await inTransaction(db, async (trx) => {
          if (!(await reserveAffiliateSlot(trx, campaignId))) {
            const usage = await affiliateUsage(trx, campaignId);
            throw new ForbiddenError(
              MESSAGES.affiliateLimit(usage.plan, usage.count, usage.max ?? usage.count),
            );
          }
          return insertAffiliate(trx, row);
        });
        const { password_hash: _hash, search_key: _search, updated_at: _updated, ...visible } = row;
        return toAffiliate({ id, ...visible });
      } catch (err) {
        const conflict = conflictOf(err);
        if (!conflict) throw err;
        const generatedCodeCollided =
          input.referralId === undefined && conflict.messages === MESSAGES.referralTaken;
        if (!generatedCodeCollided || attempt >= 5) throw conflict;
      }
    }
  }

  async function list(campaignId: number, query: ListAffiliatesQuery): Promise<AffiliateList> {
    const { rows, total } = await listAffiliateRows(db, campaignId, query);
    const totals = await totalsFor(
      db,
      rows.map((row) => row.id),
    );
    return {
      affiliates: rows.map((row) => toAffiliate(row, totals.get(row.id))),
      total,
      page: query.page,
      limit: query.limit,
      totalPages: Math.ceil(total / query.limit),
    };
  }

  async function get(campaignId: number, id: number): Promise<Affiliate> {
    const row = await findAffiliate(db, campaignId, id);
    if (!row) throw new NotFoundError(MESSAGES.affiliateNotFound);
    return withTotals(row);
  }

  async function update(campaignId: number, id: number, input: UpdateAffiliateInput): Promise<Affiliate> {
    const passwordHash =
      input.password === undefined ? undefined : await bcrypt.hash(input.password, bcryptRounds);
    try {
      const row = await inTransaction(db, async (trx) => {
        const current = await findAffiliateForUpdate(trx, campaignId, id);
        if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
        const next = {
          ...current,
          ...(input.email !== undefined && { email: input.email.trim(), email_key: emailKey(input.email) }),
          ...(input.referralId !== undefined && {
            referral_id: input.referralId,
            referral_key: referralKey(input.referralId),
          }),
          ...(input.name !== undefined && { name: input.name }),
          ...(input.phone !== undefined && { phone: input.phone }),
          ...(input.status !== undefined && { status: input.status }),
        };
        await updateAffiliateRow(trx, campaignId, id, {
          email: next.email,
          email_key: next.email_key,
          referral_id: next.referral_id,
          referral_key: next.referral_key,
          name: next.name,
          phone: next.phone,
          status: next.status,
          search_key: searchKey({ name: next.name, emailKey: next.email_key, referralId: next.referral_id }),
          updated_at: new Date(),
          ...(passwordHash !== undefined && { password_hash: passwordHash }),
        });
        return next;
      });
      return withTotals(row);
    } catch (err) {
      throw conflictOf(err) ?? err;
    }
  }

  /** spec 4.5.1: one statement removes the affiliate; foreign keys cascade to every child row. */
  async function remove(campaignId: number, id: number): Promise<void> {
    await inTransaction(db, async (trx) => {
      const deleted = await deleteAffiliateRow(trx, campaignId, id);
      if (deleted === 0) throw new NotFoundError(MESSAGES.affiliateNotFound);
      await releaseAffiliateSlot(trx, campaignId);
    });
  }

  return { create, list, get, update, remove };
}

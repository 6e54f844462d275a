import { MESSAGES } from '../../shared/errors.js';
import type {
  Affiliate,
  AffiliateList,
  CreateAffiliateInput,
  ListAffiliatesQuery,
  UpdateAffiliateInput,
} from '../../shared/schemas/affiliate.js';
import { inTransaction, isUniqueViolation, violatedIndex } from '../db/knex.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import {
  deleteAffiliateRow,
  fieldsOf,
  findAffiliateWithTotals,
  findAffiliateForUpdate,
  insertAffiliate,
  listAffiliateRows,
  newAffiliateRow,
  toAffiliate,
  totalsFor,
  updateAffiliateRow,
  visibleRow,
  withFields,
} from '../repositories/affiliates.js';
import { affiliateUsage, releaseAffiliateSlot, reserveAffiliateSlot } from '../repositories/usage.js';
import type { ServiceDeps } from './deps.js';
import { passwordHasher } from './passwordHasher.js';
import { randomReferralCode } from './random.js';
import type { Outbox } from './webhooks/outbox.js';

export interface AffiliateService {
  create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate>;
  list(campaignId: number, query: ListAffiliatesQuery): Promise<AffiliateList>;
  get(campaignId: number, id: number): Promise<Affiliate>;
  update(campaignId: number, id: number, input: UpdateAffiliateInput): Promise<Affiliate>;
  remove(campaignId: number, id: number): Promise<void>;
}

/** Which unique index a violation hit; the 409 texts never say where (spec 4.1.4). */
function conflictOf(err: unknown): ConflictError | undefined {
  if (!isUniqueViolation(err)) return undefined;
  const index = violatedIndex(err);
  if (index.includes('referral_key')) return new ConflictError(MESSAGES.referralTaken);
  if (index.includes('email_key')) return new ConflictError(MESSAGES.emailTaken);
  return undefined;
}

export function affiliateService({ db, config, now }: ServiceDeps, outbox: Outbox): AffiliateService {
  const hasher = passwordHasher(config.bcryptRounds, config.bcryptConcurrency);

  async function create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate> {
    // Hash outside the transaction: bcrypt's async API runs on the thread pool, and no lock waits for it.
    const passwordHash = await hasher.hash(input.password);
    // product §3.3: generated codes are retried on collision; a code the merchant chose is a 409.
    for (let attempt = 1; ; attempt++) {
      const createdAt = now();
      const row = newAffiliateRow(
        campaignId,
        {
          email: input.email,
          referralId: input.referralId ?? randomReferralCode(),
          name: input.name ?? null,
          phone: input.phone ?? null,
          // product §3.1: active unless the body says otherwise.
          status: input.status ?? 'active',
        },
        passwordHash,
        createdAt,
      );
      try {
        const id = await inTransaction(db, async (trx) => {
          if (!(await reserveAffiliateSlot(trx, campaignId))) {
            const usage = await affiliateUsage(trx, campaignId);
            throw new ForbiddenError(MESSAGES.affiliateLimit(usage.plan, usage.count, usage.max ?? usage.count));
          }
          const created = await insertAffiliate(trx, row);
          // The webhook message commits, or rolls back, with the affiliate (docs/webhooks.md).
          const affiliate = toAffiliate(visibleRow(created, row));
          await outbox.record(trx, [{ campaignId, type: 'affiliate.created', data: affiliate }]);
          return created;
        });
        return toAffiliate(visibleRow(id, row));
      } catch (err) {
        const conflict = conflictOf(err);
        if (!conflict) throw err;
        const generatedCodeCollided = input.referralId === undefined && conflict.messages === MESSAGES.referralTaken;
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
    const found = await findAffiliateWithTotals(db, campaignId, id);
    if (!found) throw new NotFoundError(MESSAGES.affiliateNotFound);
    return toAffiliate(found.row, found.totals);
  }

  async function update(campaignId: number, id: number, input: UpdateAffiliateInput): Promise<Affiliate> {
    const passwordHash = input.password === undefined ? undefined : await hasher.hash(input.password);
    try {
      return await inTransaction(db, async (trx) => {
        const current = await findAffiliateForUpdate(trx, campaignId, id);
        if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
        // spec 4.4: fields not sent stay unchanged.
        const fields = { ...fieldsOf(current) };
        if (input.email !== undefined) fields.email = input.email.trim();
        if (input.referralId !== undefined) fields.referralId = input.referralId;
        if (input.name !== undefined) fields.name = input.name;
        if (input.phone !== undefined) fields.phone = input.phone;
        if (input.status !== undefined) fields.status = input.status;
        const at = now();
        await updateAffiliateRow(trx, campaignId, id, fields, passwordHash, at);
        const affiliate = toAffiliate(withFields(current, fields), (await totalsFor(trx, [id])).get(id));
        await outbox.record(trx, [{ campaignId, type: 'affiliate.updated', data: affiliate }]);
        return affiliate;
      });
    } catch (err) {
      throw conflictOf(err) ?? err;
    }
  }

  /** spec 4.5.1: one statement removes the affiliate; foreign keys cascade to every child row. */
  async function remove(campaignId: number, id: number): Promise<void> {
    await inTransaction(db, async (trx) => {
      // affiliate.deleted carries the affiliate as it was, so it is read first.
      const current = await findAffiliateForUpdate(trx, campaignId, id);
      if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
      const affiliate = toAffiliate(current, (await totalsFor(trx, [id])).get(id));
      const deleted = await deleteAffiliateRow(trx, campaignId, id);
      if (deleted === 0) throw new NotFoundError(MESSAGES.affiliateNotFound);
      await releaseAffiliateSlot(trx, campaignId);
      await outbox.record(trx, [{ campaignId, type: 'affiliate.deleted', data: affiliate }]);
    });
  }

  return { create, list, get, update, remove };
}

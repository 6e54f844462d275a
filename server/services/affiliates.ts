import { MESSAGES } from '../../shared/errors.js';
import type {
  Affiliate,
  AffiliateList,
  CreateAffiliateInput,
  ListAffiliatesQuery,
  UpdateAffiliateInput,
} from '../../shared/schemas/affiliate.js';
import { inTransaction, type Trx } from '../db/knex.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import {
  type AffiliateFields,
  deleteAffiliate,
  findAffiliate,
  insertAffiliate,
  listAffiliates,
  lockAffiliate,
  updateAffiliate,
  withTotals,
} from '../repositories/affiliates.js';
import { rateOf } from '../repositories/ruleColumns.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import { ChainMoved, checkGroup, checkParent, referenceError, referenceIssues } from './affiliateRules.js';
import { affiliateUsage, releaseAffiliateSlot, reserveAffiliateSlot } from '../repositories/usage.js';
import type { ServiceDeps } from './deps.js';
import { pageOf } from './pages.js';
import { passwordHasher } from './passwordHasher.js';
import { randomReferralCode } from './random.js';
import type { Outbox } from './webhooks/outbox.js';

export interface AffiliateService {
  create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate>;
  /** The context check of create and update: a group or parent the body names that is not the campaign's. */
  referenceIssues(campaignId: number, body: unknown): Promise<string[]>;
  list(campaignId: number, query: ListAffiliatesQuery): Promise<AffiliateList>;
  get(campaignId: number, id: number): Promise<Affiliate>;
  update(campaignId: number, id: number, input: UpdateAffiliateInput): Promise<Affiliate>;
  remove(campaignId: number, id: number): Promise<void>;
}

/** A taken e-mail or referral code is a 409; the texts never say which campaign holds it (spec §4.1.4). */
function conflictOf(err: unknown): ConflictError | undefined {
  if (!(err instanceof UniqueConflict)) return undefined;
  return new ConflictError(err.field === 'referralId' ? MESSAGES.referralTaken : MESSAGES.emailTaken);
}

/** The rule fields of a body (docs/commissions.md), as stored; undefined: not sent. */
function ruleFieldsOf(input: CreateAffiliateInput | UpdateAffiliateInput) {
  const override = input.commissionOverride;
  return {
    groupId: input.groupId,
    commissionOverride: override === undefined ? undefined : override && rateOf(override),
    parentAffiliateId: input.parentAffiliateId,
  };
}

/**
 * The group and parent a change sets, checked in its transaction (spec §12.3, §12.5): only
 * those that change, so an unchanged parent is not walked again.
 */
async function checkReferences(
  trx: Trx,
  campaignId: number,
  id: number | undefined,
  next: { groupId?: number | null; parentAffiliateId?: number | null },
  current?: { groupId: number | null; parentAffiliateId: number | null },
): Promise<void> {
  if (next.groupId != null && next.groupId !== current?.groupId) await checkGroup(trx, campaignId, next.groupId);
  if (next.parentAffiliateId != null && next.parentAffiliateId !== current?.parentAffiliateId) {
    await checkParent(trx, campaignId, id, next.parentAffiliateId);
  }
}

/** A parent chain that moved under the transaction is read again, a few times. */
async function retryingChain<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof ChainMoved)) throw err;
      if (attempt >= 5) throw new ConflictError(MESSAGES.parentChainBusy);
    }
  }
}

export function affiliateService({ db, config, now }: ServiceDeps, outbox: Outbox): AffiliateService {
  const hasher = passwordHasher(config.bcryptRounds, config.bcryptConcurrency);

  async function create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate> {
    // Hash outside the transaction: bcrypt's async API runs on the thread pool, and no lock waits for it.
    const passwordHash = await hasher.hash(input.password);
    // spec §10.3: generated codes are retried on collision; a code the merchant chose is a 409.
    for (let attempt = 1; ; attempt++) {
      const fields: AffiliateFields = {
        email: input.email,
        referralId: input.referralId ?? randomReferralCode(),
        name: input.name ?? null,
        phone: input.phone ?? null,
        // spec §10.1: active unless the body says otherwise.
        status: input.status ?? 'active',
        ...ruleFieldsOf(input),
      };
      try {
        return await inTransaction(db, async (trx) => {
          await checkReferences(trx, campaignId, undefined, fields);
          if (!(await reserveAffiliateSlot(trx, campaignId))) {
            const usage = await affiliateUsage(trx, campaignId);
            throw new ForbiddenError(MESSAGES.affiliateLimit(usage.plan, usage.count, usage.max ?? usage.count));
          }
          const affiliate = await insertAffiliate(trx, campaignId, fields, passwordHash, now());
          // The webhook message commits, or rolls back, with the affiliate (docs/webhooks.md).
          await outbox.record(trx, [{ campaignId, type: 'affiliate.created', data: affiliate }]);
          return affiliate;
        });
      } catch (err) {
        const conflict = conflictOf(err);
        if (!conflict) throw referenceError(err) ?? err;
        const generatedCodeCollided = input.referralId === undefined && conflict.messages === MESSAGES.referralTaken;
        if (!generatedCodeCollided || attempt >= 5) throw conflict;
      }
    }
  }

  async function list(campaignId: number, query: ListAffiliatesQuery): Promise<AffiliateList> {
    const { affiliates, total } = await listAffiliates(db, campaignId, query);
    return { affiliates, ...pageOf(query, total) };
  }

  async function get(campaignId: number, id: number): Promise<Affiliate> {
    const found = await findAffiliate(db, campaignId, id);
    if (!found) throw new NotFoundError(MESSAGES.affiliateNotFound);
    return found;
  }

  async function update(campaignId: number, id: number, input: UpdateAffiliateInput): Promise<Affiliate> {
    const passwordHash = input.password === undefined ? undefined : await hasher.hash(input.password);
    const rules = ruleFieldsOf(input);
    try {
      return await retryingChain(() =>
        inTransaction(db, async (trx) => {
          const current = await lockAffiliate(trx, campaignId, id);
          if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
          // spec §4.4: fields not sent stay unchanged.
          const fields = {
            email: input.email === undefined ? current.email : input.email.trim(),
            referralId: input.referralId ?? current.referralId,
            name: input.name === undefined ? current.name : input.name,
            phone: input.phone === undefined ? current.phone : input.phone,
            status: input.status ?? current.status,
            groupId: rules.groupId === undefined ? current.groupId : rules.groupId,
            commissionOverride:
              rules.commissionOverride === undefined ? current.commissionOverride : rules.commissionOverride,
            parentAffiliateId:
              rules.parentAffiliateId === undefined ? current.parentAffiliateId : rules.parentAffiliateId,
          } satisfies AffiliateFields;
          await checkReferences(trx, campaignId, id, fields, current);
          await updateAffiliate(trx, campaignId, id, fields, passwordHash, now());
          const affiliate = await withTotals(trx, { ...current, ...fields });
          await outbox.record(trx, [{ campaignId, type: 'affiliate.updated', data: affiliate }]);
          return affiliate;
        }),
      );
    } catch (err) {
      throw conflictOf(err) ?? referenceError(err) ?? err;
    }
  }

  /** spec §4.5.1: one statement removes the affiliate; foreign keys cascade to every child row. */
  async function remove(campaignId: number, id: number): Promise<void> {
    await inTransaction(db, async (trx) => {
      // affiliate.deleted carries the affiliate as it was, so it is read first.
      const current = await lockAffiliate(trx, campaignId, id);
      if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
      const affiliate = await withTotals(trx, current);
      const deleted = await deleteAffiliate(trx, campaignId, id);
      if (deleted === 0) throw new NotFoundError(MESSAGES.affiliateNotFound);
      await releaseAffiliateSlot(trx, campaignId);
      await outbox.record(trx, [{ campaignId, type: 'affiliate.deleted', data: affiliate }]);
    });
  }

  return {
    create,
    referenceIssues: (campaignId, body) => referenceIssues(db, campaignId, body),
    list,
    get,
    update,
    remove,
  };
}

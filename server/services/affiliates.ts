import { MESSAGES } from '../../shared/errors.js';
import type { PayoutDetails } from '../../shared/payoutDetails.js';
import { payoutAccountIssues, payoutDetailsProblem } from '../../shared/schemas/affiliatePayout.js';
import { checkPayoutDetails } from '../../shared/payoutDetails.js';
import type {
  Affiliate,
  AffiliateList,
  CreateAffiliateInput,
  ListAffiliatesQuery,
  UpdateAffiliateInput,
} from '../../shared/schemas/affiliate.js';
import { inTransaction, type Trx } from '../db/knex.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import {
  type AffiliateFields,
  deleteAffiliate,
  type PayoutColumns,
  findAffiliate,
  insertAffiliate,
  listAffiliates,
  lockAffiliate,
  updateAffiliate,
  withTotals,
} from '../repositories/affiliates.js';
import {
  activatePending,
  countPending,
  pendingAffiliateIds,
  setLocale,
  setPayoutDetails,
} from '../repositories/portalAccounts.js';
import { deleteSessionsOf } from '../repositories/portalSessions.js';
import { rateOf } from '../repositories/ruleColumns.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import { erasureOf } from '../repositories/affiliateErasure.js';
import { withdrawFromCampaignDays } from '../repositories/dailyStats.js';
import { fieldsOf, recordAudit } from './audit.js';
import { ChainMoved, checkGroup, checkParent, referenceError, referenceIssues } from './affiliateRules.js';
import { affiliateUsage, releaseAffiliateSlot, reserveAffiliateSlot } from '../repositories/usage.js';
import type { ServiceDeps } from './deps.js';
import { pageOf } from './pages.js';
import { passwordHasher } from './passwordHasher.js';
import { randomReferralCode } from './random.js';
import type { MailOutbox } from './mail/outbox.js';
import type { Outbox } from './webhooks/outbox.js';

/** A sign-up through the portal (docs/portal.md). */
export interface SignUpInput {
  email: string;
  password: string;
  name: string;
  phone: string | null;
  status: 'pending' | 'active';
  locale: string;
  /** The affiliate whose `?ref=` code the sign-up came through: its parent (docs/commissions.md). */
  parentAffiliateId?: number;
}

/** `taken`: the e-mail has an account already (the portal answers as for a new one); `full`: the plan's limit. */
export type SignUpOutcome = { outcome: 'created'; affiliate: Affiliate } | { outcome: 'taken' } | { outcome: 'full' };

/** At most this many pending affiliates are approved by one `approvePending` call. */
const APPROVE_BATCH = 1000;

export interface AffiliateService {
  create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate>;
  /**
   * The context check of create and update: a group or parent the body names that is not the
   * campaign's, and a payout account that is not one of its kind (rules the document cannot state).
   */
  referenceIssues(campaignId: number, body: unknown): Promise<string[]>;
  list(campaignId: number, query: ListAffiliatesQuery): Promise<AffiliateList>;
  get(campaignId: number, id: number): Promise<Affiliate>;
  update(campaignId: number, id: number, input: UpdateAffiliateInput): Promise<Affiliate>;
  remove(campaignId: number, id: number): Promise<void>;
  /** The portal's sign-up: a pending (or active) affiliate under the plan's limit, `affiliate.applied`, the merchant's mail. */
  signUp(campaignId: number, input: SignUpInput): Promise<SignUpOutcome>;
  /** `pending → active`: 409 for any other status. */
  approve(campaignId: number, id: number): Promise<Affiliate>;
  /** Every pending affiliate, oldest first, up to a thousand a call; `remaining` are left for the next. */
  approvePending(campaignId: number): Promise<{ approved: Affiliate[]; remaining: number }>;
  /** Where the affiliate is paid (the portal's settings); `affiliate.updated` reports it. */
  setPayoutDetails(campaignId: number, id: number, details: PayoutDetails, identity: string): Promise<Affiliate>;
}

/** Payout details a body sets: null clears them; undefined when the body sets none. */
type PayoutChoice = { details: PayoutDetails; identity: string } | null;

/** The body's payout details, checked as the portal checks them (docs/payouts.md, "Payout details"). */
function payoutChoiceOf(input: CreateAffiliateInput | UpdateAffiliateInput): PayoutChoice | undefined {
  if (input.payoutDetails === undefined || input.payoutDetails === null) return input.payoutDetails;
  const check = checkPayoutDetails(input.payoutDetails);
  if (!check.ok) throw new ValidationError([payoutDetailsProblem(check) ?? 'payoutDetails.account is not valid']);
  return { details: check.details, identity: check.identity };
}

/** The stored payout columns after `payout` (unchanged when undefined). */
function payoutColumnsOf(payout: PayoutChoice | undefined, current: PayoutColumns): PayoutColumns {
  if (payout === undefined) {
    const { payoutMethod, pixKeyType, payoutAccount, payoutIdentity } = current;
    return { payoutMethod, pixKeyType, payoutAccount, payoutIdentity };
  }
  return {
    payoutMethod: payout?.details.method ?? null,
    pixKeyType: payout?.details.pixKeyType ?? null,
    payoutAccount: payout?.details.account ?? null,
    payoutIdentity: payout?.identity ?? null,
  };
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

export function affiliateService(
  { db, config, now }: ServiceDeps,
  outbox: Outbox,
  mail: MailOutbox,
  hasher = passwordHasher(config.bcryptRounds, config.bcryptConcurrency),
): AffiliateService {
  /**
   * Inserts under the plan's affiliate limit (a conditional update of the campaign's counter),
   * then lets `more` record what else the creation reports, in the same transaction.
   * spec §10.3: generated codes are retried on collision; a code the merchant chose is a 409.
   */
  async function insertUnderLimit(
    campaignId: number,
    input: Omit<AffiliateFields, 'referralId'> & { referralId?: string },
    passwordHash: string,
    more: (trx: Trx, affiliate: Affiliate) => Promise<void>,
    payout?: PayoutChoice,
  ): Promise<Affiliate> {
    for (let attempt = 1; ; attempt++) {
      const fields: AffiliateFields = { ...input, referralId: input.referralId ?? randomReferralCode() };
      try {
        return await inTransaction(db, async (trx) => {
          await checkReferences(trx, campaignId, undefined, fields);
          if (!(await reserveAffiliateSlot(trx, campaignId))) {
            const usage = await affiliateUsage(trx, campaignId);
            throw new ForbiddenError(MESSAGES.affiliateLimit(usage.plan, usage.count, usage.max ?? usage.count));
          }
          const inserted = await insertAffiliate(trx, campaignId, fields, passwordHash, now());
          const affiliate = payout ? await storePayoutDetails(trx, campaignId, inserted.id, payout) : inserted;
          // The webhook message commits, or rolls back, with the affiliate (docs/webhooks.md).
          await outbox.record(trx, [{ campaignId, type: 'affiliate.created', data: affiliate }]);
          await more(trx, affiliate);
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

  async function create(campaignId: number, input: CreateAffiliateInput): Promise<Affiliate> {
    // Hash outside the transaction: bcrypt's async API runs on the thread pool, and no lock waits for it.
    const passwordHash = await hasher.hash(input.password);
    const fields = {
      email: input.email,
      referralId: input.referralId,
      name: input.name ?? null,
      phone: input.phone ?? null,
      // spec §10.1: active unless the body says otherwise.
      status: input.status ?? 'active',
      ...ruleFieldsOf(input),
    };
    return insertUnderLimit(
      campaignId,
      fields,
      passwordHash,
      (trx, affiliate) =>
        recordAudit(trx, now(), [
          { campaignId, action: 'affiliate.create', targetId: affiliate.id, fields: fieldsOf(input) },
        ]),
      payoutChoiceOf(input),
    );
  }

  async function signUp(campaignId: number, input: SignUpInput): Promise<SignUpOutcome> {
    const passwordHash = await hasher.hash(input.password);
    const { email, name, phone, status, parentAffiliateId } = input;
    try {
      return await storeApplication(campaignId, { email, name, phone, status, parentAffiliateId }, input, passwordHash);
    } catch (err) {
      // The referrer was deleted since the portal found its code: the applicant still applies.
      if (!(err instanceof ValidationError) || parentAffiliateId === undefined) throw err;
      return storeApplication(campaignId, { email, name, phone, status }, input, passwordHash);
    }
  }

  /** Inserts an application under the plan's limit, with its locale, `affiliate.applied` and the applicant's mail. */
  async function storeApplication(
    campaignId: number,
    fields: Omit<AffiliateFields, 'referralId'>,
    input: SignUpInput,
    passwordHash: string,
  ): Promise<SignUpOutcome> {
    try {
      const affiliate = await insertUnderLimit(campaignId, fields, passwordHash, async (trx, created) => {
        await setLocale(trx, created.id, input.locale);
        await outbox.record(trx, [{ campaignId, type: 'affiliate.applied', data: created }]);
        await mail.record(trx, [{ kind: 'application_received', affiliateId: created.id, status: created.status }]);
      });
      return { outcome: 'created', affiliate };
    } catch (err) {
      if (err instanceof ConflictError) return { outcome: 'taken' };
      if (err instanceof ForbiddenError) return { outcome: 'full' };
      throw err;
    }
  }

  /**
   * Writes what an approval reports, in the approval's transaction: `affiliate.updated` and
   * `affiliate.approved` in the webhook outbox, and the affiliate's mail. Answers the affiliate.
   */
  async function reportApproval(trx: Trx, campaignId: number, id: number): Promise<Affiliate> {
    const current = await lockAffiliate(trx, campaignId, id);
    if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
    const affiliate = await withTotals(trx, current);
    await outbox.record(trx, [
      { campaignId, type: 'affiliate.updated', data: affiliate },
      { campaignId, type: 'affiliate.approved', data: affiliate },
    ]);
    await mail.record(trx, [{ kind: 'application_approved', affiliateId: id }]);
    await recordAudit(trx, now(), [{ campaignId, action: 'affiliate.approve', targetId: id }]);
    return affiliate;
  }

  async function approve(campaignId: number, id: number): Promise<Affiliate> {
    return inTransaction(db, async (trx) => {
      // One conditional update decides, so two approvals at once (or on two nodes) approve once.
      if (!(await activatePending(trx, campaignId, id, now()))) {
        const current = await lockAffiliate(trx, campaignId, id);
        if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
        throw new ConflictError(MESSAGES.notPending(id, current.status));
      }
      return reportApproval(trx, campaignId, id);
    });
  }

  async function approvePending(campaignId: number): Promise<{ approved: Affiliate[]; remaining: number }> {
    const ids = await pendingAffiliateIds(db, campaignId, APPROVE_BATCH);
    const done: Affiliate[] = [];
    for (const id of ids) {
      const affiliate = await inTransaction(db, async (trx) =>
        (await activatePending(trx, campaignId, id, now())) ? reportApproval(trx, campaignId, id) : undefined,
      );
      if (affiliate) done.push(affiliate);
    }
    return { approved: done, remaining: await countPending(db, campaignId) };
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
    const payout = payoutChoiceOf(input);
    try {
      return await retryingChain(() =>
        inTransaction(db, async (trx) => {
          // docs/portal.md: a pending affiliate made active is approved (webhook, mail), once.
          const approving = input.status === 'active' && (await activatePending(trx, campaignId, id, now()));
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
          // A new password or `inactive` ends the affiliate's portal sessions.
          if (passwordHash !== undefined || fields.status === 'inactive') await deleteSessionsOf(trx, id);
          await recordAudit(trx, now(), [
            { campaignId, action: 'affiliate.update', targetId: id, fields: fieldsOf(input) },
          ]);
          if (payout !== undefined)
            await setPayoutDetails(trx, id, payout?.details ?? null, payout?.identity ?? null, now());
          if (approving) return reportApproval(trx, campaignId, id);
          const affiliate = await withTotals(trx, { ...current, ...fields, ...payoutColumnsOf(payout, current) });
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
      // spec §4.5 cascades to paid payouts too: the audit row keeps what went, as figures only.
      const erased = await erasureOf(trx, campaignId, id);
      // The overview's campaign days keep equalling the report, which loses this affiliate's rows.
      await withdrawFromCampaignDays(trx, id);
      const deleted = await deleteAffiliate(trx, campaignId, id);
      if (deleted === 0) throw new NotFoundError(MESSAGES.affiliateNotFound);
      await releaseAffiliateSlot(trx, campaignId);
      await outbox.record(trx, [{ campaignId, type: 'affiliate.deleted', data: affiliate }]);
      await recordAudit(trx, now(), [
        {
          campaignId,
          action: 'affiliate.delete',
          targetId: id,
          figures: { conversions: erased.conversions, paidPayouts: erased.paidPayouts },
          money: { paidPayoutsTotal: erased.paidPayoutsTotal },
        },
      ]);
    });
  }

  /** Sets the details and answers the affiliate as it now stands (its duplicate flag too). */
  async function storePayoutDetails(
    trx: Trx,
    campaignId: number,
    id: number,
    payout: PayoutChoice,
  ): Promise<Affiliate> {
    await setPayoutDetails(trx, id, payout?.details ?? null, payout?.identity ?? null, now());
    const current = await lockAffiliate(trx, campaignId, id);
    if (!current) throw new NotFoundError(MESSAGES.affiliateNotFound);
    return withTotals(trx, current);
  }

  async function changePayoutDetails(
    campaignId: number,
    id: number,
    details: PayoutDetails,
    identity: string,
  ): Promise<Affiliate> {
    return inTransaction(db, async (trx) => {
      const affiliate = await storePayoutDetails(trx, campaignId, id, { details, identity });
      await outbox.record(trx, [{ campaignId, type: 'affiliate.updated', data: affiliate }]);
      return affiliate;
    });
  }

  return {
    create,
    referenceIssues: async (campaignId, body) => [
      ...(await referenceIssues(db, campaignId, body)),
      ...payoutAccountIssues(body),
    ],
    list,
    get,
    update,
    remove,
    signUp,
    approve,
    approvePending,
    setPayoutDetails: changePayoutDetails,
  };
}

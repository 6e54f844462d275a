import { isCurrencyCode } from '../../shared/currency.js';
import type { AttributionModel, PAYOUT_SCHEDULES } from '../../shared/vocabulary.js';

type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];
import { z } from 'zod';
import { toCents } from '../../shared/money.js';
import {
  type Campaign,
  type CampaignWithUsage,
  MAX_AUTO_APPROVE_DAYS,
  PUBLIC_ID,
} from '../../shared/schemas/campaign.js';
import {
  COMMISSION_MESSAGES,
  MAX_FIXED_COMMISSION,
  type ProductRule,
  productRulesInput,
  type Recurring,
  recurringSchema,
} from '../../shared/schemas/commission.js';
import { MAX_ORDER_VALUE } from '../../shared/schemas/event.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { characters, OPERATOR_LIMITS } from '../../shared/vocabulary.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import {
  type CampaignChanges,
  findCampaign,
  insertCampaign,
  listCampaigns,
  updateCampaign,
} from '../repositories/campaigns.js';
import { findPlanByName } from '../repositories/plans.js';
import { productRatesOf } from '../repositories/ruleColumns.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import { countLiveAffiliates } from '../repositories/usage.js';
import { inTransaction } from '../db/knex.js';
import { fieldsOf, recordAudit } from './audit.js';
import type { ServiceDeps } from './deps.js';
import type { MonthlyUsage } from './events/index.js';
import { publicIdCandidate } from './slug.js';

export interface CreateCampaignInput {
  name: string;
  plan?: string;
  publicId?: string;
  commission?: { type: 'percent' | 'fixed'; value: number };
  cookieDays?: number;
}

export interface UpdateCampaignInput {
  plan?: string;
  commission?: { type: 'percent' | 'fixed'; value: number };
  /** null turns the hold period off: conversions wait for a person. */
  autoApproveDays?: number | null;
  payoutMinimum?: number;
  /** The affiliate portal (docs/portal.md). */
  portal?: boolean;
  signup?: 'open' | 'closed';
  approveAffiliates?: 'manual' | 'auto';
  /** null or '': no contact e-mail. */
  contactEmail?: string | null;
  siteUrl?: string | null;
  /** Which of a customer's payments earn (docs/commissions.md#recurring). */
  recurring?: Recurring;
  /** Percent of a child's commission its parent earns; 0: none. */
  secondTierPercent?: number;
  /** The campaign's product rules, replacing the ones it has ([] removes them). */
  products?: ProductRule[];
  /** ISO 4217 code (docs/integrations.md): the currency billing providers must charge in. */
  currency?: string;
  /** docs/analytics.md: which of a customer's clicks a lead or sale counts for. */
  attribution?: AttributionModel;
  /** docs/payouts.md#payout-runs: when the daemon runs the payouts by itself. */
  payoutSchedule?: PayoutSchedule;
  /** A run whose total is above this waits for a second person's approval; null: none. */
  payoutApprovalAbove?: number | null;
}

export interface CampaignService {
  create(input: CreateCampaignInput): Promise<Campaign>;
  /** By integer id or public id. */
  get(ref: string | number): Promise<Campaign>;
  list(): Promise<Campaign[]>;
  /** `campaigns update` (operator): plan, commission rule, hold period, payout minimum, currency. */
  update(ref: string | number, input: UpdateCampaignInput): Promise<Campaign>;
  /** `GET /v1/campaign`: the campaign, its plan limits and this month's usage. */
  withUsage(campaignId: number): Promise<CampaignWithUsage>;
}

const notFound = (ref: string | number) =>
  new NotFoundError(`Campaign ${ref} not found: see \`affiliated campaigns list\``);

function validCommission(commission: { type: 'percent' | 'fixed'; value: number }) {
  if (!Number.isFinite(commission.value) || commission.value < 0) {
    throw new ValidationError('commission must be a number of at least 0');
  }
  if (commission.type === 'percent' && commission.value > 100) {
    throw new ValidationError('commission percent must not be greater than 100');
  }
  if (commission.type === 'fixed' && commission.value > MAX_FIXED_COMMISSION) {
    throw new ValidationError(`fixed commission must not be greater than ${MAX_FIXED_COMMISSION}`);
  }
  return commission;
}

/** The columns an update changes, each checked; a 400 names the first value that is wrong. */
async function changesOf(db: ServiceDeps['db'], input: UpdateCampaignInput, now: Date): Promise<CampaignChanges> {
  const changes: CampaignChanges = {};
  if (input.plan !== undefined) {
    const plan = await findPlanByName(db, input.plan);
    if (!plan) throw new NotFoundError(`Plan "${input.plan}" not found: see \`affiliated plans list\``);
    changes.planId = plan.id;
  }
  if (input.commission !== undefined) {
    const commission = validCommission(input.commission);
    changes.commissionType = commission.type;
    changes.commissionHundredths = toCents(commission.value);
  }
  const days = input.autoApproveDays;
  if (days !== undefined) {
    if (days !== null && (!Number.isInteger(days) || days < 0 || days > MAX_AUTO_APPROVE_DAYS)) {
      throw new ValidationError(`auto-approve days must be a whole number from 0 to ${MAX_AUTO_APPROVE_DAYS}`);
    }
    changes.autoApproveDays = days;
  }
  const minimum = input.payoutMinimum;
  if (minimum !== undefined) {
    if (!Number.isFinite(minimum) || minimum < 0 || minimum > MAX_ORDER_VALUE) {
      throw new ValidationError(`payout minimum must be a number from 0 to ${MAX_ORDER_VALUE}`);
    }
    changes.payoutMinimumCents = toCents(minimum);
  }
  if (input.currency !== undefined) {
    const currency = input.currency.trim().toUpperCase();
    if (!isCurrencyCode(currency)) {
      throw new ValidationError('currency must be an ISO 4217 code of three letters, such as BRL, USD, EUR or JPY');
    }
    changes.currency = currency;
  }
  if (input.attribution !== undefined) changes.attribution = input.attribution;
  return { ...changes, ...ruleChangesOf(input), ...portalChangesOf(input), ...payoutChangesOf(input, now) };
}

/** The commission rule's other parts (docs/commissions.md), each checked as the API checks a group's. */
function ruleChangesOf(input: UpdateCampaignInput): CampaignChanges {
  const changes: CampaignChanges = {};
  if (input.recurring !== undefined) {
    if (!recurringSchema.safeParse(input.recurring).success) {
      throw new ValidationError(`recurring ${COMMISSION_MESSAGES.recurring}`);
    }
    changes.recurring = input.recurring;
  }
  const percent = input.secondTierPercent;
  if (percent !== undefined) {
    if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
      throw new ValidationError('second-tier percent must be a number from 0 to 100');
    }
    changes.secondTierHundredths = toCents(percent);
  }
  if (input.products !== undefined) {
    const parsed = parseWith(productRulesInput, { products: input.products });
    if (!parsed.ok) throw new ValidationError(parsed.messages);
    changes.products = productRatesOf(parsed.data.products);
  }
  return changes;
}

/** The payout schedule and the approval threshold (docs/payouts.md#payout-runs). */
function payoutChangesOf(input: UpdateCampaignInput, now: Date): CampaignChanges {
  const changes: CampaignChanges = {};
  if (input.payoutSchedule !== undefined) changes.payoutSchedule = { schedule: input.payoutSchedule, now };
  const above = input.payoutApprovalAbove;
  if (above !== undefined) {
    if (above !== null && (!Number.isFinite(above) || above < 0 || above > MAX_ORDER_VALUE)) {
      throw new ValidationError(`payout approval threshold must be a number from 0 to ${MAX_ORDER_VALUE} (or "off")`);
    }
    changes.payoutApprovalAboveCents = above === null ? null : toCents(above);
  }
  return changes;
}

/** Empty text clears an address; anything else must be one. */
function addressOf(value: string | null, valid: (text: string) => boolean, message: string): string | null {
  const text = value?.trim() ?? '';
  if (text === '') return null;
  if (!valid(text)) throw new ValidationError(message);
  return text;
}

function portalChangesOf(input: UpdateCampaignInput): CampaignChanges {
  const changes: CampaignChanges = {};
  if (input.portal !== undefined) changes.portalEnabled = input.portal;
  if (input.signup !== undefined) changes.signupOpen = input.signup === 'open';
  if (input.approveAffiliates !== undefined) changes.approveAffiliates = input.approveAffiliates;
  if (input.contactEmail !== undefined) {
    changes.contactEmail = addressOf(
      input.contactEmail,
      (text) => text.length <= 254 && z.email().safeParse(text).success,
      'contact e-mail must be a valid e-mail address (or "" for none)',
    );
  }
  if (input.siteUrl !== undefined) {
    changes.siteUrl = addressOf(
      input.siteUrl,
      (text) => text.length <= 2048 && /^https?:\/\/[^\s]+$/.test(text) && URL.canParse(text),
      'site URL must be an http:// or https:// address (or "" for none)',
    );
  }
  return changes;
}

export function campaignService({ db, now }: ServiceDeps, monthly: MonthlyUsage): CampaignService {
  async function get(ref: string | number): Promise<Campaign> {
    const found = await findCampaign(db, ref);
    if (!found) throw notFound(ref);
    return found.campaign;
  }

  /** spec §11: default plan `free`, commission 10 percent, cookie 30 days. */
  async function create(input: CreateCampaignInput): Promise<Campaign> {
    const name = input.name.trim();
    if (!name || characters(name) > OPERATOR_LIMITS.campaignName) {
      throw new ValidationError(`campaign name must be 1 to ${OPERATOR_LIMITS.campaignName} characters long`);
    }
    const cookieDays = input.cookieDays ?? 30;
    if (!Number.isInteger(cookieDays) || cookieDays < 1 || cookieDays > OPERATOR_LIMITS.cookieDays) {
      throw new ValidationError(`cookie days must be a whole number from 1 to ${OPERATOR_LIMITS.cookieDays}`);
    }
    const planName = input.plan ?? 'free';
    const plan = await findPlanByName(db, planName);
    if (!plan) throw new NotFoundError(`Plan "${planName}" not found: see \`affiliated plans list\``);
    if (input.publicId !== undefined && !PUBLIC_ID.test(input.publicId)) {
      throw new ValidationError('public id must be 3 to 64 letters, digits, "-" or "_"');
    }
    const commission = validCommission(input.commission ?? { type: 'percent', value: 10 });
    for (let attempt = 0; ; attempt++) {
      const publicId = input.publicId ?? publicIdCandidate(name, attempt);
      try {
        const id = await inTransaction(db, async (trx) => {
          const at = now();
          const created = await insertCampaign(trx, {
            publicId,
            name,
            planId: plan.id,
            commissionType: commission.type,
            commissionHundredths: toCents(commission.value),
            cookieDays,
            createdAt: at,
          });
          await recordAudit(trx, at, [
            { campaignId: created, action: 'campaign.create', targetId: created, fields: fieldsOf(input) },
          ]);
          return created;
        });
        return await get(id);
      } catch (err) {
        if (!(err instanceof UniqueConflict)) throw err;
        if (input.publicId !== undefined) throw new ConflictError(`Public id "${publicId}" is already used`);
        if (attempt >= 25) throw err;
      }
    }
  }

  async function withUsage(campaignId: number): Promise<CampaignWithUsage> {
    const found = await findCampaign(db, campaignId);
    if (!found) throw notFound(campaignId);
    const [usage, affiliates] = await Promise.all([
      monthly.read(campaignId, now()),
      countLiveAffiliates(db, campaignId),
    ]);
    return {
      ...found.campaign,
      limits: found.limits,
      usage: { month: usage.month, affiliates, conversions: usage.conversions },
    };
  }

  /**
   * A new commission rule applies to conversions that arrive from now on, on every daemon at once
   * (intake reads the rules in each flush's transaction, spec §12.2); stored conversions keep
   * theirs (spec §11). A new hold period applies to
   * the pending conversions already there, at the next scheduled run.
   */
  async function update(ref: string | number, input: UpdateCampaignInput): Promise<Campaign> {
    const campaign = await get(ref);
    const changes = await changesOf(db, input, now());
    if (Object.keys(changes).length === 0) {
      throw new ValidationError(
        'nothing to update: give a plan, a commission, a hold period, a payout minimum, a recurring limit, a second-tier percent, product rules, a portal setting, a currency, an attribution model, a payout schedule or a payout approval threshold',
      );
    }
    await inTransaction(db, async (trx) => {
      await updateCampaign(trx, campaign.id, changes);
      await recordAudit(trx, now(), [
        { campaignId: campaign.id, action: 'campaign.update', targetId: campaign.id, fields: fieldsOf(input) },
      ]);
    });
    return get(campaign.id);
  }

  return { create, get, list: () => listCampaigns(db), update, withUsage };
}

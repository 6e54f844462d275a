import { DEFAULT_CURRENCY } from '../../../shared/currency.js';
import type { AttributionModel } from '../../../shared/vocabulary.js';
import type { Campaign } from '../../../shared/schemas/campaign.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, type ListFormat, plural, printJson, printRecord, printTable } from '../../output.js';
import { moneyText } from '../../money.js';
import {
  checkRuleAmounts,
  type ProductOption,
  productsText,
  rateText,
  type RecurringOption,
  recurringText,
} from '../../ruleOptions.js';

export const commissionText = (c: Campaign) => rateText(c, c.currency);

function commissionOf(options: { commissionPercent?: number; commissionFixed?: number }) {
  if (options.commissionPercent !== undefined && options.commissionFixed !== undefined) {
    throw new UsageError('give either --commission-percent or --commission-fixed, not both');
  }
  const { commissionFixed: fixed, commissionPercent: percent } = options;
  if (fixed !== undefined) return { type: 'fixed' as const, value: fixed };
  if (percent !== undefined) return { type: 'percent' as const, value: percent };
  return undefined;
}

/** The campaign's settings as a person reads them (its JSON fields as text). */
const settingsText = (c: Campaign) => ({
  autoApproveDays: c.autoApproveDays === null ? 'off (manual approval)' : plural(c.autoApproveDays, 'day'),
  payoutMinimum: moneyText(c.payoutMinimum, c.currency),
  payoutSchedule: c.payoutSchedule,
  payoutApprovalAbove: c.payoutApprovalAbove === null ? 'off' : moneyText(c.payoutApprovalAbove, c.currency),
  recurring: recurringText(c.recurring),
  secondTierPercent: `${c.secondTierPercent}%`,
  products: productsText(c.products, c.currency),
  portal: c.portal.enabled ? `on, at /portal/${c.publicId}/` : 'off',
  signup: c.portal.signup,
  approveAffiliates: c.portal.approveAffiliates,
  contactEmail: c.portal.contactEmail ?? '(none)',
  siteUrl: c.portal.siteUrl ?? '(none)',
});

export async function create(
  io: Io,
  options: GlobalOptions & {
    name: string;
    plan: string;
    id?: string;
    publicId?: string;
    commissionPercent?: number;
    commissionFixed?: number;
    cookieDays: number;
  },
): Promise<void> {
  const commission = commissionOf(options) ?? { type: 'percent' as const, value: 10 };
  // A new campaign's money is the default currency until `campaigns update --currency`.
  await checkRuleAmounts(options, async () => DEFAULT_CURRENCY);
  const campaign = await withServices(io, options, ({ campaigns }) =>
    campaigns.create({
      name: options.name,
      plan: options.plan,
      publicId: options.id ?? options.publicId,
      commission,
      cookieDays: options.cookieDays,
    }),
  );
  if (options.json) return printJson(io, campaign);
  const { portal: _portal, ...shown } = campaign;
  printRecord(io, { ...shown, commission: commissionText(campaign), ...settingsText(campaign) });
}

export async function update(
  io: Io,
  options: GlobalOptions & {
    plan?: string;
    commissionPercent?: number;
    commissionFixed?: number;
    autoApproveDays?: number | 'off';
    payoutMinimum?: number;
    recurring?: RecurringOption;
    secondTierPercent?: number;
    /** commander: the list of --product, or false for --no-products, or true when neither was given. */
    products?: ProductOption[] | boolean;
    product?: ProductOption[];
    currency?: string;
    portal?: 'on' | 'off';
    signup?: 'open' | 'closed';
    approveAffiliates?: 'manual' | 'auto';
    contactEmail?: string;
    siteUrl?: string;
    attribution?: AttributionModel;
    payoutSchedule?: 'manual' | 'weekly' | 'monthly';
    payoutApprovalAbove?: number | 'off';
  },
  ref: string,
): Promise<void> {
  if (options.product !== undefined && options.products === false) {
    throw new UsageError('give --product or --no-products, not both');
  }
  const input = {
    plan: options.plan,
    commission: commissionOf(options),
    autoApproveDays: options.autoApproveDays === 'off' ? null : options.autoApproveDays,
    payoutMinimum: options.payoutMinimum,
    recurring: options.recurring,
    secondTierPercent: options.secondTierPercent,
    products: options.products === false ? [] : options.product,
    currency: options.currency,
    portal: options.portal === undefined ? undefined : options.portal === 'on',
    signup: options.signup,
    approveAffiliates: options.approveAffiliates,
    contactEmail: options.contactEmail,
    siteUrl: options.siteUrl,
    attribution: options.attribution,
    payoutSchedule: options.payoutSchedule,
    payoutApprovalAbove: options.payoutApprovalAbove === 'off' ? null : options.payoutApprovalAbove,
  };
  if (Object.values(input).every((value) => value === undefined)) {
    throw new UsageError(
      'nothing to update: give at least one of --plan --commission-percent --commission-fixed --auto-approve-days ' +
        '--payout-minimum --recurring --second-tier-percent --product --no-products' +
        ' --portal --signup --approve-affiliates --contact-email --site-url --currency --attribution' +
        ' --payout-schedule --payout-approval-above',
    );
  }
  const campaign = await withServices(io, options, async ({ campaigns }) => {
    // Amounts are in the currency the campaign will have: the one given, else its own.
    await checkRuleAmounts(options, async () => options.currency ?? (await campaigns.get(ref)).currency);
    return campaigns.update(ref, input);
  });
  if (options.json) return printJson(io, campaign);
  const { portal: _portal, ...shown } = campaign;
  printRecord(io, { ...shown, commission: commissionText(campaign), ...settingsText(campaign) });
}

export async function list(io: Io, options: GlobalOptions & { output?: ListFormat }): Promise<void> {
  const campaigns = await withServices(io, options, (services) => services.campaigns.list());
  // Shaped like every list's --json: the rows under their noun, and how many.
  if (options.json) return printJson(io, { campaigns, total: campaigns.length });
  printTable(
    io,
    ['id', 'public id', 'name', 'plan', 'commission', 'created'],
    campaigns.map((c) => [c.id, c.publicId, c.name, c.plan, commissionText(c), c.createdAt]),
    options.output,
  );
}

export async function get(io: Io, options: GlobalOptions, ref: string): Promise<void> {
  const campaign = await withServices(io, options, async ({ campaigns }) =>
    campaigns.withUsage((await campaigns.get(ref)).id),
  );
  if (options.json) return printJson(io, campaign);
  const { limits, usage, portal: _portal, ...rest } = campaign;
  const of = (n: number, max: number | null) => `${n} / ${max ?? 'unlimited'}`;
  printRecord(io, {
    ...rest,
    commission: commissionText(campaign),
    ...settingsText(campaign),
    affiliates: of(usage.affiliates, limits.maxAffiliates),
    [`conversions ${usage.month}`]: of(usage.conversions, limits.maxMonthlyConversions),
  });
}

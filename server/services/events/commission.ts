import { fromCents, shareOf } from '../../../shared/money.js';
import type { CommissionRule, Recurring } from '../../../shared/schemas/commission.js';
import type { ConversionFlag } from '../../../shared/schemas/conversion.js';
import type { TrackingEvent } from '../../../shared/schemas/event.js';
import type { ReferralTarget } from '../../repositories/events.js';
import type { LevelRule, Rate } from '../../repositories/ruleColumns.js';

/** The rules a flush applies, read once inside its transaction (spec §12). */
export interface FlushRules {
  campaigns: ReadonlyMap<number, LevelRule>;
  groups: ReadonlyMap<number, LevelRule>;
}

/** What a sale earns, before its customer's recurring limit is applied. */
export interface Earning {
  commissionCents: number;
  /** The explanation, without the customer's payment (added once it is known). */
  rule: CommissionRule;
  /** The recurring limit in force: the group's, else the campaign's. */
  recurring: Recurring;
  flags: ConversionFlag[];
}

/** A parent's share of a sale (spec §12.5). */
export interface SecondTier {
  parentId: number;
  commissionCents: number;
  rule: CommissionRule;
}

const explain = (source: CommissionRule['source'], rate: Rate, groupId?: number): CommissionRule => ({
  source,
  ...(groupId !== undefined && { groupId }),
  commissionType: rate.type,
  commissionValue: fromCents(rate.hundredths),
});

/** The rate that decides and its explanation. */
const decided = (source: CommissionRule['source'], rate: Rate, groupId?: number) => ({
  rate,
  rule: explain(source, rate, groupId),
});

/** A second-tier commission is its percent of the sale's commission, rounded half up once (spec §12.5). */
export const secondTierCents = (saleCommissionCents: number, percentHundredths: number) =>
  shareOf(saleCommissionCents, percentHundredths, 10_000);

/** A rate applied to an order: a percent of its value rounded half up once, or the fixed amount. */
export const rateCents = (rate: Rate, orderValueCents: number) =>
  rate.type === 'fixed' ? rate.hundredths : shareOf(orderValueCents, rate.hundredths, 10_000);

/**
 * What a product rule may name a sale's product by: `properties.product`, and `product_id`, which
 * the billing integrations fill with the provider's product id (docs/commissions.md).
 */
function productsOf(event: TrackingEvent): string[] {
  const properties = event.properties;
  return [properties?.product, properties?.product_id].filter((value) => typeof value === 'string');
}

/**
 * The table of precedence (spec §12.2): the affiliate's override beats everything; then its
 * group's product rule, its group's rate; then the campaign's product rule, the campaign's rate.
 * A group decides alone: a campaign's product rule never applies to a member of a group.
 */
function decide(target: ReferralTarget, products: string[], campaign: LevelRule, group: LevelRule | undefined) {
  const match = (level: LevelRule) => level.products.find((rule) => products.includes(rule.product));
  if (target.override) return decided('affiliate', target.override);
  if (group && target.groupId !== null) {
    const rule = match(group);
    return rule ? decided('product', rule, target.groupId) : decided('group', group.rate, target.groupId);
  }
  const rule = match(campaign);
  return rule ? decided('product', rule) : decided('campaign', campaign.rate);
}

/** `Ana+Shop@Example.com` and `ana@example.com` are one mailbox: lower case, no `+tag`. */
export function mailbox(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0) return address;
  const local = address.slice(0, at);
  const plus = local.indexOf('+');
  return `${plus === -1 ? local : local.slice(0, plus)}${address.slice(at)}`;
}

/** spec §12.7: a customer e-mail that is the affiliate's own is a self-referral. */
function flagsOf(event: TrackingEvent, target: ReferralTarget): ConversionFlag[] {
  const customer = event.properties?.customer_email;
  if (typeof customer !== 'string' || customer.trim() === '') return [];
  return mailbox(customer) === mailbox(target.email) ? ['self_referral'] : [];
}

/** What a sale of `target` earns by the rules of the flush. */
export function earn(
  target: ReferralTarget,
  event: TrackingEvent,
  orderValueCents: number,
  rules: FlushRules,
): Earning {
  const campaign = rules.campaigns.get(target.campaignId);
  if (!campaign) throw new Error(`the rules of campaign ${target.campaignId} were not read`);
  const group = target.groupId === null ? undefined : rules.groups.get(target.groupId);
  const { rate, rule } = decide(target, productsOf(event), campaign, group);
  return {
    commissionCents: rateCents(rate, orderValueCents),
    rule,
    recurring: group?.recurring ?? campaign.recurring ?? 'lifetime',
    flags: flagsOf(event, target),
  };
}

/**
 * The parent's second-tier commission on a sale (spec §12.5): its group's percent, else the
 * campaign's, of the sale's rounded commission, rounded half up once. None when the parent is not
 * active, the percent is 0, or the share rounds to nothing.
 */
export function secondTier(target: ReferralTarget, saleCents: number, rules: FlushRules): SecondTier | undefined {
  const parent = target.parent;
  if (!parent || parent.status !== 'active') return undefined;
  const group = parent.groupId === null ? undefined : rules.groups.get(parent.groupId);
  const fromGroup = group?.secondTierHundredths ?? null;
  const hundredths = fromGroup ?? rules.campaigns.get(target.campaignId)?.secondTierHundredths ?? 0;
  const commissionCents = secondTierCents(saleCents, hundredths);
  if (hundredths <= 0 || commissionCents <= 0) return undefined;
  const rate: Rate = { type: 'percent', hundredths };
  const groupId = fromGroup === null || parent.groupId === null ? undefined : parent.groupId;
  return { parentId: parent.id, commissionCents, rule: explain('second_tier', rate, groupId) };
}

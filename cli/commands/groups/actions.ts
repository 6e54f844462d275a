import type { ApiClient } from '../../../shared/client/index.js';
import type { CreateGroupInput, Group, UpdateGroupInput } from '../../../shared/schemas/group.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { campaignCurrency } from '../../money.js';
import {
  type GlobalOptions,
  type ListFormat,
  note,
  pageNote,
  plural,
  printJson,
  printLine,
  printRecord,
  printTable,
} from '../../output.js';
import { confirmOrDecline } from '../../prompts.js';
import {
  checkRuleAmounts,
  type ProductOption,
  productsText,
  rateOfOptions,
  rateText,
  type RecurringOption,
  recurringText,
} from '../../ruleOptions.js';

interface RuleFlags {
  commissionPercent?: number;
  commissionFixed?: number;
  recurring?: RecurringOption | 'campaign';
  secondTierPercent?: number | 'campaign';
  product?: ProductOption[];
}

const inherited = (value: string | null) => value ?? "the campaign's";

function table(io: Io, groups: Group[], currency: string, format?: ListFormat): void {
  printTable(
    io,
    ['id', 'name', 'rate', 'recurring', 'second tier', 'products', 'affiliates'],
    groups.map((g) => [
      g.id,
      g.name,
      rateText(g, currency),
      inherited(g.recurring === null ? null : recurringText(g.recurring)),
      inherited(g.secondTierPercent === null ? null : `${g.secondTierPercent}%`),
      productsText(g.products, currency),
      g.affiliateCount,
    ]),
    format,
  );
}

function record(io: Io, g: Group, currency: string): void {
  printRecord(io, {
    id: g.id,
    name: g.name,
    rate: rateText(g, currency),
    recurring: inherited(g.recurring === null ? null : recurringText(g.recurring)),
    'second tier': inherited(g.secondTierPercent === null ? null : `${g.secondTierPercent}%`),
    products: productsText(g.products, currency),
    affiliates: g.affiliateCount,
    created: g.createdAt,
    updated: g.updatedAt,
  });
}

/** The rule flags as the API's fields; `campaign` is null (the campaign's). */
function ruleFields(flags: RuleFlags) {
  let rate;
  try {
    rate = rateOfOptions(flags);
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\.$/, ''));
  }
  return {
    ...rate,
    recurring: flags.recurring === 'campaign' ? null : flags.recurring,
    secondTierPercent: flags.secondTierPercent === 'campaign' ? null : flags.secondTierPercent,
    products: flags.product,
  };
}

export async function create(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: RuleFlags & { name: string },
): Promise<void> {
  const { commissionType, commissionValue, ...rest } = ruleFields(flags);
  await checkRuleAmounts(flags, () => campaignCurrency(client));
  if (commissionType === undefined || commissionValue === undefined) {
    throw new UsageError('give the group its rate: --commission-percent X or --commission-fixed X');
  }
  const body: CreateGroupInput = { name: flags.name, commissionType, commissionValue, ...rest };
  const group = await client.groups.create({ body });
  if (options.json) return printJson(io, group);
  note(io, `Created group ${group.id}: affiliates update ID --group ${group.id} puts an affiliate in it.`);
  record(io, group, await campaignCurrency(client));
}

export async function list(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: { page?: number; limit?: number; output?: ListFormat },
): Promise<void> {
  const page = await client.groups.list({ query: { page: flags.page, limit: flags.limit } });
  if (options.json) return printJson(io, page);
  table(io, page.groups, await campaignCurrency(client), flags.output);
  pageNote(io, page, plural(page.total, 'group'));
}

export async function get(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const group = await client.groups.get({ params: { id } });
  if (options.json) return printJson(io, group);
  record(io, group, await campaignCurrency(client));
}

export async function update(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  flags: RuleFlags & { name?: string; products?: boolean },
): Promise<void> {
  if (flags.product !== undefined && flags.products === false)
    throw new UsageError('give --product or --no-products, not both');
  const fields = ruleFields(flags);
  await checkRuleAmounts(flags, () => campaignCurrency(client));
  const body: UpdateGroupInput = {
    ...fields,
    name: flags.name,
    products: flags.products === false ? [] : fields.products,
  };
  if (Object.values(body).every((value) => value === undefined)) {
    throw new UsageError(
      'nothing to update: give at least one of --name --commission-percent --commission-fixed --recurring ' +
        '--second-tier-percent --product --no-products',
    );
  }
  const group = await client.groups.update({ params: { id }, body });
  if (options.json) return printJson(io, group);
  note(io, `Updated group ${group.id}.`);
  record(io, group, await campaignCurrency(client));
}

export async function remove(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  flags: { yes?: boolean },
): Promise<void> {
  await confirmOrDecline(io, flags, async () => {
    const group = await client.groups.get({ params: { id } });
    return `Delete group ${id} (${group.name})? Its ${plural(group.affiliateCount, 'affiliate')} will earn by the campaign's rule.`;
  });
  const result = await client.groups.remove({ params: { id } });
  if (options.json) return printJson(io, result);
  printLine(io, `Group ${id} deleted.`);
}

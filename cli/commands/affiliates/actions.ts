import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../../../shared/client/index.js';
import {
  type Affiliate,
  type AffiliateStatus,
  type CreateAffiliateInput,
  type InviteResponse,
  password as passwordSchema,
  type UpdateAffiliateInput,
} from '../../../shared/schemas/affiliate.js';
import { MESSAGES } from '../../../shared/errors.js';
import { toCents } from '../../../shared/money.js';
import { CommandFailed, UsageError } from '../../errors.js';
import { payoutDetailsOfFlags, type PayoutFlags } from './payoutOptions.js';
import type { Io } from '../../io.js';
import { amountCell, campaignCurrency, moneyText } from '../../money.js';
import {
  type GlobalOptions,
  count,
  type ListFormat,
  note,
  plural,
  printJson,
  printLine,
  printRecord,
  printTable,
} from '../../output.js';
import { askNewPassword, confirmOrDecline } from '../../prompts.js';
import { ALL_PAGE_SIZE, everyPage, type Paging, printList } from '../../paging.js';
import { pacedClient } from '../../rateLimit.js';
import { affiliateRuleText, checkRuleAmounts, rateOfOptions, rateText } from '../../ruleOptions.js';

const passwordRule = (value: string) =>
  passwordSchema.safeParse(value).success ? true : 'At least 6 characters (and at most 72 bytes)';

function table(io: Io, affiliates: Affiliate[], currency: string, format?: ListFormat): void {
  printTable(
    io,
    ['id', 'name', 'email', 'referral', 'status', 'rule', 'parent', 'conversions', 'commissions', 'paid', 'created'],
    affiliates.map((a) => [
      a.id,
      a.name,
      a.email,
      a.referralId,
      a.status,
      affiliateRuleText(a, currency),
      a.parentAffiliateId,
      a.totalConversions,
      amountCell(a.totalCommissions, currency, format),
      amountCell(a.totalPaid, currency, format),
      a.createdAt,
    ]),
    format,
  );
}

const PAYOUT_METHOD_NAMES = {
  pix: (type: string | null) => `Pix (${type ?? ''})`,
  paypal: () => 'PayPal',
  stripe: () => 'Stripe',
} as const;

function record(io: Io, a: Affiliate, currency: string): void {
  printRecord(io, {
    id: a.id,
    name: a.name,
    email: a.email,
    phone: a.phone,
    'referral id': a.referralId,
    status: a.status,
    group: a.groupId,
    'own rate': a.commissionOverride === null ? null : rateText(a.commissionOverride, currency),
    'earns by': affiliateRuleText(a, currency),
    parent: a.parentAffiliateId,
    created: a.createdAt,
    conversions: a.totalConversions,
    [`commissions (${currency})`]: amountCell(a.totalCommissions, currency),
    [`paid (${currency})`]: amountCell(a.totalPaid, currency),
    // Where the affiliate asked to be paid, in the portal: what a bank transfer needs.
    'payout method': a.payoutMethod === null ? '(none given)' : PAYOUT_METHOD_NAMES[a.payoutMethod](a.pixKeyType),
    'payout account': a.payoutAccount,
    flags: a.flags.length === 0 ? '' : a.flags.join(', '),
  });
}

/** `affiliates approve ID…` or `--all-pending`: pending affiliates become active (and get their mail). */
export async function approve(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  ids: number[],
  flags: { allPending?: boolean },
): Promise<void> {
  if (flags.allPending && ids.length > 0) throw new UsageError('give ids or --all-pending, not both');
  if (!flags.allPending && ids.length === 0)
    throw new UsageError('give the ids of pending affiliates, or --all-pending');
  if (flags.allPending) {
    const approved: Affiliate[] = [];
    // A thousand a request, until none is left.
    for (;;) {
      const page = await client.affiliates.approvePending({});
      approved.push(...page.approved);
      if (page.remaining === 0 || page.approved.length === 0) break;
    }
    if (options.json) return printJson(io, { approved });
    if (approved.length === 0) return printLine(io, 'No pending affiliate to approve.');
    for (const a of approved) printLine(io, `approved ${a.id} ${a.email}`);
    return printLine(io, `Approved ${plural(approved.length, 'affiliate')}.`);
  }
  const results: { id: number; outcome: 'approved' | 'failed'; message?: string }[] = [];
  for (const id of ids) {
    try {
      await client.affiliates.approve({ params: { id } });
      results.push({ id, outcome: 'approved' });
    } catch (err) {
      results.push({ id, outcome: 'failed', message: err instanceof Error ? err.message : String(err) });
    }
  }
  if (options.json) printJson(io, { results });
  else for (const r of results) printLine(io, r.outcome === 'approved' ? `approved ${r.id}` : `${r.id}: ${r.message}`);
  const failed = results.filter((r) => r.outcome === 'failed').length;
  if (failed > 0) throw new CommandFailed(`${plural(failed, 'affiliate')} not approved`);
}

export async function list(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: {
    status?: AffiliateStatus;
    search?: string;
    group?: number;
    page?: number;
    limit?: number;
    all?: boolean;
    output?: ListFormat;
  },
): Promise<void> {
  const filters = { status: flags.status, search: flags.search, groupId: flags.group };
  // With --all the command waits out the rate limit, the currency's look-up too.
  const currency = options.json ? '' : await campaignCurrency(flags.all ? pacedClient(io, client) : client);
  await printList(io, client, options.json, flags, {
    noun: 'affiliate',
    fetch: (api, paging: Paging) => api.affiliates.list({ query: { ...filters, ...paging } }),
    rows: (answer) => answer.affiliates,
    show: (rows) => table(io, rows, currency, flags.output),
  });
}

export async function get(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const affiliate = await client.affiliates.get({ params: { id } });
  if (options.json) return printJson(io, affiliate);
  record(io, affiliate, await campaignCurrency(client));
}

interface FieldFlags extends PayoutFlags {
  email?: string;
  name?: string;
  phone?: string;
  referralId?: string;
  status?: AffiliateStatus;
  group?: number | 'none';
  parent?: number | 'none';
  commissionPercent?: number;
  commissionFixed?: number;
  /** commander: false for --no-commission-override, else true (update only). */
  commissionOverride?: boolean;
}

/** The affiliate fields among a command's flags (which also hold --json, --password, ...). */
function fieldsOf(flags: FieldFlags) {
  const { email, name, phone, referralId, status } = flags;
  let rate;
  try {
    rate = rateOfOptions(flags);
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\.$/, ''));
  }
  if (rate && flags.commissionOverride === false) {
    throw new UsageError('give --commission-percent, --commission-fixed or --no-commission-override, not two');
  }
  return {
    email,
    name,
    phone,
    referralId,
    status,
    groupId: flags.group === 'none' ? null : flags.group,
    parentAffiliateId: flags.parent === 'none' ? null : flags.parent,
    commissionOverride: flags.commissionOverride === false ? null : rate,
    payoutDetails: payoutDetailsOfFlags(flags),
  };
}

/** `--name ''` and `--phone ''` clear the field: the API takes `null` for that (spec §4.4). */
const clearable = (value: string | undefined) => (value !== undefined && value.trim() === '' ? null : value);

export async function create(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: FieldFlags & { email: string; password?: string; invite?: boolean },
): Promise<void> {
  // An invited affiliate chooses its own password through the link: the one the API requires
  // is random, and nobody ever sees it.
  if (flags.invite) await checkPortalOn(client);
  const password =
    flags.password ??
    (flags.invite
      ? randomBytes(24).toString('base64url')
      : await askNewPassword(io, '--password', 'Password', passwordRule));
  const fields = fieldsOf(flags);
  // Only update has --no-payout-details: a new affiliate's details are given or absent.
  const input: CreateAffiliateInput = {
    ...fields,
    payoutDetails: fields.payoutDetails ?? undefined,
    email: flags.email,
    password,
  };
  await checkRuleAmounts(flags, () => campaignCurrency(client));
  const affiliate = await client.affiliates.create({ body: input });
  const invitation = flags.invite ? await client.affiliates.invite({ params: { id: affiliate.id } }) : undefined;
  if (options.json) return printJson(io, invitation ? { ...affiliate, invitation } : affiliate);
  note(io, `Created affiliate ${affiliate.id} with referral code ${affiliate.referralId}.`);
  record(io, affiliate, await campaignCurrency(client));
  if (invitation) printInvitation(io, invitation);
}

/** `--invite` needs the portal the link points to: said before the affiliate is created, not after. */
async function checkPortalOn(client: ApiClient): Promise<void> {
  const campaign = await client.campaign.get();
  if (!campaign.portal.enabled) throw new UsageError(`--invite: ${MESSAGES.inviteNeedsPortal(campaign.publicId)}`);
}

/** `affiliates invite ID`: the link goes by mail, or is printed (stdout) for the merchant to pass on. */
export async function invite(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const invitation = await client.affiliates.invite({ params: { id } });
  if (options.json) return printJson(io, invitation);
  printInvitation(io, invitation);
}

function printInvitation(io: Io, invitation: InviteResponse): void {
  if (invitation.mailed || invitation.link === null) {
    note(
      io,
      `Invitation mailed to ${invitation.email}: its link lets the affiliate choose a password in the portal, ` +
        'once, within 7 days (`affiliated mail list` shows the mail).',
    );
    return;
  }
  printLine(io, invitation.link);
  note(
    io,
    `This daemon sends no mail (no SMTP_URL): give the link above to ${invitation.email} yourself. ` +
      `It lets the affiliate choose a password in the portal, once, until ${invitation.expiresAt ?? 'it expires'}; ` +
      'anyone who has it can, so send it only to them.',
  );
}

export async function update(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  flags: FieldFlags & { password?: string | true },
): Promise<void> {
  const password =
    flags.password === true
      ? await askNewPassword(io, '--password VALUE', 'New password', passwordRule)
      : flags.password;
  await checkRuleAmounts(flags, () => campaignCurrency(client));
  const changes: UpdateAffiliateInput = {
    ...fieldsOf(flags),
    name: clearable(flags.name),
    phone: clearable(flags.phone),
    password,
  };
  if (Object.values(changes).every((v) => v === undefined)) {
    throw new UsageError(
      'nothing to update: give at least one of --email --password --name --phone --referral-id --status --group ' +
        '--commission-percent --commission-fixed --no-commission-override --parent --pix-key --paypal-email ' +
        '--stripe-account --no-payout-details',
    );
  }
  const affiliate = await client.affiliates.update({ params: { id }, body: changes });
  if (options.json) return printJson(io, affiliate);
  note(io, `Updated affiliate ${affiliate.id}.`);
  record(io, affiliate, await campaignCurrency(client));
}

/** What deleting an affiliate erases with it (spec §4.5.1: the delete cascades). */
interface Erased {
  conversions: number;
  payouts: number;
  paid: number;
  paidCents: number;
  /** The payouts' currency (the campaign's). */
  currency: string;
}

async function erasedWith(client: ApiClient, affiliate: Affiliate): Promise<Erased> {
  const payouts = await everyPage(async (page) => {
    const answer = await client.payouts.list({
      query: { affiliateId: affiliate.id, page, limit: ALL_PAGE_SIZE },
    });
    return { ...answer, items: answer.payouts };
  });
  const paid = payouts.items.filter((p) => p.status === 'paid');
  return {
    conversions: affiliate.totalConversions,
    payouts: payouts.items.length,
    paid: paid.length,
    paidCents: paid.reduce((sum, p) => sum + toCents(p.amount), 0),
    currency: paid[0]?.currency ?? 'BRL',
  };
}

/** `3 conversions and 2 payouts, 1 of them paid (BRL 25.00)`. */
function erasedText(erased: Erased): string {
  const paid =
    erased.payouts === 0
      ? ''
      : erased.paid === 0
        ? ', none paid'
        : `, ${count(erased.paid)} of them paid (${moneyText(erased.paidCents / 100, erased.currency)})`;
  return `${plural(erased.conversions, 'conversion')} and ${plural(erased.payouts, 'payout')}${paid}`;
}

export async function remove(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  flags: { yes?: boolean },
): Promise<void> {
  // spec §4.5.1: the delete cascades, paid payouts included, so a person is told what goes and
  // confirms; scripts must say --yes. The affiliate is read first: an unknown id fails before
  // any question, and what was erased is said afterwards.
  const paced = pacedClient(io, client);
  const a = await paced.affiliates.get({ params: { id } });
  const erased = await erasedWith(paced, a);
  await confirmOrDecline(io, flags, async () => {
    note(io, `To keep its records, make it inactive instead: affiliated affiliates update ${id} --status inactive`);
    const who = `${a.name ?? a.email} <${a.email}>, referral code ${a.referralId}`;
    return `Delete affiliate ${id} (${who}) with ${erasedText(erased)}, its commissions and events? This cannot be undone.`;
  });
  const result = await client.affiliates.remove({ params: { id } });
  if (options.json) return printJson(io, result);
  printLine(io, `Affiliate ${id} deleted, with ${erasedText(erased)}.`);
}

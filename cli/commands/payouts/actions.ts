import { writeFile } from 'node:fs/promises';
import type { ApiClient } from '../../../shared/client/index.js';
import { fromCents, toCents } from '../../../shared/money.js';
import type { Payout, PayoutStatus } from '../../../shared/schemas/payout.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { amountCell, campaignCurrency, moneyText } from '../../money.js';
import {
  agree,
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
import { type Paging, printList } from '../../paging.js';
import { pacedClient } from '../../rateLimit.js';
import { ruleText } from '../../ruleOptions.js';
import { payoutsCsv } from './csv.js';

/** A payout's amounts are in its `currency`, the campaign's. */
function table(io: Io, payouts: Payout[], format?: ListFormat): void {
  printTable(
    io,
    ['id', 'affiliate', 'name', 'email', 'amount', 'status', 'conversions', 'created', 'paid'],
    payouts.map((p) => [
      p.id,
      p.affiliateId,
      p.affiliateName,
      p.affiliateEmail,
      amountCell(p.amount, p.currency, format),
      p.status,
      p.conversionIds.length,
      p.createdAt,
      p.paidAt,
    ]),
    format,
  );
  const [first] = payouts;
  if (first) note(io, `amounts in ${first.currency}`);
}

/** Ids shown in a record before the rest is only counted (a payout may cover thousands). */
const IDS_SHOWN = 10;

/** `3 (101, 102, 103)`, or for a long list its count, the first ids and where the rest is. */
export function conversionsText(ids: readonly number[]): string {
  if (ids.length <= IDS_SHOWN) return ids.length === 0 ? '0' : `${ids.length} (${ids.join(', ')})`;
  const first = ids.slice(0, IDS_SHOWN - 1).join(', ');
  return `${count(ids.length)} (${first}, … ${ids.at(-1)}; --json lists every id)`;
}

function record(io: Io, p: Payout): void {
  printRecord(io, {
    id: p.id,
    affiliate: `${p.affiliateId} ${p.affiliateName ?? ''} <${p.affiliateEmail}>`,
    status: p.status,
    [`commissions (${p.currency})`]: amountCell(p.commissionAmount, p.currency),
    [`clawbacks (${p.currency})`]: amountCell(p.clawbackAmount, p.currency),
    [`amount (${p.currency})`]: amountCell(p.amount, p.currency),
    conversions: conversionsText(p.conversionIds),
    created: p.createdAt,
    paid: p.paidAt,
    failed: p.failedAt,
    rail: p.rail,
    reference: p.reference,
    receipt: p.receipt,
    'failure reason': p.failureReason,
  });
}

export async function list(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: {
    affiliate?: number;
    status?: PayoutStatus;
    page?: number;
    limit?: number;
    all?: boolean;
    output?: ListFormat;
  },
): Promise<void> {
  const { affiliate, output, all: _all, ...rest } = flags;
  const query = { ...rest, affiliateId: affiliate };
  await printList(io, client, options.json, flags, {
    noun: 'payout',
    fetch: (api, paging: Paging) => api.payouts.list({ query: { ...query, ...paging } }),
    rows: (answer) => answer.payouts,
    show: (rows) => table(io, rows, output),
  });
}

export async function get(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const payout = await client.payouts.get({ params: { id } });
  if (options.json) return printJson(io, payout);
  record(io, payout);
}

export async function create(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: { affiliate?: number; all?: boolean },
): Promise<void> {
  if ((flags.affiliate === undefined) === !flags.all) throw new UsageError('give --affiliate ID or --all');
  if (flags.affiliate !== undefined) {
    const payout = await client.payouts.create({ body: { affiliateId: flags.affiliate } });
    if (options.json) return printJson(io, payout);
    note(
      io,
      `Created payout ${payout.id} of ${moneyText(payout.amount, payout.currency)} for affiliate ${payout.affiliateId}.`,
    );
    return record(io, payout);
  }
  const answer = await client.payouts.bulkCreate({ body: {} });
  if (options.json) return printJson(io, answer);
  if (answer.created.length > 0) table(io, answer.created);
  for (const skip of answer.skipped) note(io, `affiliate ${skip.affiliateId}: ${skip.message}`);
  const cents = answer.created.reduce((sum, p) => sum + toCents(p.amount), 0);
  const [first] = answer.created;
  printLine(
    io,
    first === undefined
      ? 'Nothing to pay.'
      : `Created ${plural(answer.created.length, 'payout')}, ${moneyText(fromCents(cents), first.currency)} in all.`,
  );
}

export async function settle(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  status: 'paid' | 'failed',
): Promise<void> {
  const payout = await client.payouts.update({ params: { id }, body: { status } });
  if (options.json) return printJson(io, payout);
  const paidCount = payout.conversionIds.length;
  note(
    io,
    status === 'paid'
      ? `Marked payout ${payout.id} paid: its ${plural(paidCount, 'conversion')} ${agree(paidCount, 'is', 'are')} paid.`
      : `Marked payout ${payout.id} failed: its conversions wait for the next payout.`,
  );
  record(io, payout);
}

/**
 * `payouts send`: the intent is committed before the daemon calls the provider, so the answer is
 * `processing` with its reference; `payouts get` shows it `paid` (with the receipt) or `failed` later.
 */
export async function send(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const payout = await client.payouts.send({ params: { id } });
  if (options.json) return printJson(io, payout);
  printLine(
    io,
    `Payout ${payout.id} is ${payout.status} on ${payout.rail ?? 'no rail'}, reference ${payout.reference ?? '-'}.`,
  );
  if (payout.status === 'processing')
    note(io, `The provider has it: \`payouts get ${payout.id}\` shows it paid or failed.`);
  record(io, payout);
}

/** Every payout of a status, oldest id first; ids seen on an earlier page are not repeated. */
async function allOf(client: ApiClient, status: PayoutStatus): Promise<Payout[]> {
  const byId = new Map<number, Payout>();
  for (let page = 1; ; page++) {
    const answer = await client.payouts.list({ query: { status, page, limit: 100 } });
    for (const payout of answer.payouts) byId.set(payout.id, payout);
    if (answer.payouts.length === 0 || page >= answer.totalPages) break;
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * Each payout's commissions by the rule they were earned by: `campaign 10%: 3; second tier 5%
 * of the sale's commission: 1` (a failed payout released its conversions: none).
 */
async function rulesOf(client: ApiClient, payouts: readonly Payout[]): Promise<Map<number, string>> {
  const rules = new Map<number, string>();
  for (const payout of payouts) {
    if (payout.status === 'failed') continue;
    const counts = new Map<string, number>();
    for (let page = 1; ; page++) {
      const answer = await client.conversions.list({ query: { payoutId: payout.id, page, limit: 100 } });
      for (const { commissionRule } of answer.conversions) {
        const text = ruleText({ ...commissionRule, paymentNumber: undefined }, payout.currency);
        counts.set(text, (counts.get(text) ?? 0) + 1);
      }
      if (answer.conversions.length === 0 || page >= answer.totalPages) break;
    }
    rules.set(payout.id, [...counts].map(([text, n]) => `${text}: ${n}`).join('; '));
  }
  return rules;
}

/** `payouts export`: the file a merchant uploads to a bank or a PayPal mass payment. */
export async function exportPayouts(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: { status: PayoutStatus; format: 'csv' | 'json'; output?: string },
): Promise<void> {
  // It pages through payouts and their conversions: it waits out the rate limit rather than fail.
  const paced = pacedClient(io, client);
  const payouts = await allOf(paced, flags.status);
  const json = options.json || flags.format === 'json';
  const text = json ? `${JSON.stringify(payouts, null, 2)}\n` : payoutsCsv(payouts, await rulesOf(paced, payouts));
  const cents = payouts.reduce((sum, p) => sum + toCents(p.amount), 0);
  const currency = payouts[0]?.currency ?? (await campaignCurrency(paced));
  const summary = `${plural(payouts.length, `${flags.status} payout`)}, ${moneyText(fromCents(cents), currency)} in all`;
  if (flags.output === undefined) {
    io.stdout.write(text);
    note(io, summary);
    return;
  }
  await writeFile(flags.output, text, { mode: 0o600 });
  if (options.json) return printJson(io, { file: flags.output, payouts: payouts.length, amount: cents / 100 });
  printLine(io, `Wrote ${summary} to ${flags.output}.`);
}

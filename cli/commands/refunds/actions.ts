import type { ApiClient } from '../../../shared/client/index.js';
import { fromCents, toCents } from '../../../shared/money.js';
import type { Clawback } from '../../../shared/schemas/clawback.js';
import type { Conversion } from '../../../shared/schemas/conversion.js';
import type { Io } from '../../io.js';
import { amountCell, amountOption, campaignCurrency, moneyText } from '../../money.js';
import { type GlobalOptions, type ListFormat, note, plural, printJson, printTable } from '../../output.js';
import { ALL_PAGE_SIZE, everyPage } from '../../paging.js';
import { pacedClient } from '../../rateLimit.js';
import { conversionRecord } from '../conversions/actions.js';

/**
 * A refunded conversion that was in a payout carries a clawback of its commission (docs/payouts.md):
 * it keeps its `payoutId`, and its commission is what the affiliate owes back.
 */
const hasClawback = (c: Conversion) => c.refundedAt !== null && c.payoutId !== null;

export async function create(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  orderId: string,
  flags: { reason?: string; amount?: string; refundId?: string },
): Promise<void> {
  // `--amount` is read in the campaign's currency (a JPY refund has no decimals), and the notes say it.
  const currency = flags.amount !== undefined || !options.json ? await campaignCurrency(client) : '';
  // A refund_id sent again changes nothing and is answered like a new one: the sale as it was
  // before tells the two apart.
  const before = flags.refundId === undefined ? undefined : await saleOf(client, orderId);
  const conversion = await client.refunds.create({
    body: {
      order_id: orderId,
      ...(flags.reason !== undefined && { reason: flags.reason }),
      ...(flags.amount !== undefined && { amount: amountOption('--amount', flags.amount, currency) }),
      ...(flags.refundId !== undefined && { refund_id: flags.refundId }),
    },
  });
  if (options.json) return printJson(io, conversion);
  conversionRecord(io, conversion, currency);
  if (before !== undefined && unchanged(before, conversion)) {
    note(
      io,
      before.status === 'rejected'
        ? `Order ${orderId} was already refunded in full: nothing changed.`
        : `Refund ${flags.refundId ?? ''} was already applied to order ${orderId}: nothing changed.`,
    );
    return;
  }
  if (conversion.status !== 'rejected') return partNote(io, client, orderId, conversion, currency);
  if (!hasClawback(conversion) || conversion.payoutId === null) {
    note(io, `Refunded order ${orderId}: conversion ${conversion.id} is rejected; no commission had been paid out.`);
    return;
  }
  const payout = await client.payouts.get({ params: { id: conversion.payoutId } });
  const when =
    payout.status === 'paid'
      ? 'it is netted off their next payout'
      : `it is owed once payout ${payout.id} is marked paid, then netted off a later payout`;
  note(
    io,
    `Its commission was in payout ${payout.id} (${payout.status}): a clawback of ${moneyText(conversion.commission, currency)} ` +
      `is recorded against affiliate ${conversion.affiliateId}; ${when}. \`affiliated refunds list --clawbacks\` lists them.`,
  );
}

/** The order's sale, as it stands. */
async function saleOf(client: ApiClient, orderId: string): Promise<Conversion | undefined> {
  const { conversions } = await client.conversions.list({ query: { orderId, kind: 'sale', limit: 1 } });
  return conversions[0];
}

const unchanged = (before: Conversion, after: Conversion) =>
  before.id === after.id && before.status === after.status && before.refundedAmount === after.refundedAmount;

/**
 * A partial refund leaves the sale standing with a lower commission; what it took off a
 * commission already in a payout is clawed back (docs/commissions.md#partial-refunds). The
 * clawback is read back from the one list of them (`GET /v1/clawbacks`), so the note names the
 * amount that list holds.
 */
async function partNote(
  io: Io,
  client: ApiClient,
  orderId: string,
  conversion: Conversion,
  currency: string,
): Promise<void> {
  const money = (amount: number) => moneyText(amount, currency);
  const refunded = `Refunded ${money(conversion.refundedAmount)} of ${money(conversion.orderValue)} of order ${orderId} so far`;
  const earns = `conversion ${conversion.id} now earns ${money(conversion.commission)}`;
  if (conversion.payoutId === null) return note(io, `${refunded}: ${earns}.`);
  const newest = await client.payouts.clawbacks({ query: { conversionId: conversion.id, limit: 1 } });
  const clawback = newest.clawbacks[0];
  const clawed =
    clawback === undefined
      ? `; its commission was in payout ${conversion.payoutId}, and this refund took nothing off it`
      : `; a clawback of ${moneyText(clawback.amount, currency)} is recorded against affiliate ${clawback.affiliateId} ` +
        `(its commission was in payout ${clawback.payoutId}, ${clawback.status}). \`affiliated refunds list --clawbacks\` lists them`;
  note(io, `${refunded}: ${earns}${clawed}.`);
}

/** Every clawback of the campaign (or of one affiliate), every page: full and partial refunds alike. */
async function everyClawback(client: ApiClient, affiliateId: number | undefined) {
  let owedAmount = 0;
  const all = await everyPage(async (page) => {
    const answer = await client.payouts.clawbacks({ query: { affiliateId, page, limit: ALL_PAGE_SIZE } });
    if (page === 1) owedAmount = answer.owedAmount;
    return { ...answer, items: answer.clawbacks };
  });
  return { clawbacks: all.items, owedAmount };
}

/** What was clawed back: every clawback but those whose payout failed (that money never left). */
const clawedBack = (clawbacks: readonly Clawback[]) => clawbacks.filter((c) => c.status !== 'void');

/** `affiliate 7 owes back BRL 25.00` (in the campaign's currency), for each affiliate that still owes something. */
function owedByAffiliate(clawbacks: readonly Clawback[], currency: string): string[] {
  const owed = new Map<number, number>();
  for (const c of clawbacks) {
    if (c.status === 'settled' || c.status === 'void') continue;
    owed.set(c.affiliateId, (owed.get(c.affiliateId) ?? 0) + toCents(c.amount));
  }
  return [...owed].map(
    ([affiliate, cents]) => `affiliate ${affiliate} owes back ${moneyText(fromCents(cents), currency)}`,
  );
}

/**
 * `refunds list`: the orders refunded in full (rejected conversions with a refund date), newest
 * first. Clawbacks come from the one list of them (`GET /v1/clawbacks`): `--clawbacks` lists
 * those instead, partial refunds included, with what each affiliate still owes back; the sums
 * of both come from it.
 */
export async function list(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: { affiliate?: number; clawbacks?: boolean; output?: ListFormat },
): Promise<void> {
  const paced = pacedClient(io, client);
  const rejected = await everyPage(async (page) => {
    const answer = await paced.conversions.list({
      query: { status: 'rejected', affiliateId: flags.affiliate, page, limit: ALL_PAGE_SIZE },
    });
    return { ...answer, items: answer.conversions };
  });
  const refunds = rejected.items.filter((c) => c.refundedAt !== null && (!flags.clawbacks || hasClawback(c)));
  const { clawbacks, owedAmount } = await everyClawback(paced, flags.affiliate);
  const taken = clawedBack(clawbacks);
  const cents = taken.reduce((sum, c) => sum + toCents(c.amount), 0);
  if (options.json) {
    if (!flags.clawbacks) return printJson(io, { refunds, total: refunds.length });
    return printJson(io, { refunds, total: refunds.length, clawbacks, owedAmount });
  }
  const currency = await campaignCurrency(paced);
  if (flags.clawbacks) {
    printTable(
      io,
      ['clawback', 'affiliate', 'conversion', 'order', 'amount', 'payout', 'status', 'netted by', 'created', 'reason'],
      clawbacks.map((c) => [
        c.id,
        c.affiliateId,
        c.conversionId,
        c.orderId,
        amountCell(c.amount, currency, flags.output),
        c.payoutId,
        c.status,
        c.nettedPayoutId,
        c.createdAt,
        c.reason,
      ]),
      flags.output,
    );
    note(io, `${plural(taken.length, 'clawback')}: ${moneyText(fromCents(cents), currency)} clawed back in all`);
    for (const line of owedByAffiliate(clawbacks, currency)) note(io, line);
    return;
  }
  printTable(
    io,
    ['conversion', 'affiliate', 'order', 'commission', 'clawback', 'payout', 'refunded', 'reason'],
    refunds.map((c) => [
      c.id,
      c.affiliateId,
      c.orderId,
      amountCell(c.commission, currency, flags.output),
      hasClawback(c) ? amountCell(c.commission, currency, flags.output) : null,
      c.payoutId,
      c.refundedAt,
      c.refundReason,
    ]),
    flags.output,
  );
  note(
    io,
    `${plural(refunds.length, 'refund')}, ${plural(taken.length, 'clawback')}: ${moneyText(fromCents(cents), currency)} clawed back in all`,
  );
  if (taken.length > refunds.filter(hasClawback).length) {
    note(io, 'Partial refunds claw back too: `affiliated refunds list --clawbacks` lists every clawback.');
  }
}

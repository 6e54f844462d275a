import type { ApiClient } from '../../../shared/client/index.js';
import { fromCents, toCents } from '../../../shared/money.js';
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
  if (conversion.status !== 'rejected') return partNote(io, orderId, conversion, currency);
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
 * commission already in a payout is clawed back (docs/commissions.md#partial-refunds).
 */
function partNote(io: Io, orderId: string, conversion: Conversion, currency: string): void {
  const money = (amount: number) => moneyText(amount, currency);
  const refunded = `Refunded ${money(conversion.refundedAmount)} of ${money(conversion.orderValue)} of order ${orderId} so far`;
  const earns = `conversion ${conversion.id} now earns ${money(conversion.commission)}`;
  const clawed =
    conversion.payoutId === null
      ? ''
      : `; what the refund took off its commission, which was in payout ${conversion.payoutId}, is clawed back from affiliate ${conversion.affiliateId}`;
  note(io, `${refunded}: ${earns}${clawed}.`);
}

/**
 * `refunds list`: the orders refunded in full (rejected conversions with a refund date), newest
 * first, and which of them carry a clawback. The API lists conversions by status; refunds are
 * read from the rejected ones, every page. A partial refund leaves its conversion approved or
 * paid: it shows on the conversion (`refundedAmount`) and in its payout's clawbacks, not here.
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
  const clawbacks = refunds.filter(hasClawback);
  if (options.json) return printJson(io, { refunds, total: refunds.length });
  const currency = await campaignCurrency(client);
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
  const cents = clawbacks.reduce((sum, c) => sum + toCents(c.commission), 0);
  const what = flags.clawbacks
    ? plural(clawbacks.length, 'clawback')
    : `${plural(refunds.length, 'refund')}, ${plural(clawbacks.length, 'clawback')}`;
  note(io, `${what}: ${moneyText(fromCents(cents), currency)} clawed back in all`);
}

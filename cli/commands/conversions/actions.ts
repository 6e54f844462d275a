import type { ApiClient } from '../../../shared/client/index.js';
import {
  type BulkResult,
  type Conversion,
  type ConversionStatus,
  MAX_BULK_CONVERSIONS,
  type SettableConversionStatus,
} from '../../../shared/schemas/conversion.js';
import { checkRange } from '../../dates.js';
import { AlreadyReported, UsageError } from '../../errors.js';
import { refundHint } from '../../hints.js';
import type { Io } from '../../io.js';
import { amountCell, campaignCurrency } from '../../money.js';
import {
  agree,
  type GlobalOptions,
  type ListFormat,
  note,
  printJson,
  printLine,
  printRecord,
  printTable,
  withSpinner,
} from '../../output.js';
import { type Paging, printList } from '../../paging.js';
import { pacedClient } from '../../rateLimit.js';
import { ruleText } from '../../ruleOptions.js';

/** Amounts in the campaign's currency: the note under the table names it. */
function table(io: Io, conversions: Conversion[], currency: string, format?: ListFormat): void {
  printTable(
    io,
    ['id', 'affiliate', 'order', 'value', 'commission', 'rule', 'status', 'payout', 'flags', 'created'],
    conversions.map((c) => [
      c.id,
      c.affiliateId,
      c.orderId,
      amountCell(c.orderValue, currency, format),
      amountCell(c.commission, currency, format),
      c.commissionRule.source,
      c.status,
      c.payoutId,
      c.flags.join(' '),
      c.createdAt,
    ]),
    format,
  );
  if (conversions.length > 0) note(io, `amounts in ${currency}`);
}

export function conversionRecord(io: Io, c: Conversion, currency: string): void {
  printRecord(io, {
    id: c.id,
    affiliate: `${c.affiliateId} (${c.referralId})`,
    order: c.orderId,
    kind: c.kind === 'sale' ? 'sale' : `second tier of conversion ${c.sourceConversionId ?? '(deleted)'}`,
    [`value (${currency})`]: amountCell(c.orderValue, currency),
    [`commission (${currency})`]: amountCell(c.commission, currency),
    rule: ruleText(c.commissionRule, currency),
    flags: c.flags.length === 0 ? null : c.flags.join(', '),
    [`refunded (${currency})`]: c.refundedAmount === 0 ? null : amountCell(c.refundedAmount, currency),
    status: c.status,
    payout: c.payoutId,
    occurred: c.occurredAt,
    created: c.createdAt,
    refunded: c.refundedAt === null ? null : `${c.refundedAt}${c.refundReason ? ` (${c.refundReason})` : ''}`,
  });
}

export async function list(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: {
    status?: ConversionStatus;
    affiliate?: number;
    orderId?: string;
    from?: string;
    to?: string;
    kind?: 'sale' | 'second_tier';
    flagged?: boolean;
    page?: number;
    limit?: number;
    all?: boolean;
    output?: ListFormat;
  },
): Promise<void> {
  checkRange(flags.from, flags.to);
  const { affiliate, output, all: _all, flagged, ...rest } = flags;
  const query = { ...rest, affiliateId: affiliate, ...(flagged && { flagged: 'true' as const }) };
  // With --all the command waits out the rate limit, the currency's look-up too.
  const currency = options.json ? '' : await campaignCurrency(flags.all ? pacedClient(io, client) : client);
  await printList(io, client, options.json, flags, {
    noun: 'conversion',
    fetch: (api, paging: Paging) => api.conversions.list({ query: { ...query, ...paging } }),
    rows: (answer) => answer.conversions,
    show: (rows) => table(io, rows, currency, output),
  });
}

export async function get(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const conversion = await client.conversions.get({ params: { id } });
  if (options.json) return printJson(io, conversion);
  conversionRecord(io, conversion, await campaignCurrency(client));
}

/** What `approve`/`reject` did, over however many requests it took. */
interface Outcome {
  results: BulkResult[];
  updated: number;
  unchanged: number;
  failed: number;
}

async function byIds(client: ApiClient, status: SettableConversionStatus, ids: number[]): Promise<Outcome> {
  const outcome: Outcome = { results: [], updated: 0, unchanged: 0, failed: 0 };
  for (let start = 0; start < ids.length; start += MAX_BULK_CONVERSIONS) {
    const answer = await client.conversions.bulkUpdate({
      body: { status, ids: ids.slice(start, start + MAX_BULK_CONVERSIONS) },
    });
    outcome.results.push(...answer.results);
    outcome.updated += answer.updated;
    outcome.unchanged += answer.unchanged;
    outcome.failed += answer.failed;
  }
  return outcome;
}

/** A thousand oldest pending conversions a request, until none is left (or none moved). */
async function allPending(client: ApiClient, status: SettableConversionStatus, before?: string): Promise<Outcome> {
  const outcome: Outcome = { results: [], updated: 0, unchanged: 0, failed: 0 };
  for (;;) {
    const answer = await client.conversions.bulkUpdate({
      body: { status, filter: { status: 'pending', ...(before !== undefined && { before }) } },
    });
    outcome.results.push(...answer.results);
    outcome.updated += answer.updated;
    outcome.unchanged += answer.unchanged;
    outcome.failed += answer.failed;
    // Another client may hold the rest for a moment: stop rather than spin; running again is safe.
    if (!answer.remaining || answer.updated === 0) return outcome;
  }
}

/** `conversions approve|reject`: ids, or `--all-pending [--before DATE]`. */
export async function move(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  status: SettableConversionStatus,
  ids: number[],
  flags: { allPending?: boolean; before?: string },
): Promise<void> {
  if (flags.allPending && ids.length > 0) throw new UsageError('give conversion ids or --all-pending, not both');
  if (!flags.allPending && ids.length === 0) throw new UsageError('give conversion ids, or --all-pending');
  if (flags.before !== undefined && !flags.allPending) throw new UsageError('--before goes with --all-pending');
  const verb = status === 'approved' ? 'Approved' : 'Rejected';
  const outcome = await withSpinner(io, `${verb.slice(0, -1)}ing conversions…`, () =>
    flags.allPending ? allPending(client, status, flags.before) : byIds(client, status, [...new Set(ids)]),
  );
  if (options.json) printJson(io, outcome);
  else {
    // Every id given gets a line; a sweep of all pending ones lists only what did not move.
    const shown = flags.allPending ? outcome.results.filter((r) => r.outcome !== 'updated') : outcome.results;
    if (shown.length > 0) {
      printTable(
        io,
        ['id', 'outcome', 'status', 'message'],
        shown.map((r) => [r.id, r.outcome, r.status, r.message]),
      );
      const refundable = shown.filter((r) => r.message?.includes('refund the order instead'));
      if (refundable.length > 0) note(io, refundHint(refundable.map((r) => String(r.id))));
    }
    printLine(
      io,
      `${verb} ${outcome.updated} ${agree(outcome.updated, 'conversion', 'conversions')}` +
        ` (${outcome.unchanged} already ${status}, ${outcome.failed} failed).`,
    );
  }
  if (outcome.failed > 0)
    throw new AlreadyReported(`${outcome.failed} ${agree(outcome.failed, 'conversion', 'conversions')} failed`);
}

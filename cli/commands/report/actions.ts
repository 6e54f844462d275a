import type { ApiClient } from '../../../shared/client/index.js';
import { affiliateReportQuerySchema, type AffiliateReport } from '../../../shared/schemas/report.js';
import { csvLines } from '../../../shared/csv.js';
import { checkRange } from '../../dates.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { amountCell, campaignCurrency } from '../../money.js';
import { type GlobalOptions, type ListFormat, note, plural, printJson, printLine } from '../../output.js';
import { RATE_LEGEND, renderReport } from './chart.js';

export interface ReportFlags {
  from?: string;
  to?: string;
  output?: ListFormat;
}

/**
 * `--output csv`: one row per affiliate, the API's numbers as they are (a spreadsheet sums them),
 * money as plain amounts of the campaign's currency (`1234.56`, JPY `1235`).
 */
function reportCsv(report: AffiliateReport, currency: string): string {
  return csvLines(
    [
      'affiliate_id',
      'name',
      'referral_id',
      'page_views',
      'leads',
      'conversions',
      'conversion_rate',
      'revenue',
      'commissions',
    ],
    report.affiliates.map((row) => [
      row.affiliateId,
      row.name,
      row.referralId,
      row.pageViews,
      row.leads,
      row.conversions,
      row.conversionRate,
      amountCell(row.revenue, currency, 'csv'),
      amountCell(row.commissions, currency, 'csv'),
    ]),
  );
}

/** `report`: per-affiliate activity of the key's campaign, as a table (with bars on a terminal), CSV or JSON. */
export async function report(io: Io, client: ApiClient, options: GlobalOptions, flags: ReportFlags): Promise<void> {
  for (const name of ['from', 'to'] as const) {
    const value = flags[name];
    if (value !== undefined && !affiliateReportQuerySchema.shape[name].safeParse(value).success) {
      throw new UsageError(`--${name} must be a date like 2026-11-01 (or an ISO 8601 date-time)`);
    }
  }
  checkRange(flags.from, flags.to);
  const answer = await client.reports.affiliates({ query: { from: flags.from, to: flags.to } });
  if (options.json) return printJson(io, answer);
  const currency = await campaignCurrency(client);
  if (flags.output === 'csv') {
    io.stdout.write(reportCsv(answer, currency));
    return;
  }
  const columns = (io.stdout as { columns?: number }).columns;
  const terminal = io.stdout.isTTY ? { columns: columns ?? 80 } : undefined;
  for (const line of renderReport(answer, currency, terminal)) printLine(io, line);
  const count = answer.affiliates.length;
  note(
    io,
    `${answer.from} to ${answer.to} (UTC days, both included): ` +
      (count === 0 ? 'no activity' : `${plural(count, 'affiliate')} with activity`),
  );
  if (count > 0) note(io, RATE_LEGEND);
}

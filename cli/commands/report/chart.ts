import type { AffiliateReport } from '../../../shared/schemas/report.js';
import { amountCell } from '../../money.js';
import { count, visible } from '../../output.js';

/** Bars are drawn in eighths of a character cell. */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const MIN_BAR = 10;
const MAX_BAR = 40;
/** A name is cut (with …) to fit the terminal, never below this. */
const MIN_NAME = 8;

type Counts = AffiliateReport['totals'];

/**
 * What the RATE and COMMISSIONS columns are, said under the table: the API's `conversionRate`,
 * and `commissions`, which counts every sale of the period as it was priced at intake, unlike
 * an affiliate's `totalCommissions`.
 */
export const RATE_LEGEND =
  'RATE: conversions per page view the tracking tag counted; "-" where there were no page views, ' +
  'or fewer than conversions (sales whose visits the tag did not see: no rate to give).\n' +
  'COMMISSIONS: what the period’s sales earned when they arrived, refunded and rejected ones included; ' +
  'what an affiliate still earns (approved and paid) is its total commissions in `affiliated affiliates get ID`.';

export function bar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + (EIGHTHS[eighths % 8] ?? '');
}

const rate = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);

function cells(counts: Counts, currency: string): string[] {
  return [
    count(counts.pageViews),
    count(counts.leads),
    count(counts.conversions),
    rate(counts.conversionRate),
    // Without thousands separators, as the report has always printed them (test/cli/consistency.test.ts
    // pins `123456.78` and the 80-column fit), in the currency's own decimals.
    amountCell(counts.revenue, currency, 'csv'),
    amountCell(counts.commissions, currency, 'csv'),
  ];
}

/** What the bars measure: revenue when there is any, else conversions, else page views. */
function measure(totals: Counts): { title: string; of: (counts: Counts) => number } {
  if (totals.revenue > 0) return { title: 'SHARE OF REVENUE', of: (c) => c.revenue };
  if (totals.conversions > 0) return { title: 'SHARE OF CONVERSIONS', of: (c) => c.conversions };
  return { title: 'SHARE OF PAGE VIEWS', of: (c) => c.pageViews };
}

const cut = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`);

/**
 * The report as text lines: a table, numbers right-aligned (money in the campaign's `currency`), a totals line. On a terminal
 * (`columns` given) it fits the width: names are cut to make room, and a bar per affiliate,
 * scaled to the largest, is drawn only when at least 10 cells are left for it.
 */
export function renderReport(report: AffiliateReport, currency: string, terminal?: { columns: number }): string[] {
  const titles = ['AFFILIATE', 'REFERRAL', 'VIEWS', 'LEADS', 'CONVERSIONS', 'RATE', 'REVENUE', 'COMMISSIONS'];
  // Names come from affiliates: shown, never obeyed (a name may hold escape sequences).
  const rows = report.affiliates.map((row) => [
    visible(row.name ?? '-', 'cell'),
    row.referralId,
    ...cells(row, currency),
  ]);
  const total = ['TOTAL', '', ...cells(report.totals, currency)];
  const widths = titles.map((title, i) =>
    Math.max(title.length, ...[...rows, total].map((row) => (row[i] ?? '').length)),
  );
  const tableWidth = () => widths.reduce((sum, width) => sum + width + 2, 0) - 2;
  if (terminal && tableWidth() > terminal.columns) {
    widths[0] = Math.max(MIN_NAME, (widths[0] ?? 0) - (tableWidth() - terminal.columns));
    for (const row of rows) row[0] = cut(row[0] ?? '', widths[0]);
  }
  const line = (row: string[]) =>
    row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  const room = terminal ? Math.min(MAX_BAR, terminal.columns - tableWidth() - 2) : 0;
  const chart = terminal && room >= MIN_BAR ? measure(report.totals) : undefined;
  const largest = chart ? Math.max(0, ...report.affiliates.map((row) => chart.of(row))) : 0;

  const title = chart && chart.title.length > room ? 'SHARE' : chart?.title;
  const lines = [title ? `${line(titles)}  ${title}` : line(titles)];
  report.affiliates.forEach((row, i) => {
    const text = line(rows[i] ?? []);
    lines.push(chart ? `${text}  ${bar(chart.of(row), largest, room)}`.trimEnd() : text);
  });
  lines.push('-'.repeat(tableWidth()), line(total));
  return lines.map((text) => text.trimEnd());
}

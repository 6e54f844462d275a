import type { AffiliateReport } from '../../../shared/schemas/report.js';

/** Bars are drawn in eighths of a character cell. */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const MIN_BAR = 10;
const MAX_BAR = 40;

type Counts = AffiliateReport['totals'];

export function bar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + (EIGHTHS[eighths % 8] ?? '');
}

const money = (value: number) => value.toFixed(2);
const rate = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);

function cells(counts: Counts): string[] {
  return [
    String(counts.pageViews),
    String(counts.leads),
    String(counts.conversions),
    rate(counts.conversionRate),
    money(counts.revenue),
    money(counts.commissions),
  ];
}

/** What the bars measure: revenue when there is any, else conversions, else page views. */
function measure(totals: Counts): { title: string; of: (counts: Counts) => number } {
  if (totals.revenue > 0) return { title: 'SHARE OF REVENUE', of: (c) => c.revenue };
  if (totals.conversions > 0) return { title: 'SHARE OF CONVERSIONS', of: (c) => c.conversions };
  return { title: 'SHARE OF PAGE VIEWS', of: (c) => c.pageViews };
}

/**
 * The report as text lines: a table, numbers right-aligned, a totals line, and on a terminal
 * (`columns` given) a bar per affiliate, scaled to the largest, in the width that is left.
 */
export function renderReport(report: AffiliateReport, terminal?: { columns: number }): string[] {
  const titles = ['AFFILIATE', 'REFERRAL', 'PAGE VIEWS', 'LEADS', 'CONVERSIONS', 'RATE', 'REVENUE', 'COMMISSIONS'];
  const rows = report.affiliates.map((row) => [row.name ?? '-', row.referralId, ...cells(row)]);
  const total = ['TOTAL', '', ...cells(report.totals)];
  const widths = titles.map((title, i) =>
    Math.max(title.length, ...[...rows, total].map((row) => (row[i] ?? '').length)),
  );
  const line = (row: string[]) =>
    row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  const tableWidth = widths.reduce((sum, width) => sum + width + 2, 0);
  const chart = terminal && measure(report.totals);
  const barWidth = terminal ? Math.min(MAX_BAR, Math.max(MIN_BAR, terminal.columns - tableWidth - 1)) : 0;
  const largest = chart ? Math.max(0, ...report.affiliates.map((row) => chart.of(row))) : 0;

  const lines = [chart ? `${line(titles)}  ${chart.title}` : line(titles)];
  report.affiliates.forEach((row, i) => {
    const text = line(rows[i] ?? []);
    lines.push(chart ? `${text}  ${bar(chart.of(row), largest, barWidth)}`.trimEnd() : text);
  });
  lines.push('-'.repeat(tableWidth - 2), line(total));
  return lines.map((text) => text.trimEnd());
}

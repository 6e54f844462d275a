import type { ApiClient } from '../../../shared/client/index.js';
import type { Analytics } from '../../../shared/schemas/analytics.js';
import type { Io } from '../../io.js';
import { amountCell, campaignCurrency } from '../../money.js';
import { count, type GlobalOptions, note, printJson, printLine } from '../../output.js';
import { bar } from '../report/chart.js';
import type { AnalyticsFlags } from './index.js';

const MONEY = new Set(['revenue', 'commissions']);
const MIN_BAR = 10;

/** Labels and values to draw: one per point, or one per group over the range. */
function rowsOf(answer: Analytics, metric: AnalyticsFlags['metric'], grouped: boolean): [string, number][] {
  const value = (point: Partial<Record<string, number | string>>) => Number(point[metric] ?? 0);
  if (grouped) {
    return answer.series.map((series) => [
      series.group === null || series.group === '' ? '(none)' : series.group,
      series.points.reduce((sum, point) => sum + value(point), 0),
    ]);
  }
  const points = answer.series[0]?.points ?? [];
  const label = (start: string) =>
    answer.interval === 'hour'
      ? start.slice(0, 16).replace('T', ' ')
      : answer.interval === 'day'
        ? start.slice(0, 10)
        : start.slice(0, 7);
  return points.map((point) => [label(point.start), value(point)]);
}

/** `analytics`: the series as bars (a label, the value, a bar scaled to the largest), or `--json`. */
export async function analytics(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: AnalyticsFlags,
): Promise<void> {
  const answer = await client.analytics.series({
    query: {
      metrics: flags.metric,
      interval: flags.interval,
      from: flags.from,
      to: flags.to,
      timezone: flags.timezone,
      groupBy: flags.groupBy,
    },
  });
  if (options.json) return printJson(io, answer);
  const currency = MONEY.has(flags.metric) ? await campaignCurrency(client) : undefined;
  const text = (n: number) => (currency === undefined ? count(n) : amountCell(n, currency, 'csv'));
  const rows = rowsOf(answer, flags.metric, flags.groupBy !== undefined);
  const labelWidth = Math.max(0, ...rows.map(([label]) => label.length));
  const valueWidth = Math.max(0, ...rows.map(([, value]) => text(value).length));
  const columns = io.stdout.isTTY ? ((io.stdout as { columns?: number }).columns ?? 80) : 80;
  const width = Math.max(MIN_BAR, columns - labelWidth - valueWidth - 4);
  const max = Math.max(0, ...rows.map(([, value]) => value));
  for (const [label, value] of rows) {
    printLine(
      io,
      `${label.padEnd(labelWidth)}  ${text(value).padStart(valueWidth)}  ${bar(value, max, width)}`.trimEnd(),
    );
  }
  const total = answer.totals[flags.metric] ?? 0;
  note(
    io,
    `${flags.metric} ${answer.from} to ${answer.to} (${answer.timezone}): ${text(Number(total))}${currency ? ` ${currency}` : ''}`,
  );
}

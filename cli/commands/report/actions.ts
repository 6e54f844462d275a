import type { ApiClient } from '../../../shared/client/index.js';
import { affiliateReportQuerySchema } from '../../../shared/schemas/report.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { type GlobalOptions, note, printJson, printLine } from '../../output.js';
import { renderReport } from './chart.js';

export interface ReportFlags {
  from?: string;
  to?: string;
}

/** `report`: per-affiliate activity of the key's campaign, as a table (with bars on a terminal) or JSON. */
export async function report(io: Io, client: ApiClient, options: GlobalOptions, flags: ReportFlags): Promise<void> {
  for (const name of ['from', 'to'] as const) {
    const value = flags[name];
    if (value !== undefined && !affiliateReportQuerySchema.shape[name].safeParse(value).success) {
      throw new UsageError(`--${name} must be a date like 2026-11-01 (or an ISO 8601 date-time)`);
    }
  }
  const answer = await client.reports.affiliates({ query: { from: flags.from, to: flags.to } });
  if (options.json) return printJson(io, answer);
  const columns = (io.stdout as { columns?: number }).columns;
  const terminal = io.stdout.isTTY ? { columns: columns ?? 100 } : undefined;
  for (const line of renderReport(answer, terminal)) printLine(io, line);
  const count = answer.affiliates.length;
  note(
    io,
    `${answer.from} to ${answer.to} (UTC days, both included): ` +
      (count === 0 ? 'no activity' : `${count} affiliate${count === 1 ? '' : 's'} with activity`),
  );
}

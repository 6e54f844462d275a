import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import type { GlobalOptions } from '../../output.js';

/** `affiliated report`: GET /v1/reports/affiliates for the key's campaign. */
export function registerReport(program: Command, io: Io): void {
  withExamples(
    program
      .command('report')
      .description('page views, leads, conversions, revenue and commissions per affiliate')
      .option('--from <date>', 'first day, YYYY-MM-DD in UTC (default: 29 days before --to)')
      .option('--to <date>', 'last day, YYYY-MM-DD in UTC (default: today)'),
    [
      'report',
      'report --from 2026-11-01 --to 2026-11-30',
      "report --json | jq '.affiliates[] | {referralId, revenue}'",
    ],
  ).action(async (flags: { from?: string; to?: string }) => {
    const [{ report }, { connect }] = await Promise.all([import('./actions.js'), import('../../client.js')]);
    const globals: GlobalOptions = program.opts();
    return report(io, await connect(io, globals), globals, flags);
  });
}

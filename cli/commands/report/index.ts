import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { outputOption } from '../../options.js';

/** `affiliated report`: GET /v1/reports/affiliates for the key's campaign. */
export function registerReport(program: Command, io: Io): void {
  const run = clientCommand(program, io, () => import('./actions.js'));
  withExamples(
    outputOption(
      program
        .command('report')
        .description('page views, leads, conversions, revenue and commissions per affiliate')
        .option('--from <date>', 'first day, YYYY-MM-DD in UTC, included (default: 29 days before --to)')
        .option('--to <date>', 'last day, YYYY-MM-DD in UTC, included (default: today)'),
    ),
    [
      'report',
      'report --from 2026-11-01 --to 2026-11-30   # November, both days included',
      'report --from 2026-11-01 --to 2026-11-30 --output csv > november.csv',
      "report --json | jq '.affiliates[] | {referralId, revenue}'",
    ],
    'RATE is conversions per page view the tracking tag counted; "-" where that means nothing.',
  ).action((flags: { from?: string; to?: string; output?: 'table' | 'csv' }) =>
    run((a, client, globals) => a.report(io, client, globals, flags)),
  );
}

import { type Command, InvalidArgumentError } from 'commander';
import { CONVERSION_STATUSES, ISO_INSTANT } from '../../vocabulary.js';
import type { Io } from '../../io.js';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import { choice, outputOption, pagingOptions, wholeNumber } from '../../options.js';

/** `2026-11-01` or an ISO 8601 date-time, as the API takes it. */
export function dateOption(value: string): string {
  if (!ISO_INSTANT.test(value)) {
    throw new InvalidArgumentError('It must be an ISO 8601 date (2026-11-01) or date-time (2026-11-01T12:00:00Z).');
  }
  return value;
}

/** Client commands for the conversion lifecycle (docs/payouts.md). */
export function registerConversions(program: Command, io: Io): void {
  const conversions = withExamples(
    program.command('conversions').description('list, approve and reject conversions through the API'),
    [
      'conversions list --status pending',
      'conversions approve 101 102',
      'conversions approve --all-pending --before 2026-11-01',
    ],
  );
  const run = clientCommand(program, io, () => import('./actions.js'));
  const ids = (value: string, previous: number[] = []) => [...previous, wholeNumber(1)(value)];

  withExamples(
    outputOption(
      pagingOptions(
        conversions
          .command('list')
          .description('list conversions, newest first')
          .addOption(choice('--status <status>', 'only this status', CONVERSION_STATUSES))
          .option('--affiliate <id>', 'only this affiliate’s', wholeNumber(1))
          .option('--order-id <id>', 'the conversion of this order')
          .option('--from <date>', 'arrived on or after this day (UTC) or date-time', dateOption)
          .option('--to <date>', 'arrived on or before this day (UTC; the whole day) or date-time', dateOption)
          .addOption(choice('--kind <kind>', 'sales, or second-tier commissions', ['sale', 'second_tier']))
          .option(
            '--flagged',
            'only conversions with a fraud flag (self_referral): the hold period never approves them',
          ),
      ).option('--all', 'follow every page and print them all'),
    ),
    [
      'conversions list --status pending --from 2026-11-01 --to 2026-11-30   # November, both days included',
      'conversions list --affiliate 42 --all --output csv > conversions.csv',
      'conversions list --flagged --status pending',
    ],
  ).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  withExamples(
    conversions.command('get').description('show one conversion').argument('<id>', 'conversion id', wholeNumber(1)),
    ['conversions get 101', 'conversions get 101 --json'],
  ).action((id: number) => run((a, client, globals) => a.get(io, client, globals, id)));
  for (const [verb, status] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    const command = conversions
      .command(verb)
      .description(
        verb === 'approve'
          ? 'approve pending conversions, by id or all pending ones'
          : 'reject conversions (pending, or approved and in no payout), by id or all pending ones',
      )
      .argument('[ids...]', 'conversion ids', ids)
      .option('--all-pending', 'every pending conversion (a thousand per request)')
      .option('--before <date>', 'with --all-pending: only those that arrived before this date (ISO 8601)', dateOption);
    withExamples(command, [
      `conversions ${verb} 101 102 103`,
      `conversions ${verb} --all-pending --before 2026-11-01`,
    ]).action((given: number[], flags) =>
      run((a, client, globals) => a.move(io, client, globals, status, given, flags)),
    );
  }
}

import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice, outputOption, pagingOptions, wholeNumber } from '../../options.js';
import { PAYOUT_RAIL_NAMES, PAYOUT_STATUSES } from '../../vocabulary.js';

/** Client commands for payouts (docs/payouts.md). */
export function registerPayouts(program: Command, io: Io): void {
  const payouts = withExamples(program.command('payouts').description('pay affiliates through the API'), [
    'payouts create --all',
    'payouts export --output payouts.csv',
    'payouts send 7',
    'payouts run --dry-run',
    'payouts mark-paid 7',
  ]);
  const run = clientCommand(program, io, () => import('./actions.js'));
  const runs = clientCommand(program, io, () => import('./run.js'));

  withExamples(
    outputOption(
      pagingOptions(
        payouts
          .command('list')
          .description('list payouts, newest first')
          .option('--affiliate <id>', 'only this affiliate’s', wholeNumber(1))
          .addOption(choice('--status <status>', 'only this status', PAYOUT_STATUSES)),
      ).option('--all', 'follow every page and print them all'),
    ),
    ['payouts list --status pending', 'payouts list --affiliate 42 --all --output csv'],
  ).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  withExamples(payouts.command('get').description('show one payout').argument('<id>', 'payout id', wholeNumber(1)), [
    'payouts get 7',
  ]).action((id: number) => run((a, client, globals) => a.get(io, client, globals, id)));
  withExamples(
    payouts
      .command('create')
      .description('pay an affiliate (or every affiliate) the approved commissions not yet in a payout, less clawbacks')
      .option('--affiliate <id>', 'this affiliate', wholeNumber(1))
      .option('--all', 'every affiliate with approved commission to pay'),
    ['payouts create --affiliate 42', 'payouts create --all'],
  ).action((flags) => run((a, client, globals) => a.create(io, client, globals, flags)));
  for (const [verb, to] of [
    ['mark-paid', 'paid'],
    ['mark-failed', 'failed'],
  ] as const) {
    withExamples(
      payouts
        .command(verb)
        .description(
          to === 'paid'
            ? 'record that a pending payout was transferred: its conversions become paid'
            : 'record that a pending payout did not go through: its conversions wait for a later payout',
        )
        .argument('<id>', 'payout id', wholeNumber(1)),
      [`payouts ${verb} 7`],
    ).action((id: number) => run((a, client, globals) => a.settle(io, client, globals, id, to)));
  }
  withExamples(
    payouts
      .command('send')
      .description(
        'pay a pending payout on the rail of the affiliate’s payout details (Pix, PayPal or Stripe): it becomes processing, then paid or failed as the provider says',
      )
      .argument('<id>', 'payout id', wholeNumber(1)),
    ['payouts send 7', 'payouts send 7 --json | jq .reference'],
  ).action((id: number) => run((a, client, globals) => a.send(io, client, globals, id)));
  withExamples(
    payouts
      .command('run')
      .description(
        'pay every affiliate whose approved balance reaches the payout minimum, on the rail of their payout details; lists who is left out and why',
      )
      .option('--dry-run', 'show who would be paid and who is left out; create nothing')
      .addOption(choice('--rail <rail>', 'only the affiliates paid on this rail', PAYOUT_RAIL_NAMES))
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['payouts run --dry-run', 'payouts run --rail pix', 'payouts run --yes --json | jq .total'],
    'A run above the campaign’s approval threshold (`campaigns update --payout-approval-above`) waits for a second\n' +
      'owner or admin to approve it on the dashboard’s payouts page (docs/payouts.md#payout-runs).',
  ).action((flags) => runs((a, client, globals) => a.run(io, client, globals, flags)));
  withExamples(
    payouts
      .command('export')
      .description('the payouts of a status as a file for a bank or PayPal mass payment')
      .addOption(choice('--status <status>', 'payouts of this status', PAYOUT_STATUSES, 'pending'))
      .addOption(choice('--format <format>', 'file format', ['csv', 'json'], 'csv'))
      .option('--output <file>', 'write to this file instead of stdout'),
    ['payouts export --status pending --format csv --output payouts.csv', 'payouts export --format json | jq length'],
    'Columns: payout_id, affiliate_id, name, email, payout_method, pix_key_type, payout_account, amount, currency, rail, reference, receipt, failure_reason, commission_rules.',
  ).action((flags) => run((a, client, globals) => a.exportPayouts(io, client, globals, flags)));
}

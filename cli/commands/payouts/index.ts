import type { Command } from 'commander';
import type { ApiClient } from '../../../shared/client/index.js';
import { PAYOUT_STATUSES } from '../../../shared/schemas/payout.js';
import type { Io } from '../../io.js';
import { oneOf, wholeNumber } from '../../options.js';
import type { GlobalOptions } from '../../output.js';
import type * as Actions from './actions.js';

/** Client commands for payouts (docs/payouts.md). */
export function registerPayouts(program: Command, io: Io): void {
  const payouts = program.command('payouts').description('pay affiliates through the API');
  const run = async (
    work: (actions: typeof Actions, client: ApiClient, globals: GlobalOptions) => Promise<void>,
  ) => {
    const [actions, { connect }] = await Promise.all([import('./actions.js'), import('../../client.js')]);
    const globals: GlobalOptions = program.opts();
    return work(actions, await connect(io, globals), globals);
  };
  const status = oneOf(PAYOUT_STATUSES);

  payouts
    .command('list')
    .description('list payouts, newest first')
    .option('--affiliate <id>', 'only this affiliate’s', wholeNumber(1))
    .option('--status <status>', `only this status (${PAYOUT_STATUSES.join(', ')})`, status)
    .option('--page <n>', 'page number (from 1)', wholeNumber(1))
    .option('--limit <n>', 'page size, 1 to 100 (default 50)', wholeNumber(1))
    .action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  payouts
    .command('get')
    .description('show one payout')
    .argument('<id>', 'payout id', wholeNumber(1))
    .action((id: number) => run((a, client, globals) => a.get(io, client, globals, id)));
  payouts
    .command('create')
    .description(
      'pay an affiliate (or every affiliate) the approved commissions not yet in a payout, less clawbacks',
    )
    .option('--affiliate <id>', 'this affiliate', wholeNumber(1))
    .option('--all', 'every affiliate with approved commission to pay')
    .addHelpText(
      'after',
      '\nExamples:\n  $ affiliated payouts create --affiliate 42\n  $ affiliated payouts create --all',
    )
    .action((flags) => run((a, client, globals) => a.create(io, client, globals, flags)));
  for (const [verb, to] of [
    ['mark-paid', 'paid'],
    ['mark-failed', 'failed'],
  ] as const) {
    payouts
      .command(verb)
      .description(
        to === 'paid'
          ? 'record that a pending payout was transferred: its conversions become paid'
          : 'record that a pending payout did not go through: its conversions wait for a later payout',
      )
      .argument('<id>', 'payout id', wholeNumber(1))
      .action((id: number) => run((a, client, globals) => a.settle(io, client, globals, id, to)));
  }
  payouts
    .command('export')
    .description('the payouts of a status as a file for a bank or PayPal mass payment')
    .option('--status <status>', `payouts of this status (${PAYOUT_STATUSES.join(', ')})`, status, 'pending')
    .option('--format <format>', 'csv or json', oneOf(['csv', 'json'] as const), 'csv')
    .option('--output <file>', 'write to this file instead of stdout')
    .addHelpText(
      'after',
      '\nColumns: payout_id, affiliate_id, name, email, amount, currency.\n' +
        '\nExample:\n  $ affiliated payouts export --status pending --format csv --output payouts.csv',
    )
    .action((flags) => run((a, client, globals) => a.exportPayouts(io, client, globals, flags)));
}

import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { outputOption, wholeNumber } from '../../options.js';

/** `refunds create ORDER_ID`, `refunds list` (docs/payouts.md). */
export function registerRefunds(program: Command, io: Io): void {
  const refunds = withExamples(
    program.command('refunds').description('refund orders, and list refunds and clawbacks'),
    ['refunds create 1001 --reason "chargeback"', 'refunds list --clawbacks'],
  );
  const run = clientCommand(program, io, () => import('./actions.js'));
  withExamples(
    refunds
      .command('create')
      .description(
        'refund an order, in full or in part: its commission is taken back or lowered, and what was paid out of it clawed back',
      )
      .argument('<order-id>', 'the order_id the conversion arrived with')
      .option('--reason <text>', 'why (kept with the conversion)')
      .option(
        '--amount <x>',
        "refund only this much of the order, in the campaign's currency (default: the whole order)",
      )
      .option('--refund-id <id>', 'your id for this refund: sent again, it changes nothing'),
    [
      'refunds create 1001 --reason "chargeback"',
      'refunds create 1001 --amount 50 --refund-id re_1002 --reason "one item returned"',
    ],
  ).action((orderId: string, flags: { reason?: string; amount?: string; refundId?: string }) =>
    run((a, client, globals) => a.create(io, client, globals, orderId, flags)),
  );
  withExamples(
    outputOption(
      refunds
        .command('list')
        .description('list refunded orders, newest first, with the clawbacks they recorded (every page)')
        .option('--affiliate <id>', 'only this affiliate’s', wholeNumber(1))
        .option('--clawbacks', 'only refunds whose commission was in a payout: the clawbacks'),
    ),
    ['refunds list', 'refunds list --clawbacks --affiliate 42', 'refunds list --output csv > refunds.csv'],
  ).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
}

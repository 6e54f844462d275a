import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';

/** `refunds create ORDER_ID` (docs/payouts.md). */
export function registerRefunds(program: Command, io: Io): void {
  const refunds = program.command('refunds').description('refund orders through the API');
  const run = clientCommand(program, io, () => import('./actions.js'));
  withExamples(
    refunds
      .command('create')
      .description('refund an order: its conversion is rejected, and a commission already paid out is clawed back')
      .argument('<order-id>', 'the order_id the conversion arrived with')
      .option('--reason <text>', 'why (kept with the conversion)'),
    ['refunds create 1001 --reason "chargeback"'],
  ).action((orderId: string, flags: { reason?: string }) =>
    run((a, client, globals) => a.create(io, client, globals, orderId, flags)),
  );
}

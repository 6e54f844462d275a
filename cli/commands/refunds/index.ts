import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import type { GlobalOptions } from '../../output.js';

/** `refunds create ORDER_ID` (docs/payouts.md). */
export function registerRefunds(program: Command, io: Io): void {
  const refunds = program.command('refunds').description('refund orders through the API');
  withExamples(
    refunds
      .command('create')
      .description('refund an order: its conversion is rejected, and a commission already paid out is clawed back')
      .argument('<order-id>', 'the order_id the conversion arrived with')
      .option('--reason <text>', 'why (kept with the conversion)'),
    ['refunds create 1001 --reason "chargeback"'],
  ).action(async (orderId: string, flags: { reason?: string }) => {
    const [actions, { connect }] = await Promise.all([import('./actions.js'), import('../../client.js')]);
    const globals: GlobalOptions = program.opts();
    return actions.create(io, await connect(io, globals), globals, orderId, flags);
  });
}

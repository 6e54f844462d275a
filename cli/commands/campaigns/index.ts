import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { decimalNumber, wholeNumber } from '../../options.js';

export function registerCampaigns(program: Command, io: Io): void {
  const campaigns = program.command('campaigns').description('campaigns (operator)');
  campaigns
    .command('create')
    .description('create a campaign')
    .requiredOption('--name <name>', 'campaign name')
    .option('--plan <plan>', 'plan name (see `affiliated plans list`)', 'free')
    .option('--public-id <id>', 'public id that events send as campaign_id (default: generated)')
    .option(
      '--commission-percent <x>',
      'commission as a percentage of the order value (default 10)',
      decimalNumber,
    )
    .option('--commission-fixed <x>', 'fixed commission in BRL per conversion', decimalNumber)
    .option('--cookie-days <n>', 'referral cookie lifetime in days', wholeNumber(1), 30)
    .addHelpText(
      'after',
      '\nExample:\n  $ affiliated campaigns create --name "Spring sale" --plan starter --commission-percent 12.5 --json',
    )
    .action(async (options) => (await import('./actions.js')).create(io, { ...program.opts(), ...options }));
  campaigns
    .command('list')
    .description('list campaigns')
    .action(async () => (await import('./actions.js')).list(io, program.opts()));
  campaigns
    .command('get')
    .description('show one campaign with its limits and this month’s usage')
    .argument('<id>', 'campaign id or public id')
    .action(async (id: string) => (await import('./actions.js')).get(io, program.opts(), id));
}

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { withExamples } from '../../help.js';
import { outputOption, wholeNumber } from '../../options.js';

export function registerPlans(program: Command, io: Io): void {
  const plans = program.command('plans').description('plans and their limits (operator)');
  withExamples(
    plans
      .command('create')
      .description('add a plan; a limit left out is unlimited')
      .requiredOption('--name <name>', 'unique plan name')
      .option('--max-affiliates <n>', 'affiliates a campaign may have', wholeNumber(0))
      .option(
        '--max-monthly-conversions <n>',
        'conversions a campaign may record per calendar month (UTC)',
        wholeNumber(0),
      ),
    ['plans create --name growth --max-affiliates 500 --max-monthly-conversions 5000'],
  ).action(async (options) => (await import('./actions.js')).create(io, { ...program.opts(), ...options }));
  withExamples(outputOption(plans.command('list').description('list plans and their limits')), [
    'plans list',
    'plans list --output csv',
  ]).action(async (options) => (await import('./actions.js')).list(io, { ...program.opts(), ...options }));
}

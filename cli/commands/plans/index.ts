import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { withExamples } from '../../help.js';
import { outputOption, planName, wholeNumber } from '../../options.js';
import { OPERATOR_LIMITS } from '../../vocabulary.js';

export function registerPlans(program: Command, io: Io): void {
  const plans = withExamples(program.command('plans').description('plans and their limits (operator)'), [
    'plans list',
    'plans create --name growth --max-affiliates 500 --max-monthly-conversions 5000',
  ]);
  withExamples(
    plans
      .command('create')
      .description('add a plan; a limit left out is unlimited')
      .requiredOption(
        '--name <name>',
        `unique plan name, 1 to ${OPERATOR_LIMITS.planName} letters, digits, - or _`,
        planName,
      )
      .option('--max-affiliates <n>', 'affiliates a campaign may have', wholeNumber(0, OPERATOR_LIMITS.planLimit))
      .option(
        '--max-monthly-conversions <n>',
        'conversions a campaign may record per calendar month (UTC)',
        wholeNumber(0, OPERATOR_LIMITS.planLimit),
      ),
    ['plans create --name growth --max-affiliates 500 --max-monthly-conversions 5000'],
  ).action(async (options) => (await import('./actions.js')).create(io, { ...program.opts(), ...options }));
  withExamples(outputOption(plans.command('list').description('list plans and their limits')), [
    'plans list',
    'plans list --output csv',
  ]).action(async (options) => (await import('./actions.js')).list(io, { ...program.opts(), ...options }));
}

import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice, outputOption, wholeNumber } from '../../options.js';
import { DASHBOARD_ROLES } from '../../vocabulary.js';

/** The merchant dashboard's users (docs/dashboard.md): the operator makes the first owner. */
export function registerUsers(program: Command, io: Io): void {
  const users = withExamples(
    program.command('users').description('merchant dashboard users (operator): owners, admins, viewers'),
    [
      'users create --campaign spring-sale --email ana@shop.example --role owner',
      'users list --campaign spring-sale',
      'users reset-2fa 3',
    ],
  );
  withExamples(
    users
      .command('create')
      .description('add a dashboard user and print a one-time set-up link (valid 24 hours)')
      .requiredOption('--campaign <id>', 'campaign id or public id')
      .requiredOption('--email <email>', 'the person’s e-mail; it is their log-in')
      .addOption(choice('--role <role>', 'what the user may do', DASHBOARD_ROLES, 'owner')),
    ['users create --campaign spring-sale --email ana@shop.example --role owner'],
  ).action(async (options) => (await import('./actions.js')).create(io, { ...program.opts(), ...options }));
  withExamples(
    outputOption(
      users
        .command('list')
        .description('list dashboard users: e-mail, role, whether the password and second factor are set')
        .option('--campaign <id>', 'only the users of this campaign (id or public id)'),
    ),
    ['users list', 'users list --campaign spring-sale --json'],
  ).action(async (options) => (await import('./actions.js')).list(io, { ...program.opts(), ...options }));
  withExamples(
    users
      .command('remove')
      .description('remove a dashboard user; their sessions end at once')
      .argument('<userId>', 'the user’s id (see `affiliated users list`)', wholeNumber(1)),
    ['users remove 3'],
  ).action(async (userId: number, options) =>
    (await import('./actions.js')).remove(io, { ...program.opts(), ...options }, userId),
  );
  withExamples(
    users
      .command('reset-2fa')
      .description('clear a user’s second factor (TOTP, recovery codes, passkeys); they enrol again at the next log-in')
      .argument('<userId>', 'the user’s id (see `affiliated users list`)', wholeNumber(1)),
    ['users reset-2fa 3'],
  ).action(async (userId: number, options) =>
    (await import('./actions.js')).resetTwoFactor(io, { ...program.opts(), ...options }, userId),
  );
}

import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice, outputOption, wholeNumber } from '../../options.js';
import { MAIL_STATUSES } from '../../vocabulary.js';

export function registerMail(program: Command, io: Io): void {
  const mail = program.command('mail').description('the e-mail the daemon sends (operator)');
  withExamples(
    outputOption(
      mail
        .command('list')
        .description('recent mails and their delivery state (never their text or links)')
        .addOption(choice('--status <status>', 'only this state', MAIL_STATUSES))
        .option('--campaign <id>', 'only this campaign (id or public id)')
        .option('--limit <n>', 'how many, newest first', wholeNumber(1, 1000), 50),
    ),
    ['mail list', 'mail list --status failed', 'mail list --campaign spring-sale --json'],
    'Mails are sent only when SMTP_URL and MAIL_FROM are set: see docs/portal.md#e-mail.',
  ).action(async (options) => (await import('./actions.js')).list(io, { ...program.opts(), ...options }));
  withExamples(
    mail
      .command('retry')
      .description('send a failed mail again: it is due now, for one attempt more')
      .argument('<id>', 'the mail’s id (mail list --status failed)', wholeNumber(1)),
    ['mail retry 42'],
    'A daemon with SMTP_URL set sends it at its next poll (MAIL_POLL_MS).',
  ).action(async (id: number) => (await import('./actions.js')).retry(io, program.opts(), id));
}

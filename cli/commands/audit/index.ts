import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice, outputOption, pagingOptions } from '../../options.js';
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES } from '../../vocabulary.js';
import { dateOption } from '../conversions/index.js';

/** Client commands for the audit log (docs/audit.md). */
export function registerAudit(program: Command, io: Io): void {
  const audit = program.command('audit').description('who changed what in the campaign, when and from where');
  const run = clientCommand(program, io, () => import('./actions.js'));

  withExamples(
    outputOption(
      pagingOptions(
        audit
          .command('list')
          .description('list the changes made to the campaign, newest first')
          .addOption(choice('--action <action>', 'only this action', AUDIT_ACTIONS))
          .addOption(
            choice(
              '--actor <type>',
              'only changes by a key, the operator, a user or scheduled work',
              AUDIT_ACTOR_TYPES,
            ),
          )
          .addOption(choice('--target-type <type>', 'only changes to this kind of thing', AUDIT_TARGET_TYPES))
          .option('--target <id>', 'with --target-type: only changes to this one (an id, or a provider)')
          .option('--from <date>', 'made on or after this day (UTC) or date-time', dateOption)
          .option('--to <date>', 'made on or before this day (UTC; the whole day) or date-time', dateOption),
      ).option('--all', 'follow every page and print them all'),
    ),
    [
      'audit list',
      'audit list --action affiliate.delete --from 2026-11-01 --to 2026-11-30',
      'audit list --target-type affiliate --target 42 --json',
      'audit list --actor operator --all --output csv > audit.csv',
    ],
    'Keys are named by their id and prefix (keys list), never in full; no secret, password or e-mail is kept.',
  ).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
}

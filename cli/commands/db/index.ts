import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';

export function registerDb(program: Command, io: Io): void {
  const db = withExamples(
    program.command('db').description('database schema and copies: migrate, rollback, status, backup, restore'),
    ['db migrate', 'db status', 'db backup affiliated.backup.gz'],
  );
  withExamples(
    db
      .command('migrate')
      .description('apply pending migrations (creates the SQLite file if there is none)')
      .option('--contract', 'also apply contract steps: only once no daemon of the previous release runs'),
    ['db migrate', 'DATABASE_URL=mysql://app:secret@db:3306/affiliated db migrate', 'db migrate --contract'],
  ).action(async (flags: { contract?: boolean }) =>
    (await import('./actions.js')).migrate(io, { ...program.opts(), contract: flags.contract }),
  );
  withExamples(db.command('rollback').description('undo the last batch of migrations'), ['db rollback']).action(
    async () => (await import('./actions.js')).rollback(io, program.opts()),
  );
  withExamples(db.command('status').description('list applied and pending migrations'), [
    'db status',
    'db status --json',
  ]).action(async () => (await import('./actions.js')).status(io, program.opts()));
  withExamples(
    db
      .command('backup')
      .description('write a consistent copy of the whole database to FILE while daemons run')
      .argument('<file>', 'the backup file to write (gzip; refused if it exists)'),
    ['db backup /var/backups/affiliated-2026-11-27.backup.gz'],
  ).action(async (file: string) => (await import('./backup.js')).backup(io, file, program.opts()));
  withExamples(
    db
      .command('restore')
      .description('restore a backup into an empty database, then apply this build’s later migrations')
      .argument('<file>', 'a file written by `affiliated db backup`'),
    ['DATABASE_URL=sqlite:/srv/new/affiliated.sqlite3 db restore affiliated.backup.gz'],
  ).action(async (file: string) => (await import('./backup.js')).restore(io, file, program.opts()));
}

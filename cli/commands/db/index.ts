import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';

export function registerDb(program: Command, io: Io): void {
  const db = withExamples(program.command('db').description('database schema: migrate, rollback, status'), [
    'db migrate',
    'db status',
  ]);
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
}

import type { Command } from 'commander';
import type { Io } from '../../io.js';

export function registerDb(program: Command, io: Io): void {
  const db = program.command('db').description('database schema: migrate, rollback, status');
  db.command('migrate')
    .description('apply pending migrations')
    .action(async () => (await import('./actions.js')).migrate(io, program.opts()));
  db.command('rollback')
    .description('undo the last batch of migrations')
    .action(async () => (await import('./actions.js')).rollback(io, program.opts()));
  db.command('status')
    .description('list applied and pending migrations')
    .action(async () => (await import('./actions.js')).status(io, program.opts()));
}

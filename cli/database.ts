import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config, DatabaseConfig } from '../server/config.js';
import { CommandFailed } from './errors.js';
import type { Io } from './io.js';
import { note } from './output.js';

/** The database as a person recognises it, never with a password: a file path, or mysql://host/db. */
export function databaseLabel(database: DatabaseConfig): string {
  if (database.client === 'sqlite') {
    return database.filename === ':memory:' ? 'SQLite in memory' : `SQLite ${relative(database.filename)}`;
  }
  return `MySQL ${database.host}/${database.database}`;
}

function relative(file: string): string {
  const shown = path.relative(process.cwd(), file);
  return shown.startsWith('..') || path.isAbsolute(shown) ? file : `./${shown}`;
}

/**
 * Operator commands run from another folder would silently open a new, empty SQLite file and
 * hand out keys the running daemon does not know. So with DATABASE_URL unset and no file at the
 * default path, only the commands that set a database up (`serve`, `db migrate`, `init`) go
 * on, and say they created it; the others refuse and say how to reach the right one. An explicit
 * DATABASE_URL is taken as given.
 */
export function checkDatabase(io: Io, config: Readonly<Config>, mayCreate: boolean): void {
  const { database } = config;
  if (database.client !== 'sqlite' || database.filename === ':memory:' || existsSync(database.filename)) return;
  const explicit = (io.env.DATABASE_URL ?? '').trim() !== '';
  if (!explicit && !mayCreate) {
    throw new CommandFailed(`No database at ${database.filename}.`, [
      'DATABASE_URL is not set, so the default ./data/affiliated.sqlite3 of this folder was looked for.',
      'Run the command from the folder the daemon runs in, or set DATABASE_URL to the daemon’s database,',
      'e.g. DATABASE_URL=sqlite:/srv/affiliated/data/affiliated.sqlite3 or mysql://user:pass@host:3306/db',
      '(a .env file in the working directory is read too). `affiliated db migrate` creates a new one here.',
    ]);
  }
  note(io, `Created a new SQLite database at ${database.filename}.`);
}

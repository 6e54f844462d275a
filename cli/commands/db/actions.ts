import type { Io } from '../../io.js';
import { migrateToLatest, migratorConfig } from '../../../server/db/migrate.js';
import { CONTRACT_MIGRATIONS } from '../../../server/db/migrations/index.js';
import { withDatabase } from '../../operator.js';
import { type GlobalOptions, plural, printJson, printLine, printTable } from '../../output.js';

interface MigrationFile {
  file: string;
}
type MigrationList = [Array<MigrationFile | { name: string }>, MigrationFile[] | string[]];

const nameOf = (m: MigrationFile | { name: string } | string) =>
  typeof m === 'string' ? m : 'file' in m ? m.file : m.name;

/**
 * Expand steps only, as a daemon's start applies them; with `contract`, the contract steps too,
 * once no daemon of the previous release runs (docs/operations.md, "Upgrades").
 */
export async function migrate(io: Io, options: GlobalOptions & { contract?: boolean }): Promise<void> {
  const applied = await withDatabase(io, { json: options.json, migrate: false, create: true }, (db) =>
    migrateToLatest(db, { contract: options.contract === true }),
  );
  if (options.json) return printJson(io, { applied });
  printLine(
    io,
    applied.length ? `Applied ${plural(applied.length, 'migration')}: ${applied.join(', ')}` : 'Already up to date.',
  );
}

export async function rollback(io: Io, options: GlobalOptions): Promise<void> {
  const [batch, undone] = await withDatabase(
    io,
    { json: options.json, migrate: false },
    async (db) => db.migrate.rollback(await migratorConfig(db, false)) as Promise<[number, string[]]>,
  );
  if (options.json) return printJson(io, { batch, rolledBack: undone });
  printLine(
    io,
    undone.length ? `Rolled back ${plural(undone.length, 'migration')}: ${undone.join(', ')}` : 'Nothing to roll back.',
  );
}

export async function status(io: Io, options: GlobalOptions): Promise<void> {
  const [done, pending] = await withDatabase(
    io,
    { json: options.json, migrate: false },
    async (db) => db.migrate.list(await migratorConfig(db, true)) as Promise<MigrationList>,
  );
  const applied = done.map(nameOf);
  const waiting = pending.map(nameOf);
  if (options.json) return printJson(io, { applied, pending: waiting });
  const state = (name: string) =>
    CONTRACT_MIGRATIONS.has(name) ? 'pending (contract: db migrate --contract)' : 'pending';
  printTable(
    io,
    ['migration', 'state'],
    [...applied.map((name) => [name, 'applied']), ...waiting.map((name) => [name, state(name)])],
  );
}

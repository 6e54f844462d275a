import type { Knex } from 'knex';
import { StartupError } from '../errors.js';
import { type Db, isRetryableTxError, retryDelayMs } from './knex.js';
import { KNOWN_MIGRATIONS, migrationSourceFor } from './migrations/index.js';

/** How long a start waits for another daemon's migrations (or for conflicts to pass) before giving up. */
const WAIT_MS = 60_000;

/** Another process holds knex's migration lock, or took it first: knex says both this way. */
const isLockHeld = (err: unknown) => err instanceof Error && err.name === 'MigrationLocked';
/** Two daemons created knex's own tables at once on a new database: the slower one is refused. */
const isTableCreatedMeanwhile = (err: unknown) =>
  (err as { code?: string } | undefined)?.code === 'ER_TABLE_EXISTS_ERROR';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lists pending migrations: reads only, except on a new database where knex creates its tables. */
async function pendingMigrations(db: Db, config: Knex.MigratorConfig): Promise<unknown[]> {
  const [, pending] = (await db.migrate.list(config)) as [unknown[], unknown[]];
  return pending;
}

const MIGRATIONS_TABLE = 'knex_migrations';

/** The migrations the database records as applied, in the order they were (none on a new database). */
export async function appliedMigrations(db: Db): Promise<string[]> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return [];
  return db(MIGRATIONS_TABLE).orderBy('id').pluck<string[]>('name');
}

/** The migrations to show knex for this database: its applied contract steps, and all others when `contract`. */
export async function migratorConfig(db: Db, contract: boolean): Promise<Knex.MigratorConfig> {
  const applied = new Set(await appliedMigrations(db));
  return { migrationSource: migrationSourceFor({ contract, applied }) };
}

/** The schema version this build was made for: its last migration. */
export const BUILD_SCHEMA = KNOWN_MIGRATIONS.at(-1) ?? '';

/**
 * A database a newer release has migrated may hold what this build does not know how to keep
 * (docs/operations.md, "Upgrades"), so a daemon or an operator command refuses it, in one line
 * naming both versions. Answers the applied migrations.
 */
export async function refuseNewerSchema(db: Db): Promise<string[]> {
  const applied = await appliedMigrations(db);
  const known = new Set(KNOWN_MIGRATIONS);
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new StartupError(
      `the database's schema is ${unknown.at(-1)}, newer than this build's ${BUILD_SCHEMA}: a newer release migrated it. Run that release (or newer) on it, or restore a backup made with this one`,
    );
  }
  return applied;
}

const LOCK_TABLE = 'knex_migrations_lock';

/**
 * Knex inserts its lock row when it finds the lock table empty, so two daemons that create a
 * new database's tables together may insert one each. With two rows, knex's lock (an UPDATE
 * that must change exactly one row) could never be taken again. Keeps the first row; only rows
 * not locked are removed, so a lock someone holds stays held. Answers whether it removed any.
 */
async function removeExtraLockRows(db: Db): Promise<boolean> {
  const rows = await db(LOCK_TABLE).orderBy('index').select<{ index: number }[]>('index');
  const [first, ...extra] = rows;
  if (!first || extra.length === 0) return false;
  return (await db(LOCK_TABLE).where('is_locked', 0).whereNot('index', first.index).delete()) > 0;
}

/**
 * Knex lists what is applied before it takes its lock, and reads the list again under the lock
 * only inside a wrapping transaction, which MySQL's DDL cannot keep (disableTransactions). A
 * daemon that listed while another was migrating would then apply the same migrations again
 * (a duplicate column). So, under the lock, before the batch: none of its migrations may be
 * recorded meanwhile; if one is, the step starts again and lists afresh.
 */
const APPLIED_MEANWHILE = 'migrations applied meanwhile by another daemon';

async function refuseAppliedMeanwhile(knex: Db, migrations: unknown[]): Promise<void> {
  const applied = new Set(await knex(MIGRATIONS_TABLE).pluck<string[]>('name'));
  if (migrations.some((name) => applied.has(String(name)))) throw new Error(APPLIED_MEANWHILE);
}

const isAppliedMeanwhile = (err: unknown) => err instanceof Error && err.message === APPLIED_MEANWHILE;

/**
 * Applies pending migrations, as the daemon and the operator commands do before anything else;
 * answers the names applied. Several daemons may start together on one database (the nodes
 * of a Galera cluster, a rolling deploy), so:
 * - with nothing pending it only reads the migrations table. Knex's lock is an UPDATE of one
 *   row: taken by every daemon at every start, on a cluster all but one would be refused;
 * - a lock another daemon holds or took first, a conflict while knex creates its own tables,
 *   are waited out (jittered, up to 60 s) and the step starts again: nothing was applied
 *   then. A migration that fails is not tried again: its error is thrown.
 */
export async function migrateToLatest(
  db: Db,
  options: { waitMs?: number; contract?: boolean } = {},
): Promise<string[]> {
  const waitMs = options.waitMs ?? WAIT_MS;
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    let waited: unknown;
    let config: Knex.MigratorConfig = {};
    try {
      const applied = new Set(await refuseNewerSchema(db));
      config = { migrationSource: migrationSourceFor({ contract: options.contract === true, applied }) };
      if ((await pendingMigrations(db, config)).length === 0) return [];
    } catch (err) {
      if (err instanceof StartupError) throw err;
      if (!isRetryableTxError(err) && !isTableCreatedMeanwhile(err)) throw err;
      waited = err;
    }
    if (waited === undefined) {
      try {
        const [, applied] = (await db.migrate.latest({ ...config, beforeAll: refuseAppliedMeanwhile })) as [
          number,
          string[],
        ];
        return applied;
      } catch (err) {
        if (isAppliedMeanwhile(err)) continue;
        if (!isLockHeld(err)) throw err;
        if (await removeExtraLockRows(db)) continue;
        waited = err;
      }
    }
    if (Date.now() >= deadline) throw stillWaiting(waited, waitMs);
    // A few quick tries for a conflict; then about a second at a time: another daemon is migrating.
    await sleep(attempt <= 4 ? retryDelayMs(attempt + 2) : 1000);
  }
}

function stillWaiting(err: unknown, waitMs: number): StartupError {
  const seconds = Math.round(waitMs / 1000);
  if (isLockHeld(err)) {
    return new StartupError(
      `the database's migration lock stayed taken for ${seconds} s: another daemon is applying migrations, or one stopped while applying them. Check with \`affiliated db status\`; if none is running, set knex_migrations_lock.is_locked to 0`,
    );
  }
  const code = (err as { code?: string }).code ?? 'conflict';
  return new StartupError(
    `migrations could not start for ${seconds} s: other daemons kept conflicting (${code}); start again`,
  );
}

import { type Config, loadConfig } from '../server/config.js';
import { createDb, type Db } from '../server/db/knex.js';
import { migrateToLatest } from '../server/db/migrate.js';
import type { Services } from '../server/services/index.js';
import { checkDatabase, databaseLabel } from './database.js';
import type { Io } from './io.js';
import { note } from './output.js';

export interface OperatorOptions {
  json?: boolean;
  /** Run pending migrations first (as the daemon does); default true. */
  migrate?: boolean;
  /** May create a new SQLite file at the default path (`db migrate`, `init`); default false. */
  create?: boolean;
}

/**
 * Operator commands act on the database directly, with the daemon's `DATABASE_URL` (and the
 * rest of its configuration) from the `Io`'s environment.
 * Pending migrations run first (as the daemon does), so a fresh install needs no extra step.
 * Human output names the database used, on stderr, so a wrong folder shows at once.
 */
export async function withDatabase<T>(
  io: Io,
  options: OperatorOptions,
  work: (db: Db, config: Readonly<Config>) => Promise<T>,
): Promise<T> {
  const config = loadConfig(io.env);
  checkDatabase(io, config, options.create === true);
  if (!options.json) note(io, `Database: ${databaseLabel(config.database)}`);
  const db = createDb(config.database);
  try {
    if (options.migrate !== false) await migrateToLatest(db);
    return await work(db, config);
  } finally {
    await db.destroy();
  }
}

/** The daemon's own services over that database, so operator commands apply the same rules. */
export async function withServices<T>(
  io: Io,
  options: OperatorOptions,
  work: (services: Services) => Promise<T>,
): Promise<T> {
  const [{ createServices }, { createLogger }, { actingAs, operatorActor }] = await Promise.all([
    import('../server/services/index.js'),
    import('../server/logger.js'),
    import('../server/services/audit.js'),
  ]);
  // The audit log names the operator by the shell's user: the only "who" a terminal gives.
  const operator = operatorActor(io.env.USER ?? io.env.LOGNAME);
  return withDatabase(io, options, (db, config) =>
    actingAs(operator, () => work(createServices({ db, config, logger: createLogger('silent') }))),
  );
}

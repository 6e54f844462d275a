import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createDb, type Db, isDatabaseUnavailable } from './db/knex.js';
import { openCountries } from './geoip.js';
import { migrateToLatest, refuseNewerSchema } from './db/migrate.js';
import { StartupError } from './errors.js';
import { createHttpServer } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics } from './metrics/metrics.js';
import { defineFixedWindowCommand } from './middleware/rateLimit.js';
import { createServices, type Services } from './services/index.js';
import { refuseKeyThatCannotOpen } from './services/webhooks/secretBox.js';

export interface Daemon {
  server: Server;
  url: string;
  db: Db;
  services: Services;
  /** Stops accepting, lets in-flight requests finish (bounded), stops workers, closes Redis and the pool. */
  close(): Promise<void>;
}

export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false });
  redis.on('error', () => {
    // ioredis reconnects by itself; failures surface on the commands that need it.
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    redis.disconnect();
    throw new StartupError('REDIS_URL: cannot reach Redis; check the URL and that the server runs');
  }
  defineFixedWindowCommand(redis);
  return redis;
}

/** Why the port could not be taken, and what to do about it. */
function listenProblem(config: Readonly<Config>, err: NodeJS.ErrnoException): string {
  const at = `cannot listen on ${config.host}:${config.port} (${err.code ?? err.message})`;
  if (err.code === 'EADDRINUSE') {
    return `${at}: another program listens there, perhaps a daemon already running (\`affiliated status\` asks it). Stop it, or choose another port: --port N or PORT=N`;
  }
  if (err.code === 'EACCES') {
    return `${at}: ports below 1024 need privileges. Choose a port from 1024 up: --port N or PORT=N`;
  }
  if (err.code === 'EADDRNOTAVAIL')
    return `${at}: no network interface of this machine has that address. Check --host or HOST`;
  return at;
}

/** What the URL decides: where to connect, as whom, which database or file. */
const DATABASE_URL_FAULTS = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
]);

/** A start-up that failed on the database, said as what to check: the URL only when it is the likely cause. */
function startupFailure(config: Readonly<Config>, err: unknown): StartupError {
  const where = config.database.client === 'sqlite' ? config.database.filename : config.database.host;
  const code = (err as { code?: string }).code;
  const at = `the database at ${where}${code ? ` (${code})` : ''}`;
  if (code === undefined || DATABASE_URL_FAULTS.has(code))
    return new StartupError(`cannot open ${at}: check DATABASE_URL`);
  if (isDatabaseUnavailable(err))
    return new StartupError(`cannot use ${at}: it is not ready to serve; start again once it is`);
  return new StartupError(`cannot apply migrations to ${at}: see the database server's log, then start again`);
}

/** config → database → app → listen. Migrations run first unless `migrate` is false. */
export async function startDaemon(
  config: Readonly<Config>,
  options: { migrate?: boolean; logger?: Logger; now?: () => Date } = {},
): Promise<Daemon> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // Before the database: a wrong path stops the start with nothing opened.
  const countryOf = config.geoipDb === undefined ? undefined : openCountries(config.geoipDb);
  const db = createDb(config.database);
  let redis: Redis | undefined;
  try {
    if (options.migrate !== false) {
      const applied = await migrateToLatest(db);
      if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    } else {
      await refuseNewerSchema(db);
    }
    await refuseKeyThatCannotOpen(config, db);
    if (config.redisUrl) redis = await connectRedis(config.redisUrl);
  } catch (err) {
    await db.destroy();
    if (err instanceof StartupError) throw err;
    throw startupFailure(config, err);
  }

  const metrics = config.metrics.enabled ? createMetrics({ logger, db }) : undefined;
  const services = createServices({
    db,
    config,
    logger,
    now: options.now,
    redis,
    observer: metrics?.observer,
    countryOf,
  });
  metrics?.readQueues(services.jobs.figures());
  const warnings = await services.health.durabilityWarnings().catch(() => ['its settings could not be read']);
  for (const warning of warnings) logger.warn(`durability: ${warning}`);
  const app = createApp({ config, logger, services, redis, metrics });
  const server = createHttpServer(app.callback(), config, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new StartupError(listenProblem(config, err)));
    });
    server.listen(config.port, config.host, () => resolve());
  }).catch(async (err) => {
    await db.destroy();
    redis?.disconnect();
    throw err;
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  // Which database, never with its password: a path, or host/database.
  const at =
    config.database.client === 'sqlite'
      ? config.database.filename
      : `${config.database.host}/${config.database.database}`;
  logger.info('listening', { url, database: config.database.client, at });
  services.site.listening(url);
  for (const worker of services.workers) worker.start();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await drained;
      clearTimeout(timer);
      // Workers finish what they hold before the pool they write through goes away.
      await Promise.all(services.workers.map((worker) => worker.stop()));
      await redis?.quit().catch(() => undefined);
      await db.destroy();
      logger.info('stopped');
    })();
    return closing;
  };
  return { server, url, db, services, close };
}

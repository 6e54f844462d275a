import { MESSAGES } from '../../shared/errors.js';
import { ServiceUnavailableError } from '../errors.js';
import {
  appliedMigrations,
  knownMigrations,
  databaseFileGone,
  type DurabilitySettings,
  durabilitySettings,
  pingDatabase,
} from '../repositories/health.js';
import type { ServiceDeps } from './deps.js';

export interface HealthService {
  /** `GET /health`: the process answers and the database does too; 503 otherwise. */
  check(): Promise<{ status: 'ok'; database: 'ok' }>;
  /**
   * `GET /ready`: the database answers and its schema is this build's (every migration this
   * build knows applied, none it does not know); 503 naming what is wrong otherwise.
   */
  ready(): Promise<{ status: 'ready'; database: 'ok'; schema: 'current' }>;
  /** What weakens "a 200 means the data is on disk" on this database server; empty when nothing does. */
  durabilityWarnings(): Promise<string[]>;
}

/**
 * A 200 means the data is on disk (docs/reliability.md): SQLite in WAL mode with
 * synchronous=FULL (set by the daemon on every connection), InnoDB with
 * innodb_flush_log_at_trx_commit=1 and, when the binary log is on, sync_binlog=1 (server
 * settings the daemon cannot set, so it says when they are weaker).
 */
export function durabilityWarningsOf(settings: DurabilitySettings): string[] {
  if (settings.engine === 'sqlite') {
    const full = settings.journalMode.toLowerCase() === 'wal' && settings.synchronous >= 2;
    return full ? [] : ['SQLite is not in WAL mode with synchronous=FULL: a 200 may not survive a power loss'];
  }
  const warnings: string[] = [];
  if (settings.flushLogAtTrxCommit !== 1) {
    warnings.push(
      `innodb_flush_log_at_trx_commit is ${settings.flushLogAtTrxCommit}, not 1: a 200 may not survive a crash of the database server's machine`,
    );
  }
  if (settings.logBin && settings.syncBinlog !== 1) {
    warnings.push(
      `sync_binlog is ${settings.syncBinlog}, not 1, with the binary log on: a 200 may not survive a crash of the database server's machine`,
    );
  }
  return warnings;
}

const PING_TIMEOUT_MS = 2_000;

/** `work`, or a rejection once PING_TIMEOUT_MS have passed: a probe answers in time, whatever the database does. */
async function withinPingTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why the applied migrations are not this build's, or undefined when they are. */
export function schemaMismatch(
  applied: readonly string[],
  known: readonly string[],
  contract: ReadonlySet<string> = new Set(),
): string | undefined {
  const knownSet = new Set(known);
  const newer = applied.filter((name) => !knownSet.has(name));
  const last = known[known.length - 1] ?? '';
  if (newer.length > 0) return MESSAGES.notReadyNewer([...newer].sort().at(-1) ?? '', last);
  const appliedSet = new Set(applied);
  // A contract step waits for `db migrate --contract` once no older daemon runs: this build works without it.
  const missing = known.find((name) => !appliedSet.has(name) && !contract.has(name));
  return missing === undefined ? undefined : MESSAGES.notReadyPending(missing);
}

export function healthService({ db, logger }: ServiceDeps): HealthService {
  return {
    async check() {
      try {
        await withinPingTimeout(pingDatabase(db));
      } catch (err) {
        logger.warn('health check: database unreachable', { code: (err as { code?: string }).code });
        throw new ServiceUnavailableError('Database unreachable: check DATABASE_URL and that the server runs');
      }
      return { status: 'ok', database: 'ok' };
    },

    async ready() {
      if (await databaseFileGone(db)) {
        logger.warn('readiness: the SQLite file is gone from its path');
        throw new ServiceUnavailableError(MESSAGES.notReadyFileGone);
      }
      let applied: string[];
      try {
        applied = await withinPingTimeout(appliedMigrations(db));
      } catch (err) {
        logger.warn('readiness: database unreachable', { code: (err as { code?: string }).code });
        throw new ServiceUnavailableError(MESSAGES.notReadyUnreachable);
      }
      const { known, contract } = knownMigrations();
      const mismatch = schemaMismatch(applied, known, contract);
      if (mismatch) throw new ServiceUnavailableError(mismatch);
      return { status: 'ready', database: 'ok', schema: 'current' };
    },

    async durabilityWarnings() {
      return durabilityWarningsOf(await durabilitySettings(db));
    },
  };
}

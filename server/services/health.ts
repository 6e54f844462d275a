import { ServiceUnavailableError } from '../errors.js';
import { type DurabilitySettings, durabilitySettings, pingDatabase } from '../repositories/health.js';
import type { ServiceDeps } from './deps.js';

export interface HealthService {
  /** `GET /health`: the process answers and the database does too; 503 otherwise. */
  check(): Promise<{ status: 'ok'; database: 'ok' }>;
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

export function healthService({ db, logger }: ServiceDeps): HealthService {
  return {
    async check() {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          pingDatabase(db),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
          }),
        ]);
      } catch (err) {
        logger.warn('health check: database unreachable', { code: (err as { code?: string }).code });
        throw new ServiceUnavailableError('Database unreachable: check DATABASE_URL and that the server runs');
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ok', database: 'ok' };
    },

    async durabilityWarnings() {
      return durabilityWarningsOf(await durabilitySettings(db));
    },
  };
}

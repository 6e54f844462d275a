import { ServiceUnavailableError } from '../errors.js';
import { pingDatabase } from '../repositories/health.js';
import type { ServiceDeps } from './deps.js';

export interface HealthService {
  /** `GET /health`: the process answers and the database does too; 503 otherwise. */
  check(): Promise<{ status: 'ok'; database: 'ok' }>;
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
  };
}

import { loadConfig } from '../../../server/config.js';
import { claimDatabase } from '../../../server/db/daemonLock.js';
import { startDaemon } from '../../../server/main.js';
import { checkDatabase } from '../../database.js';
import type { Io } from '../../io.js';

export async function runServe(io: Io, options: { port?: number; host?: string; migrate: boolean }): Promise<void> {
  const base = loadConfig(io.env);
  checkDatabase(io, base, true);
  const config = Object.freeze({
    ...base,
    ...(options.port !== undefined && { port: options.port }),
    ...(options.host !== undefined && { host: options.host }),
  });
  // A SQLite file serves one daemon: a second one stops here, before migrations or a port.
  const claim = claimDatabase(config.database);
  try {
    const daemon = await startDaemon(config, { migrate: options.migrate });
    // SIGTERM/SIGINT: stop accepting, finish what is in flight, close the pool.
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGTERM', stop);
        process.off('SIGINT', stop);
        daemon.close().then(resolve, resolve);
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
  } finally {
    claim.release();
  }
}

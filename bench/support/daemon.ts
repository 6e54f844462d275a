/**
 * The daemon for a benchmark, in its own process so that the load generator does not share its
 * event loop. Configured by the environment like `affiliated serve`; prints `listening <url>`.
 */
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { startDaemon } from '../../server/main.js';

const daemon = await startDaemon(loadConfig(process.env), { logger: createLogger('silent') });
console.log(`listening ${daemon.url}`);
process.on('SIGTERM', () => {
  void daemon.close().then(() => process.exit(0));
});

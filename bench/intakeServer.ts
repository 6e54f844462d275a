/**
 * A server for bench/intake.ts, in its own process so the load generator does not share its
 * event loop: `koa` is the baseline (bare Koa answering `{"success":true}`), `daemon` the real
 * daemon on DATABASE_URL with rate limits raised. Prints `{"url": …}` once listening; SIGTERM stops it.
 */
import http from 'node:http';
import Koa from 'koa';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/logger.js';
import { startDaemon } from '../server/main.js';

async function bareKoa(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { success: true };
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function daemon(): Promise<{ url: string; close: () => Promise<void> }> {
  const config = loadConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_DEFAULT_PER_MIN: '1000000',
    RATE_LIMIT_EVENTS_PER_MIN: '1000000',
    RATE_LIMIT_SDK_PER_MIN: '1000000',
  });
  const running = await startDaemon(config, { logger: createLogger('silent') });
  return { url: running.url, close: () => running.close() };
}

const server = process.argv[2] === 'koa' ? await bareKoa() : await daemon();
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});

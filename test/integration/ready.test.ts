import { rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { KNOWN_MIGRATIONS, migrationSource } from '../../server/db/migrations/index.js';
import type { Daemon } from '../../server/main.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';

const READY = { status: 'ready', database: 'ok', schema: 'current' };
const unavailable = (message: string) => ({ statusCode: 503, message, error: 'Service Unavailable' });

/** A TCP pass-through to MariaDB on a loopback port, which a test can close under the daemon's pool. */
async function tcpProxy(target: URL): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 3306), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

describe('GET /ready', () => {
  let database: TestDatabase;
  let daemon: Daemon;
  let last: string;

  before(async () => {
    database = await createTestDatabase();
    daemon = await startTestDaemon(database.url);
    // What a start applies ends with the last expand step; a contract step after it waits for `db migrate --contract`.
    last = (await migrationSource.getMigrations([])).at(-1) ?? '';
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });

  it('is 200 on a database migrated to this build, and is never rate limited', async () => {
    const limited = await startTestDaemon(database.url, { RATE_LIMIT_DEFAULT_PER_MIN: '1' });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await call(limited.url, 'GET', '/ready');
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal(READY);
        expect(res.headers['x-ratelimit-limit']).to.equal(undefined);
      }
    } finally {
      await limited.close();
    }
  });

  it("is 503 naming the migration while this build's last one is not applied; /health stays 200", async () => {
    await database.db.migrate.down();
    try {
      const res = await call(daemon.url, 'GET', '/ready');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.equal(unavailable(MESSAGES.notReadyPending(last)));
      expect((await call(daemon.url, 'GET', '/health')).status).to.equal(200);
    } finally {
      await database.db.migrate.latest();
    }
    expect((await call(daemon.url, 'GET', '/ready')).body).to.deep.equal(READY);
  });

  it('is 503 naming both migrations when the schema is newer than this build', async () => {
    const newer = '29991231000000_from_a_later_release';
    await database.db('knex_migrations').insert({ name: newer, batch: 999, migration_time: new Date() });
    try {
      const res = await call(daemon.url, 'GET', '/ready');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.equal(unavailable(MESSAGES.notReadyNewer(newer, KNOWN_MIGRATIONS.at(-1) ?? '')));
    } finally {
      await database.db('knex_migrations').where({ name: newer }).delete();
    }
    expect((await call(daemon.url, 'GET', '/ready')).status).to.equal(200);
  });

  it('is 503 when the database cannot be reached', async function () {
    this.timeout(30_000);
    const own = await createTestDatabase();
    if (ENGINE === 'sqlite') {
      const gone = await startTestDaemon(own.url);
      try {
        expect((await call(gone.url, 'GET', '/ready')).status).to.equal(200);
        const file = own.url.slice('sqlite:'.length);
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
        const res = await call(gone.url, 'GET', '/ready');
        expect(res.status).to.equal(503);
        expect(res.body).to.deep.equal(unavailable(MESSAGES.notReadyFileGone));
      } finally {
        await gone.close();
        await own.drop();
      }
      return;
    }
    const target = new URL(own.url);
    const proxy = await tcpProxy(target);
    const through = new URL(own.url);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    const cut = await startTestDaemon(through.toString());
    try {
      expect((await call(cut.url, 'GET', '/ready')).status).to.equal(200);
      await proxy.close();
      const res = await call(cut.url, 'GET', '/ready');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.equal(unavailable(MESSAGES.notReadyUnreachable));
    } finally {
      await cut.close();
      await own.drop();
    }
  });
});

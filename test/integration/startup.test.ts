import { expect } from 'chai';
import { startServe } from '../helpers/cli.js';
import { daemonUrls, ON_CLUSTER, reachableOnEveryNode } from '../helpers/cluster.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { ENGINE, type TestDatabase, useTestDatabases } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { sleep } from '../helpers/receiver.js';

const lockMigrations = (t: TestDatabase, locked: boolean) =>
  t.db('knex_migrations_lock').update({ is_locked: locked ? 1 : 0 });

/**
 * Several daemons start at once on one database: a deploy, or one daemon per node of a Galera
 * cluster. None of them may take the others down at start (docs/scaling.md).
 */
describe(`daemons starting together (${ENGINE})`, () => {
  const database = useTestDatabases();

  it('with nothing to migrate, a daemon starts while another process holds the migration lock', async () => {
    const t = await database();
    await lockMigrations(t, true);
    const daemon = await startTestDaemon(t.url);
    try {
      expect((await call(daemon.url, 'GET', '/health')).status).to.equal(200);
    } finally {
      await daemon.close();
    }
  });

  it('with migrations to apply, a daemon waits for the lock another process holds, then applies them and serves', async () => {
    const t = await database({ migrate: false });
    await t.db.migrate.up();
    await lockMigrations(t, true);
    let started = false;
    const starting = startTestDaemon(t.url).finally(() => {
      started = true;
    });
    await sleep(1500);
    expect(started, 'the daemon waits while the lock is held').to.equal(false);
    await lockMigrations(t, false);
    const daemon = await starting;
    try {
      const [, pending] = (await t.db.migrate.list()) as [unknown[], unknown[]];
      expect(pending).to.deep.equal([]);
      expect((await call(daemon.url, 'GET', '/health')).status).to.equal(200);
    } finally {
      await daemon.close();
    }
  });

  it('a lock table left with two rows (two daemons created it at once) is repaired, and migrations run', async () => {
    const t = await database({ migrate: false });
    await t.db.migrate.up();
    await t.db('knex_migrations_lock').insert({ is_locked: 0 });
    const daemon = await startTestDaemon(t.url);
    try {
      const [, pending] = (await t.db.migrate.list()) as [unknown[], unknown[]];
      expect(pending).to.deep.equal([]);
      expect(await t.db('knex_migrations_lock').select('is_locked')).to.deep.equal([{ is_locked: 0 }]);
    } finally {
      await daemon.close();
    }
  });

  it(`three daemons started at once on a new database all serve, each migration applied once${ON_CLUSTER ? ' (one daemon per Galera node)' : ''}`, async function () {
    if (ENGINE !== 'mysql') this.skip(); // A SQLite file serves one daemon at a time.
    for (let round = 0; round < 2; round++) {
      const t = await database({ migrate: false });
      await reachableOnEveryNode(t.url);
      const results = await Promise.allSettled(
        daemonUrls(t.url, 3).map((url) => startServe({ env: { DATABASE_URL: url, BCRYPT_ROUNDS: '4' } })),
      );
      const daemons = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      try {
        const failures = results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
        expect(failures, 'daemons that exited at start').to.deep.equal([]);
        for (const daemon of daemons) expect((await call(daemon.url, 'GET', '/health')).status).to.equal(200);
        const twice = await t.db('knex_migrations').groupBy('name').havingRaw('COUNT(*) > 1').select('name');
        expect(twice, 'migrations recorded twice').to.deep.equal([]);
      } finally {
        for (const daemon of daemons) daemon.child.kill('SIGTERM');
        await Promise.all(daemons.map((daemon) => daemon.done));
      }
    }
  });
});

import { expect } from 'chai';
import { nodeUrls, ON_CLUSTER, reachableOnEveryNode } from '../helpers/cluster.js';
import { createMerchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import type { Daemon } from '../../server/main.js';

/**
 * Every node must answer a search as node 1 does. The FULLTEXT index is built on each node
 * when it applies the migration, with that node's own settings: a node that keeps InnoDB's
 * stopwords leaves `the`, `com`, `and` ... out of its index (docs/scaling.md, node settings).
 */
describe('the affiliate search through each Galera node', () => {
  let database: TestDatabase;
  const daemons: Daemon[] = [];

  before(async () => {
    if (!ON_CLUSTER) throw new Error('TEST_GALERA_URLS is not set: run `npm run test:cluster`');
    database = await createTestDatabase();
    await reachableOnEveryNode(database.url);
    for (const url of nodeUrls(database.url)) daemons.push(await startTestDaemon(url));
  });
  after(async () => {
    for (const daemon of daemons) await daemon.close();
    await database?.drop();
  });

  it('finds words InnoDB lists as stopwords (the, com, and) through every node', async () => {
    const merchant = await createMerchant(database.db);
    const created = await call(daemons[0]?.url ?? '', 'POST', '/v1/affiliates', {
      key: merchant.key,
      body: { email: 'rock@the.com', name: 'Rock and Roll', password: 'secret123' },
    });
    expect(created.status).to.equal(201);
    for (const term of ['the', 'com', 'and', 'rock']) {
      const totals = [];
      for (const daemon of daemons) {
        const found = await call(daemon.url, 'GET', `/v1/affiliates?search=${term}`, { key: merchant.key });
        totals.push(found.body.total);
      }
      expect(totals, `search=${term} through nodes 1, 2 and 3`).to.deep.equal(daemons.map(() => 1));
    }
  });
});

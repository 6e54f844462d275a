import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { PortalBrowser } from '../helpers/portal.js';

/**
 * Log-in throttling is shared by every daemon of a database: its counts live in the database,
 * or in Redis when REDIS_URL is set (TEST_REDIS_URL), never in one daemon's memory.
 */
for (const store of ['database', 'redis'] as const) {
  describe(`portal throttling shared by two daemons, kept in the ${store} (${ENGINE})`, function () {
    this.timeout(60_000);
    const redisUrl = process.env.TEST_REDIS_URL;
    let database: TestDatabase;
    const daemons: Daemon[] = [];
    let merchant: Merchant;

    before(async function () {
      if (store === 'redis' && !redisUrl) this.skip();
      database = await createTestDatabase();
      const env: Record<string, string> = store === 'redis' && redisUrl ? { REDIS_URL: redisUrl } : {};
      for (let i = 0; i < 2; i++) {
        daemons.push(await startDaemon(testConfig(database.url, env), { logger: createLogger('silent') }));
      }
    });
    after(async () => {
      for (const daemon of daemons) await daemon.close();
      await database?.drop();
    });
    beforeEach(async () => {
      await cleanTables(database.db);
      merchant = await createMerchant(database.db);
      await servicesFor(database.db).campaigns.update(merchant.campaignId, { portal: true });
    });

    it('refuses the sixth attempt on one daemon after five failures spread over both', async () => {
      // A new address each run: Redis keeps its counts for 15 minutes, across test databases.
      const email = `ana-${randomBytes(4).toString('hex')}@example.com`;
      await servicesFor(database.db).affiliates.create(merchant.campaignId, { email, password: 'correct-horse' });
      const attempt = async (daemon: Daemon, password: string) => {
        const b = new PortalBrowser(daemon.url, `/portal/${merchant.publicId}`);
        await b.get('/');
        return (await b.post('/login', { email, password })).status;
      };
      const [a, b] = daemons;
      if (!a || !b) throw new Error('two daemons');
      for (let i = 0; i < 5; i++) expect(await attempt(i % 2 === 0 ? a : b, 'wrong-password')).to.equal(401);
      expect(await attempt(a, 'correct-horse')).to.equal(429);
      expect(await attempt(b, 'correct-horse')).to.equal(429);
      const rows = await database.db('portal_login_slots').count({ n: '*' }).first();
      expect(Number(rows?.n)).to.equal(store === 'redis' ? 0 : 5);
    });
  });
}

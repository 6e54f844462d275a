import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import type { Daemon } from '../../server/main.js';
import { createMerchant, revokeKey, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { ask } from './support/http.js';
import { recorder } from './support/recorder.js';
import { daemonEnv, type ServedDaemon, serve } from './support/served.js';

/** An API key (`afk_` + 32 base62) and a bcrypt hash, wherever they appear in a text. */
const API_KEY = /afk_[A-Za-z0-9]{32}(?![A-Za-z0-9])/;
const BCRYPT_HASH = /\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}/;
/** The documented bound on a revoked key (README: API_KEY_CACHE_MS), and the slack of one poll and one query. */
const CACHE_MS = 1000;
const SLACK_MS = 400;

/**
 * Runs after the rest of the reliability suite (scripts/test-reliability.mjs lists it last), so
 * that the scan covers every answer and every log line the suite produced.
 */
describe(`secrets (${ENGINE})`, function () {
  this.timeout(5 * 60_000);

  describe('in everything the suite saw', () => {
    it('no answer and no log line holds an API key, a password or a bcrypt hash', () => {
      const answers = recorder.answers();
      const lines = recorder.logLines();
      const secrets = recorder.secrets();
      recorder.count('secrets: answers scanned', answers.length);
      recorder.count('secrets: log lines scanned', lines.length);
      console.log(
        `      scanned ${answers.length} answers and ${lines.length} log lines for ${secrets.length} secrets`,
      );
      // A scan of nothing proves nothing: the suite before this file must have run.
      expect(answers.length, 'answers recorded').to.be.above(100);
      expect(lines.length, 'log lines recorded').to.be.above(100);
      expect(secrets.length, 'secrets handed out').to.be.above(3);
      for (const [what, texts] of [
        ['answer', answers],
        ['log line', lines],
      ] as const) {
        for (const text of texts) {
          expect(API_KEY.test(text), `${what} holds an API key: ${text.slice(0, 300)}`).to.equal(false);
          expect(BCRYPT_HASH.test(text), `${what} holds a bcrypt hash: ${text.slice(0, 300)}`).to.equal(false);
          for (const secret of secrets) {
            expect(text.includes(secret), `${what} holds a secret: ${text.slice(0, 300)}`).to.equal(false);
          }
        }
      }
    });
  });

  describe('how keys are compared', () => {
    let database: TestDatabase;
    let daemon: Daemon;
    before(async () => {
      database = await createTestDatabase();
      daemon = await startTestDaemon(
        database.url,
        { API_KEY_CACHE_MS: '0' },
        { logger: createLogger('debug', (line) => recorder.log(line)) },
      );
    });
    after(async () => {
      await daemon?.close();
      await database?.drop();
    });

    it('the raw key never reaches a comparison: the database is asked for its SHA-256, by exact match', async () => {
      const merchant = await createMerchant(database.db);
      recorder.secret(merchant.key);
      const queries: { sql: string; bindings: unknown[] }[] = [];
      const listen = (query: { sql: string; bindings?: unknown[] }) =>
        queries.push({ sql: query.sql, bindings: query.bindings ?? [] });
      daemon.db.on('query', listen);
      try {
        // The real key, a key that shares all but its last character, and one that shares nothing.
        const nearly = `${merchant.key.slice(0, -1)}${merchant.key.endsWith('A') ? 'B' : 'A'}`;
        for (const key of [merchant.key, nearly, `afk_${'0'.repeat(32)}`]) {
          const answer = await ask(daemon.url, {
            method: 'GET',
            path: '/v1/affiliates',
            headers: { 'x-api-key': key },
          });
          expect(answer.status).to.equal(key === merchant.key ? 200 : 401);
          const hash = createHash('sha256').update(key).digest('hex');
          const lookups = queries.filter((query) => query.bindings.includes(hash));
          expect(lookups.length, 'one lookup by the hash').to.be.above(0);
          for (const lookup of lookups) expect(lookup.sql).to.match(/`?key_hash`? = \?/);
        }
        // A hash lookup compares digests the caller cannot steer, so its time says nothing about
        // the key; and no statement ever carries a key or part of one.
        const bound = JSON.stringify(queries.map((query) => query.bindings));
        expect(bound).to.not.match(/afk_/);
      } finally {
        daemon.db.off('query', listen);
      }
      const stored = JSON.stringify(await database.db('api_keys').select('*'));
      expect(stored, 'only the hash is stored').to.not.include(merchant.key);
    });
  });

  describe('a revoked key', () => {
    let database: TestDatabase;
    const daemons: ServedDaemon[] = [];
    before(async () => {
      database = await createTestDatabase();
      // Two daemons on MariaDB: each has its own cache, and each must drop the key in time.
      for (let i = 0; i < (ENGINE === 'mysql' ? 2 : 1); i++) {
        daemons.push(await serve(daemonEnv(database.url, { API_KEY_CACHE_MS: String(CACHE_MS) })));
      }
    });
    after(async () => {
      for (const daemon of daemons) await daemon.stop('SIGTERM');
      await database?.drop();
    });

    it(`is refused by every daemon within API_KEY_CACHE_MS (${CACHE_MS} ms here)`, async () => {
      const merchant = await createMerchant(database.db);
      recorder.secret(merchant.key);
      const headers = { 'x-api-key': merchant.key };
      // Warm every daemon's cache: the key works. Then revoke at a random point of the window.
      for (const daemon of daemons) {
        expect((await ask(daemon.url, { method: 'GET', path: '/v1/affiliates', headers })).status).to.equal(200);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * CACHE_MS)));
      const revokedAt = Date.now();
      await revokeKey(database.db, merchant.keyId);
      const refusedAfter = await Promise.all(
        daemons.map(async (daemon) => {
          for (;;) {
            const events = await ask(daemon.url, {
              method: 'POST',
              path: '/v1/events',
              headers: { ...headers, 'content-type': 'application/json' },
              body: '{"events":[]}',
            });
            if (events.status === 403) return Date.now() - revokedAt;
            expect(events.status).to.equal(200);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }),
      );
      console.log(`      refused after ${refusedAfter.map((ms) => `${ms} ms`).join(', ')}`);
      for (const ms of refusedAfter) expect(ms).to.be.at.most(CACHE_MS + SLACK_MS);
      // And it stays refused, on both kinds of route.
      for (const daemon of daemons) {
        expect((await ask(daemon.url, { method: 'GET', path: '/v1/affiliates', headers })).status).to.equal(401);
      }
    });
  });
});

/** The figures of the whole run (inputs tried, faults injected, rows lost or doubled), for the report. */
after(() => {
  const figures = [...recorder.figures()].sort(([a], [b]) => a.localeCompare(b));
  console.log(`\n  reliability figures (${ENGINE}):`);
  for (const [name, value] of figures) console.log(`    ${name}: ${value.toLocaleString('en')}`);
});

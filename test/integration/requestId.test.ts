import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import type { Daemon } from '../../server/main.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Entry {
  msg: string;
  path?: string;
  status?: number;
  requestId?: string;
}

describe('request ids (X-Request-Id)', () => {
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  const lines: string[] = [];
  /** The log's request lines, read after the daemon wrote them (the logger writes at once to `lines`). */
  const requestLines = () => lines.map((line) => JSON.parse(line) as Entry).filter((entry) => entry.msg === 'request');

  before(async () => {
    database = await createTestDatabase();
    merchant = await createMerchant(database.db);
    daemon = await startTestDaemon(database.url, {}, { logger: createLogger('info', (line) => lines.push(line)) });
  });
  beforeEach(() => {
    lines.length = 0;
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });

  it('gives every request an id, answers it in X-Request-Id and writes it on the log line', async () => {
    const first = await call(daemon.url, 'GET', '/health');
    const second = await call(daemon.url, 'GET', '/v1/campaign', { key: merchant.key });
    const ids = [first.headers['x-request-id'], second.headers['x-request-id']];
    for (const id of ids) expect(id).to.match(UUID);
    expect(ids[0]).not.to.equal(ids[1]);
    expect(requestLines().map((entry) => [entry.path, entry.requestId])).to.deep.equal([
      ['/health', ids[0]],
      ['/v1/campaign', ids[1]],
    ]);
  });

  it("keeps a caller's id when it is safe to log, so a support ticket's id finds its line", async () => {
    for (const sent of [
      'ticket-4711',
      '0af7651916cd43dd8448eb211c80319c',
      'Root=1-67891233-abcdef012345678912345678',
      'a'.repeat(128),
    ]) {
      const res = await call(daemon.url, 'GET', '/v1/campaign', {
        key: merchant.key,
        headers: { 'x-request-id': sent },
      });
      expect(res.headers['x-request-id']).to.equal(sent);
    }
    expect(requestLines().map((entry) => entry.requestId)).to.deep.equal([
      'ticket-4711',
      '0af7651916cd43dd8448eb211c80319c',
      'Root=1-67891233-abcdef012345678912345678',
      'a'.repeat(128),
    ]);
  });

  it('replaces an id that is too long or holds unsafe characters by a generated one', async () => {
    for (const sent of ['a'.repeat(129), 'two words', '"}{"admin":true', 'x\u00e9', 'a,b']) {
      const res = await call(daemon.url, 'GET', '/health', { headers: { 'x-request-id': sent } });
      expect(res.headers['x-request-id'], sent).to.match(UUID);
    }
    const logged = requestLines().map((entry) => entry.requestId);
    expect(logged).to.have.length(5);
    for (const id of logged) expect(id).to.match(UUID);
  });

  it('answers the id on errors too: 404, 401, 400, 405 and a portal page', async () => {
    const answers = [
      await call(daemon.url, 'GET', '/no/such/route', { headers: { 'x-request-id': 'err-404' } }),
      await call(daemon.url, 'GET', '/v1/campaign', { headers: { 'x-request-id': 'err-401' } }),
      await call(daemon.url, 'POST', '/v1/events', {
        key: merchant.key,
        raw: '{',
        headers: { 'x-request-id': 'err-400' },
      }),
      await call(daemon.url, 'DELETE', '/health', { headers: { 'x-request-id': 'err-405' } }),
      await call(daemon.url, 'GET', '/portal/no-such-campaign/', { headers: { 'x-request-id': 'err-portal' } }),
    ];
    expect(answers.map((res) => [res.status, res.headers['x-request-id']])).to.deep.equal([
      [404, 'err-404'],
      [401, 'err-401'],
      [400, 'err-400'],
      [405, 'err-405'],
      [404, 'err-portal'],
    ]);
    expect(requestLines().map((entry) => `${entry.status} ${entry.requestId}`)).to.deep.equal([
      '404 err-404',
      '401 err-401',
      '400 err-400',
      '405 err-405',
      '404 err-portal',
    ]);
  });
});

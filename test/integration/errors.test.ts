import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import { type Merchant, revokeKey, startTestDaemon, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';

describe(`error answers and API-key auth (${ENGINE})`, () => {
  // No key cache, so a revoked key is refused at once in these tests.
  const t = useTestDaemon({ API_KEY_CACHE_MS: '0' });
  let merchant: Merchant;
  beforeEach(() => {
    merchant = t.merchant;
  });

  it('401 API Key is required without a key, in the spec’s exact body', async () => {
    const res = await call(t.url, 'GET', '/v1/affiliates');
    expect(res.status).to.equal(401);
    expect(res.text).to.equal('{"statusCode":401,"message":"API Key is required","error":"Unauthorized"}');
  });

  it('401 Invalid or inactive API Key for an unknown key', async () => {
    const res = await call(t.url, 'GET', '/v1/affiliates', { key: 'afk_notarealkey' });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal({
      statusCode: 401,
      message: 'Invalid or inactive API Key',
      error: 'Unauthorized',
    });
  });

  it('a revoked key is 401 Invalid or inactive API Key on affiliate routes', async () => {
    expect((await call(t.url, 'GET', '/v1/affiliates', { key: merchant.key })).status).to.equal(200);
    await revokeKey(t.db, merchant.keyId);
    const res = await call(t.url, 'GET', '/v1/affiliates', { key: merchant.key });
    expect(res.body).to.deep.equal({
      statusCode: 401,
      message: 'Invalid or inactive API Key',
      error: 'Unauthorized',
    });
  });

  it('records when a key was last used', async () => {
    await call(t.url, 'GET', '/v1/affiliates', { key: merchant.key });
    let lastUsed: unknown = null;
    for (let i = 0; i < 50 && lastUsed === null; i++) {
      lastUsed = (await t.db('api_keys').where({ id: merchant.keyId }).first())?.last_used_at ?? null;
      if (lastUsed === null) await new Promise((r) => setTimeout(r, 20));
    }
    expect(lastUsed).to.not.equal(null);
  });

  it('malformed JSON is 400, a body that is not JSON is 415, an oversized body is 413', async () => {
    const malformed = await call(t.url, 'POST', '/v1/affiliates', {
      key: merchant.key,
      raw: '{"email":',
    });
    expect(malformed.body).to.deep.equal({
      statusCode: 400,
      message: 'Request body is not valid JSON',
      error: 'Bad Request',
    });
    const text = await call(t.url, 'POST', '/v1/affiliates', {
      key: merchant.key,
      raw: 'email=a@b.co',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(text.status).to.equal(415);
    expect(text.body).to.include({ statusCode: 415, error: 'Unsupported Media Type' });
    const huge = await call(t.url, 'POST', '/v1/affiliates', {
      key: merchant.key,
      raw: JSON.stringify({ email: 'a@b.co', password: 'secret', name: 'x'.repeat(3 * 1024 * 1024) }),
    });
    expect(huge.status).to.equal(413);
    expect(huge.body).to.deep.equal({
      statusCode: 413,
      message: 'Request body must not be larger than 2097152 bytes',
      error: 'Payload Too Large',
    });
    expect(await t.db('affiliates').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });

  it('an unknown route is 404 Cannot METHOD path, even without a key', async () => {
    const res = await call(t.url, 'GET', '/v1/x');
    expect(res.body).to.deep.equal({ statusCode: 404, message: 'Cannot GET /v1/x', error: 'Not Found' });
    const post = await call(t.url, 'POST', '/nope', { key: merchant.key, body: {} });
    expect(post.body).to.deep.equal({ statusCode: 404, message: 'Cannot POST /nope', error: 'Not Found' });
  });

  it('a method the route does not have is 405 in the same shape', async () => {
    const res = await call(t.url, 'PUT', '/v1/affiliates/1', { key: merchant.key, body: {} });
    expect(res.status).to.equal(405);
    expect(res.body).to.include({ statusCode: 405, error: 'Method Not Allowed' });
  });

  it('a server fault is 500 with no stack trace, SQL or table names in the body, and logged with where it was thrown, no stack trace or SQL', async () => {
    await call(t.url, 'POST', '/v1/affiliates', {
      key: merchant.key,
      body: { email: 'a@b.co', password: 'secret' },
    });
    const lines: string[] = [];
    const logged = await startTestDaemon(
      t.database.url,
      { API_KEY_CACHE_MS: '0' },
      { logger: createLogger('error', (line) => lines.push(line)) },
    );
    await t.db.schema.renameTable('payouts', 'payouts_moved');
    try {
      const faulted = await call(logged.url, 'GET', '/v1/affiliates', { key: merchant.key });
      expect(faulted.status).to.equal(500);
      const [line, ...more] = lines.map((text) => JSON.parse(text) as Record<string, unknown>);
      expect(more, 'one line for one fault').to.deep.equal([]);
      expect(line).to.include({ level: 'error', msg: 'request failed', method: 'GET', path: '/v1/affiliates' });
      // SQLite throws inside our call, so the frame is ours; mysql2 builds its error in a socket
      // callback, whose stack holds the driver's frames only, so the frame is the driver's.
      const site = ENGINE === 'sqlite' ? /server\/[\w/]+\.(ts|js):\d+:\d+\)?$/ : /\.(ts|js):\d+:\d+\)?$/;
      expect(String(line?.thrownAt), 'one frame: where it was thrown').to.match(site);
      expect(lines.join('\n'), 'no stack trace, no SQL').to.not.match(
        /select |from |no such table|doesn't exist|\\n\s*at /i,
      );
      const res = await call(t.url, 'GET', '/v1/affiliates', { key: merchant.key });
      expect(res.status).to.equal(500);
      expect(res.body).to.deep.equal({
        statusCode: 500,
        message: 'Internal server error',
        error: 'Internal Server Error',
      });
      expect(res.text).to.not.match(/select|payouts|at \w+ \(/i);
    } finally {
      await t.db.schema.renameTable('payouts_moved', 'payouts');
      await logged.close();
    }
  });
});

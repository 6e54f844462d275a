import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { request } from 'undici';
import type { Daemon } from '../../server/main.js';
import { TRACKER_SCRIPT_URL } from '../../server/services/trackerScript.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/** The raw bytes of an answer: undici does not decompress, so the encoding can be checked. */
async function fetchScript(url: string, headers: Record<string, string> = {}) {
  const res = await request(`${url}/v1/sdk/tracker.js`, { headers });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

describe(`GET /v1/sdk/tracker.js and /v1/sdk/referrals/{code} (${ENGINE})`, () => {
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  const source = readFileSync(TRACKER_SCRIPT_URL);

  before(async () => {
    database = await createTestDatabase();
    daemon = await startTestDaemon(database.url);
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    await cleanTables(database.db);
    merchant = await createMerchant(database.db);
  });

  it('serves the script without a key, cacheable, with an ETag that answers 304', async () => {
    const plain = await fetchScript(daemon.url, { origin: 'https://shop.example' });
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-type']).to.equal('application/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).to.equal('public, max-age=3600');
    expect(plain.headers['access-control-allow-origin']).to.equal('*');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.body.equals(source)).to.equal(true);
    const etag = String(plain.headers.etag);
    expect(etag).to.match(/^"[\w-]+"$/);

    const again = await fetchScript(daemon.url, { 'if-none-match': etag });
    expect(again.status).to.equal(304);
    expect(again.body.length).to.equal(0);
    expect((await fetchScript(daemon.url, { 'if-none-match': '"other"' })).status).to.equal(200);
  });

  it('sends it gzipped to clients that accept gzip, under 3 KB, with its own ETag', async () => {
    const zipped = await fetchScript(daemon.url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.status).to.equal(200);
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.headers.vary).to.match(/Accept-Encoding/);
    expect(zipped.body.length).to.be.below(3000);
    expect(gunzipSync(zipped.body).equals(source)).to.equal(true);
    const plain = await fetchScript(daemon.url);
    expect(zipped.headers.etag).not.to.equal(plain.headers.etag);
    const revalidated = await fetchScript(daemon.url, {
      'accept-encoding': 'gzip',
      'if-none-match': String(zipped.headers.etag),
    });
    expect(revalidated.status).to.equal(304);
  });

  it('says whether a code is an active affiliate’s of the campaign, with the cookie lifetime', async () => {
    await database.db('campaigns').where({ id: merchant.campaignId }).update({ cookie_days: 45 });
    await addAffiliate(database.db, merchant.campaignId, { code: 'Maria10' });
    await addAffiliate(database.db, merchant.campaignId, { code: 'GONE', status: 'inactive' });
    await addAffiliate(database.db, merchant.campaignId, { code: 'WAIT', status: 'pending' });
    const other = await createMerchant(database.db);
    await addAffiliate(database.db, other.campaignId, { code: 'THEIRS' });
    const lookUp = (code: string, campaign = merchant.publicId) =>
      call(daemon.url, 'GET', `/v1/sdk/referrals/${code}?campaign=${encodeURIComponent(campaign)}`, {
        headers: { origin: 'https://shop.example' },
      });

    const found = await lookUp('MARIA10');
    expect(found.status).to.equal(200);
    expect(found.body).to.deep.equal({ referralId: 'Maria10', active: true, cookieDays: 45 });
    expect(found.headers['access-control-allow-origin']).to.equal('*');
    // Inactive, pending, unknown, another campaign's, malformed: all the same "does not count".
    for (const code of ['GONE', 'WAIT', 'NOBODY', 'THEIRS', 'not-a-code', '%E2%9C%93']) {
      expect((await lookUp(code)).body, code).to.deep.equal({ referralId: null, active: false, cookieDays: 45 });
    }

    expect((await lookUp('MARIA10', 'no-such-campaign')).body).to.deep.equal({
      statusCode: 400,
      message: ['campaign must be the public id of an existing campaign'],
      error: 'Bad Request',
    });
    const missing = await call(daemon.url, 'GET', '/v1/sdk/referrals/MARIA10');
    expect(missing.body).to.deep.equal({ statusCode: 400, message: ['campaign is required'], error: 'Bad Request' });
  });

  it('keeps CORS to the SDK routes: a preflight is answered there and nowhere else', async () => {
    const preflight = (path: string) =>
      call(daemon.url, 'OPTIONS', path, {
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'GET',
        },
      });
    const sdk = await preflight('/v1/sdk/referrals/X?campaign=y');
    expect(sdk.status).to.equal(204);
    expect(sdk.headers['access-control-allow-origin']).to.equal('*');
    expect(String(sdk.headers['access-control-allow-methods'])).to.include('GET');
    const report = await preflight('/v1/reports/affiliates');
    expect(report.headers['access-control-allow-origin']).to.equal(undefined);
  });
});

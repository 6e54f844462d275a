import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { request } from 'undici';
import { TRACKER_SCRIPT_URL } from '../../server/services/trackerScript.js';
import { createMerchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/** The raw bytes of an answer: undici does not decompress, so the encoding can be checked. */
async function fetchScript(url: string, headers: Record<string, string> = {}) {
  const res = await request(`${url}/v1/sdk/tracker.js`, { headers });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

describe(`GET /v1/sdk/tracker.js and /v1/sdk/referrals/{code} (${ENGINE})`, () => {
  // A limit of its own for the SDK bucket, to see which bucket counts a route.
  const t = useTestDaemon({ RATE_LIMIT_SDK_PER_MIN: '999999' });
  const source = readFileSync(TRACKER_SCRIPT_URL);

  it('serves the script without a key, cacheable, with an ETag that answers 304', async () => {
    const plain = await fetchScript(t.url, { origin: 'https://shop.example' });
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-type']).to.equal('application/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).to.equal('public, max-age=3600');
    expect(plain.headers['access-control-allow-origin']).to.equal('*');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    // Static and cached: never rate limited, so a shop behind one NAT never loses its script.
    expect(plain.headers['x-ratelimit-limit']).to.equal(undefined);
    expect(plain.body.equals(source)).to.equal(true);
    const etag = String(plain.headers.etag);
    expect(etag).to.match(/^"[\w-]+"$/);

    const again = await fetchScript(t.url, { 'if-none-match': etag });
    expect(again.status).to.equal(304);
    expect(again.body.length).to.equal(0);
    expect((await fetchScript(t.url, { 'if-none-match': '"other"' })).status).to.equal(200);
  });

  it('sends it gzipped to clients that accept gzip, under 3 KB, with its own ETag', async () => {
    const zipped = await fetchScript(t.url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.status).to.equal(200);
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.headers.vary).to.match(/Accept-Encoding/);
    expect(zipped.body.length).to.be.below(3000);
    expect(gunzipSync(zipped.body).equals(source)).to.equal(true);
    const plain = await fetchScript(t.url);
    expect(zipped.headers.etag).not.to.equal(plain.headers.etag);
    const revalidated = await fetchScript(t.url, {
      'accept-encoding': 'gzip',
      'if-none-match': String(zipped.headers.etag),
    });
    expect(revalidated.status).to.equal(304);
  });

  it('says whether a code is an active affiliate’s of the campaign, with the cookie lifetime', async () => {
    await t.db('campaigns').where({ id: t.merchant.campaignId }).update({ cookie_days: 45 });
    await addAffiliate(t.db, t.merchant.campaignId, { code: 'Maria10' });
    await addAffiliate(t.db, t.merchant.campaignId, { code: 'GONE', status: 'inactive' });
    await addAffiliate(t.db, t.merchant.campaignId, { code: 'WAIT', status: 'pending' });
    const other = await createMerchant(t.db);
    await addAffiliate(t.db, other.campaignId, { code: 'THEIRS' });
    const lookUp = (code: string, campaign = t.merchant.publicId) =>
      call(t.url, 'GET', `/v1/sdk/referrals/${code}?campaign=${encodeURIComponent(campaign)}`, {
        headers: { origin: 'https://shop.example' },
      });

    const found = await lookUp('MARIA10');
    expect(found.status).to.equal(200);
    expect(found.body).to.deep.equal({ referralId: 'Maria10', active: true, cookieDays: 45 });
    expect(found.headers['access-control-allow-origin']).to.equal('*');
    expect(found.headers['x-ratelimit-limit']).to.equal('999999');
    // Inactive, pending, unknown, another campaign's, malformed: all the same "does not count".
    for (const code of ['GONE', 'WAIT', 'NOBODY', 'THEIRS', 'not-a-code', '%E2%9C%93']) {
      expect((await lookUp(code)).body, code).to.deep.equal({ referralId: null, active: false, cookieDays: 45 });
    }

    expect((await lookUp('MARIA10', 'no-such-campaign')).body).to.deep.equal({
      statusCode: 400,
      message: ['campaign must be the public id of an existing campaign'],
      error: 'Bad Request',
    });
    const missing = await call(t.url, 'GET', '/v1/sdk/referrals/MARIA10');
    expect(missing.body).to.deep.equal({ statusCode: 400, message: ['campaign is required'], error: 'Bad Request' });
  });

  it('keeps CORS to the SDK routes: a preflight is answered there and nowhere else', async () => {
    const preflight = (path: string) =>
      call(t.url, 'OPTIONS', path, {
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

  it('is in the OpenAPI document as JavaScript, with the lookup and the report', async () => {
    const { body } = await call(t.url, 'GET', '/v1/openapi.json');
    const script = body.paths['/v1/sdk/tracker.js'].get;
    expect(Object.keys(script.responses['200'].content)).to.deep.equal(['application/javascript; charset=utf-8']);
    expect(script.security).to.deep.equal([]);
    expect(body.paths['/v1/sdk/referrals/{code}'].get.security).to.deep.equal([]);
    expect(body.paths['/v1/reports/affiliates'].get.security).to.deep.equal([{ ApiKey: [] }]);
  });
});

import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView, storedCounts } from '../helpers/events.js';
import { call } from '../helpers/http.js';

describe(`POST /v1/sdk/events (${ENGINE})`, () => {
  const t = useTestDaemon();
  let merchant: Merchant;
  let code: string;

  const send = (body: unknown, headers: Record<string, string> = {}) =>
    call(t.url, 'POST', '/v1/sdk/events', {
      body,
      headers: { origin: 'https://shop.example', ...headers },
    });
  const counts = () => storedCounts(t.db, merchant.campaignId);

  beforeEach(async () => {
    merchant = t.merchant;
    ({ code } = await addAffiliate(t.db, merchant.campaignId));
  });

  it('takes page views and leads without a key, each in the campaign it names', async () => {
    const other = await createMerchant(t.db);
    const theirs = await addAffiliate(t.db, other.campaignId);
    const reply = await send({
      events: [
        pageView(merchant.publicId, code.toLowerCase(), { session_id: 's-1' }),
        lead(other.publicId, theirs.code),
        // A code is matched in the campaign the event names, never in another one.
        pageView(other.publicId, code),
      ],
    });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({
      success: true,
      received: 3,
      accepted: 2,
      skipped: [{ index: 2, reason: 'unknown_affiliate' }],
    });
    expect(await counts()).to.deep.equal({ events: 1, conversions: 0, usage: 0 });
    expect(await storedCounts(t.db, other.campaignId)).to.deep.equal({
      events: 1,
      conversions: 0,
      usage: 0,
    });
  });

  it('refuses conversions with 403: sales come from the merchant backend (spec §10.11)', async () => {
    for (const events of [
      [conversion(merchant.publicId, code, 'o-1', 10)],
      [pageView(merchant.publicId, code), conversion(merchant.publicId, code, 'o-1', -1)],
      [{ event_type: 'conversion' }],
    ]) {
      const reply = await send({ events });
      expect(reply.body).to.deep.equal({
        statusCode: 403,
        message: MESSAGES.sdkConversionForbidden,
        error: 'Forbidden',
      });
      expect(reply.headers['access-control-allow-origin']).to.equal('*');
    }
    expect(await counts()).to.deep.equal({ events: 0, conversions: 0, usage: 0 });
  });

  it('refuses a batch naming an unknown campaign, or breaking any rule, and stores nothing', async () => {
    const unknown = await send({
      events: [pageView(merchant.publicId, code), pageView('no-such-campaign', code)],
    });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.message).to.deep.equal(['events.1.campaign_id must be the public id of an existing campaign']);
    const invalid = await send({
      events: [lead(merchant.publicId, code), { event_type: 'lead', campaign_id: 7 }],
    });
    expect(invalid.body.message).to.deep.equal([
      'events.1.campaign_id must be a string',
      'events.1.affiliate_id is required',
    ]);
    // An unknown campaign is named in the same answer as the schema's failures.
    const both = await send({
      events: [pageView('no-such-campaign', code), { ...lead(merchant.publicId, code), session_id: 5 }],
    });
    expect(both.body.message).to.deep.equal([
      'events.0.campaign_id must be the public id of an existing campaign',
      'events.1.session_id must be a string',
    ]);
    expect(invalid.headers['access-control-allow-origin']).to.equal('*');
    expect(await counts()).to.deep.equal({ events: 0, conversions: 0, usage: 0 });
  });

  it('skips codes that do not count and replayed event ids, never telling an inactive or pending affiliate from an unknown code', async () => {
    const inactive = await addAffiliate(t.db, merchant.campaignId, { status: 'inactive' });
    const pending = await addAffiliate(t.db, merchant.campaignId, { status: 'pending' });
    await send({ events: [pageView(merchant.publicId, code, { event_id: 'pv-1' })] });
    const reply = await send({
      events: [
        pageView(merchant.publicId, code, { event_id: 'pv-1' }),
        pageView(merchant.publicId, inactive.code),
        lead(merchant.publicId, code, { event_id: 'ld-1' }),
        lead(merchant.publicId, code, { event_id: 'ld-1' }),
        lead(merchant.publicId, pending.code),
        pageView(merchant.publicId, 'NOSUCHCODE'),
      ],
    });
    expect(reply.body.skipped).to.deep.equal([
      { index: 0, reason: 'duplicate_event_id' },
      { index: 1, reason: 'unknown_affiliate' },
      { index: 3, reason: 'duplicate_event_id' },
      { index: 4, reason: 'unknown_affiliate' },
      { index: 5, reason: 'unknown_affiliate' },
    ]);
    expect(await counts()).to.deep.equal({ events: 2, conversions: 0, usage: 0 });

    // The merchant's own, keyed, endpoint keeps the reason.
    const keyed = await call(t.url, 'POST', '/v1/events', {
      key: merchant.key,
      body: { events: [pageView(merchant.publicId, inactive.code), lead(merchant.publicId, pending.code)] },
    });
    expect(keyed.body.skipped).to.deep.equal([
      { index: 0, reason: 'inactive_affiliate' },
      { index: 1, reason: 'inactive_affiliate' },
    ]);
  });

  it('answers an empty batch with 200', async () => {
    const reply = await send({ events: [] });
    expect(reply.body).to.deep.equal({ success: true, received: 0, accepted: 0, skipped: [] });
  });

  describe('CORS, on this route only', () => {
    it('answers a preflight with 204 and the allowed method and headers', async () => {
      const reply = await call(t.url, 'OPTIONS', '/v1/sdk/events', {
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(reply.status).to.equal(204);
      expect(reply.headers).to.include({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'content-type',
      });
      // A preflight is not counted against the IP's budget.
      expect(reply.headers['x-ratelimit-remaining']).to.equal(undefined);
    });

    it('opens answers to any origin and exposes the rate-limit headers', async () => {
      const reply = await send({ events: [pageView(merchant.publicId, code)] });
      expect(reply.headers['access-control-allow-origin']).to.equal('*');
      expect(String(reply.headers['access-control-expose-headers'])).to.include('Retry-After');
    });

    it('leaves the key routes closed to browsers', async () => {
      const post = await call(t.url, 'POST', '/v1/events', {
        key: merchant.key,
        body: { events: [] },
        headers: { origin: 'https://shop.example' },
      });
      expect(post.status).to.equal(200);
      expect(post.headers['access-control-allow-origin']).to.equal(undefined);
      const preflight = await call(t.url, 'OPTIONS', '/v1/events', {
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers['access-control-allow-origin']).to.equal(undefined);
    });
  });
});

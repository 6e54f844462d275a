import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createLogger } from '../../server/logger.js';
import { createServices } from '../../server/services/index.js';
import { testConfig, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { Receiver, sleep } from '../helpers/receiver.js';

const refusal = (address: string) =>
  `url resolves to ${address}, a private, loopback or link-local address: use a public address ` +
  '(or set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the daemon)';

describe(`webhooks refuse private addresses by default (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_POLL_MS: '50' });
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(async () => receiver.stop());

  it('400 at registration for loopback, private, link-local and names that resolve to them', async () => {
    const port = new URL(receiver.url).port;
    for (const [url, address] of [
      [receiver.url, '127.0.0.1'],
      [`http://localhost:${port}/hooks`, ''],
      ['http://10.1.2.3/hooks', '10.1.2.3'],
      ['http://192.168.0.10/hooks', '192.168.0.10'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
      ['http://[::1]:8080/hooks', '::1'],
      ['http://[fd00::1]/hooks', 'fd00::1'],
      ['http://[::ffff:127.0.0.1]/hooks', '::ffff:7f00:1'],
      // IPv6 forms that carry an IPv4 address: compatible, translated, NAT64 (well-known and
      // local-use), 6to4 and Teredo.
      ['http://[::127.0.0.1]/hooks', '::7f00:1'],
      ['http://[::ffff:0:127.0.0.1]/hooks', '::ffff:0:7f00:1'],
      ['http://[64:ff9b::10.0.0.1]/hooks', '64:ff9b::a00:1'],
      ['http://[64:ff9b:1::a00:1]/hooks', '64:ff9b:1::a00:1'],
      ['http://[2002:7f00:1::]/hooks', '2002:7f00:1::'],
      ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hooks', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ] as const) {
      const res = await call(t.url, 'POST', '/v1/webhooks', {
        key: t.merchant.key,
        body: { url, events: ['affiliate.created'] },
      });
      expect(res.status, url).to.equal(400);
      if (address) expect(res.body.message, url).to.deep.equal([refusal(address)]);
      else expect(res.body.message[0], url).to.match(/^url resolves to (127\.0\.0\.1|::1), a private/);
    }
    expect(await t.db('webhook_endpoints').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });

  it('400 for port 0 and for a user name or password in the URL, which would be stored, listed and never sent', async () => {
    for (const [url, message] of [
      ['http://93.184.216.34:0/hooks', MESSAGES.webhookUrlPortZero],
      ['https://hooks.example.com:00/x', MESSAGES.webhookUrlPortZero],
      ['https://user:s3cret@hooks.example.com/x', MESSAGES.webhookUrlCredentials],
      ['https://user@hooks.example.com/x', MESSAGES.webhookUrlCredentials],
      ['https://:s3cret@hooks.example.com/x', MESSAGES.webhookUrlCredentials],
    ] as const) {
      const res = await call(t.url, 'POST', '/v1/webhooks', {
        key: t.merchant.key,
        body: { url, events: ['affiliate.created'] },
      });
      expect(res.status, url).to.equal(400);
      expect(res.body.message, url).to.deep.equal([`url ${message}`]);
      expect(res.text).to.not.include('s3cret');
    }
    expect(await t.db('webhook_endpoints').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });

  it('checks the address again at send time: an attempt to a private address fails and sends nothing', async () => {
    // Registered by a daemon that allowed private networks (same database, same key).
    const allowing = createServices({
      db: t.db,
      config: testConfig(t.database.url, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }),
      logger: createLogger('silent'),
    });
    const endpoint = await allowing.webhooks.create(t.merchant.campaignId, {
      url: receiver.url,
      events: ['affiliate.created'],
    });
    const created = await call(t.url, 'POST', '/v1/affiliates', {
      key: t.merchant.key,
      body: { email: 'ana@example.com', password: 'secret1' },
    });
    expect(created.status).to.equal(201);
    const deadline = Date.now() + 10_000;
    let delivery: any;
    do {
      await sleep(50);
      const res = await call(t.url, 'GET', `/v1/webhooks/${endpoint.id}/deliveries`, { key: t.merchant.key });
      delivery = res.body.deliveries[0];
    } while (!delivery?.attempts.length && Date.now() < deadline);
    expect(delivery.attempts[0]).to.include({ statusCode: null, response: null });
    expect(delivery.attempts[0].error).to.equal(
      'refused: 127.0.0.1 resolves to 127.0.0.1, a private, loopback or link-local address ' +
        '(set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it)',
    );
    expect(receiver.received).to.have.length(0);
  });
});

describe(`webhooks refuse credentials in a URL at every attempt (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_POLL_MS: '50', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(async () => receiver.stop());

  it('an endpoint stored with a user name and password (before they were refused) is never sent to', async () => {
    const created = await call(t.url, 'POST', '/v1/webhooks', {
      key: t.merchant.key,
      body: { url: receiver.url, events: ['affiliate.created'] },
    });
    expect(created.status).to.equal(201);
    const port = new URL(receiver.url).port;
    await t
      .db('webhook_endpoints')
      .where('id', created.body.id)
      .update({ url: `http://user:s3cret@127.0.0.1:${port}/hooks` });
    await call(t.url, 'POST', `/v1/webhooks/${created.body.id}/test`, { key: t.merchant.key });
    const deadline = Date.now() + 10_000;
    let delivery: any;
    do {
      await sleep(50);
      const res = await call(t.url, 'GET', `/v1/webhooks/${created.body.id}/deliveries`, { key: t.merchant.key });
      delivery = res.body.deliveries[0];
    } while (!delivery?.attempts.length && Date.now() < deadline);
    expect(delivery.attempts[0]).to.include({
      statusCode: null,
      response: null,
      error: 'refused: the URL holds a user name or password, which webhooks never send',
    });
    expect(receiver.received).to.have.length(0);
  });
});

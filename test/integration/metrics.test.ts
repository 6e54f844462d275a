import os from 'node:os';
import { expect } from 'chai';
import { allRoutes } from '../../shared/contract/index.js';
import { MESSAGES } from '../../shared/errors.js';
import { createLogger } from '../../server/logger.js';
import type { Daemon } from '../../server/main.js';
import { routerPath } from '../../server/http/routeTable.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { type Prometheus, type Sample, startPrometheus } from '../helpers/prometheus.js';

const TOKEN = 'scrape-token-0123456789abcdef';
const valueOf = (samples: Sample[]) => Number(samples[0]?.value[1] ?? Number.NaN);

/** An IPv4 address of this machine that is not loopback, to reach a daemon as a remote client would. */
function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
}

describe('GET /metrics', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let open: Daemon;
  let tokened: Daemon;
  let merchant: Merchant;
  let prometheus: Prometheus;

  before(async () => {
    database = await createTestDatabase();
    open = await startTestDaemon(database.url);
    // A rate limit of 2 a window: scrapes must never count against it.
    tokened = await startTestDaemon(database.url, { METRICS_TOKEN: TOKEN, RATE_LIMIT_DEFAULT_PER_MIN: '2' });
    merchant = await createMerchant(database.db);
    prometheus = await startPrometheus([
      { job: 'open', url: open.url },
      { job: 'token', url: tokened.url, token: TOKEN },
    ]);
  });
  after(async () => {
    await prometheus?.stop();
    await open?.close();
    await tokened?.close();
    await database?.drop();
  });

  it('Prometheus reads requests by route template and status, never by raw path, with the intake, pool and process series', async () => {
    const affiliate = await addAffiliate(database.db, merchant.campaignId);
    for (let i = 0; i < 3; i++) {
      expect((await call(open.url, 'GET', `/v1/affiliates/${affiliate.id}`, { key: merchant.key })).status).to.equal(
        200,
      );
    }
    expect((await call(open.url, 'GET', '/v1/affiliates/987654321', { key: merchant.key })).status).to.equal(404);
    expect((await call(open.url, 'GET', '/wp-admin/setup-987654321.php')).status).to.equal(404);
    const events = await call(open.url, 'POST', '/v1/events', {
      key: merchant.key,
      body: { events: [pageView(merchant.publicId, affiliate.code), pageView(merchant.publicId, 'NO-SUCH-CODE')] },
    });
    expect(events.body).to.include({ accepted: 1 });

    const byId = await prometheus.until(
      'affiliated_http_requests_total{job="open",method="GET",route="/v1/affiliates/:id",status="200"}',
      (samples) => valueOf(samples) >= 3,
    );
    expect(valueOf(byId)).to.equal(3);
    const missing = await prometheus.query(
      'affiliated_http_requests_total{job="open",method="GET",route="/v1/affiliates/:id",status="404"}',
    );
    expect(valueOf(missing)).to.equal(1);
    expect(
      valueOf(await prometheus.query('affiliated_http_requests_total{job="open",route="unmatched",status="404"}')),
    ).to.equal(1);

    // No series anywhere carries an id or a path the client made up.
    const raw = await prometheus.query(
      `{job="open", route=~"/v1/affiliates/${affiliate.id}|.*(987654321|wp-admin).*"}`,
    );
    expect(raw).to.deep.equal([]);
    const templates = new Set([
      ...allRoutes().map((route) => routerPath(route.path)),
      '/metrics',
      '/portal/:campaignPublicId/*',
      '/docs/*',
      'unmatched',
    ]);
    const routes = await prometheus.query('group by (route) (affiliated_http_requests_total{job="open"})');
    expect(routes.map((s) => s.metric.route).filter((route) => !templates.has(route ?? ''))).to.deep.equal([]);

    const latency = await prometheus.query(
      'affiliated_http_request_duration_seconds_count{job="open",method="GET",route="/v1/affiliates/:id"}',
    );
    expect(valueOf(latency)).to.equal(4);
    await prometheus.until('affiliated_events_accepted_total{job="open"}', (s) => valueOf(s) === 1);
    expect(
      valueOf(await prometheus.query('affiliated_events_skipped_total{job="open",reason="unknown_affiliate"}')),
    ).to.equal(1);
    expect(
      valueOf(await prometheus.query('affiliated_events_skipped_total{job="open",reason="duplicate_event_id"}')),
    ).to.equal(0);
    expect(valueOf(await prometheus.query('affiliated_intake_flush_requests_count{job="open"}'))).to.equal(1);
    expect(valueOf(await prometheus.query('affiliated_intake_flush_events_sum{job="open"}'))).to.equal(2);
    const pool = await prometheus.query('affiliated_db_pool_connections{job="open"}');
    expect(pool.map((s) => s.metric.state).sort()).to.deep.equal(['free', 'pending', 'used']);
    expect(valueOf(await prometheus.query('affiliated_db_pool_max{job="open"}'))).to.equal(
      database.engine === 'sqlite' ? 1 : 10,
    );
    const retries = await prometheus.query('affiliated_db_transaction_retries_total{job="open"}');
    expect(retries.map((s) => s.metric.reason)).to.include('deadlock');
    expect(valueOf(await prometheus.query('process_cpu_seconds_total{job="open"}'))).to.be.greaterThan(0);
    expect(valueOf(await prometheus.query('nodejs_eventloop_lag_seconds{job="open"}'))).to.be.at.least(0);
    // Prometheus reached the daemon with METRICS_TOKEN through its bearer setting.
    await prometheus.until('up{job="token"}', (s) => valueOf(s) === 1);
  });

  it('with METRICS_TOKEN, a scrape without the bearer token is 401 in the spec shape; scrapes are never rate limited', async () => {
    const none = await call(tokened.url, 'GET', '/metrics');
    expect(none.status).to.equal(401);
    expect(none.body).to.deep.equal({ statusCode: 401, message: MESSAGES.metricsTokenRequired, error: 'Unauthorized' });
    expect(none.headers['www-authenticate']).to.equal('Bearer realm="metrics"');
    expect(none.headers['x-request-id']).to.be.a('string');
    const wrong = await call(tokened.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).to.equal(401);
    const prefix = await call(tokened.url, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${TOKEN.slice(0, 20)}` },
    });
    expect(prefix.status).to.equal(401);
    // The token alone, without the scheme, is no bearer.
    expect((await call(tokened.url, 'GET', '/metrics', { headers: { authorization: TOKEN } })).status).to.equal(401);
    for (let i = 0; i < 5; i++) {
      const ok = await call(tokened.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status, `scrape ${i + 1}`).to.equal(200);
      expect(ok.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
      expect(ok.headers['x-ratelimit-limit']).to.equal(undefined);
      expect(ok.text).to.match(/^affiliated_http_requests_total\{/m);
    }
    // The same daemon's limit of 2 still holds for the API.
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(tokened.url, 'GET', '/v1/campaign', { key: merchant.key })).status);
    expect(statuses).to.deep.equal([200, 200, 429]);
    expect((await call(tokened.url, 'POST', '/metrics')).status).to.equal(405);
  });

  it('without METRICS_TOKEN, loopback clients only: a forwarded header never makes a remote client loopback', async () => {
    const forbidden = { statusCode: 403, message: MESSAGES.metricsLoopbackOnly, error: 'Forbidden' };
    expect((await call(open.url, 'GET', '/metrics')).status).to.equal(200);
    expect((await call(open.url, 'GET', '/metrics', { headers: { 'x-forwarded-for': '127.0.0.1' } })).status).to.equal(
      200,
    );
    const forwardings: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.7' },
      { 'x-forwarded-for': '127.0.0.1, 203.0.113.7' },
      { 'x-real-ip': '198.51.100.4' },
      { forwarded: 'for="[2001:db8::1]:4711"' },
    ];
    for (const headers of forwardings) {
      const refused = await call(open.url, 'GET', '/metrics', { headers });
      expect(refused.status, JSON.stringify(headers)).to.equal(403);
      expect(refused.body).to.deep.equal(forbidden);
    }
    // Behind a trusted proxy on this machine, the forwarded client decides too.
    const proxied = await startTestDaemon(database.url, { TRUST_PROXY: 'true' });
    try {
      const refused = await call(proxied.url, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(refused.status).to.equal(403);
    } finally {
      await proxied.close();
    }
    const external = externalAddress();
    if (!external) return;
    // A client on another address of this machine is remote; naming loopback in a header changes nothing.
    const everywhere = await startTestDaemon(database.url, { HOST: '0.0.0.0', TRUST_PROXY: 'true' });
    try {
      const url = `http://${external}:${new URL(everywhere.url).port}`;
      expect((await call(url, 'GET', '/health')).status).to.equal(200);
      const remote = await call(url, 'GET', '/metrics', { headers: { 'x-forwarded-for': '127.0.0.1' } });
      expect(remote.status).to.equal(403);
      expect(remote.body).to.deep.equal(forbidden);
    } finally {
      await everywhere.close();
    }
  });

  it('logs a scrape at debug, so a scraper every few seconds does not fill the log; a refusal at info', async () => {
    const lines: string[] = [];
    const logged = await startTestDaemon(
      database.url,
      {},
      { logger: createLogger('info', (line) => lines.push(line)) },
    );
    try {
      expect((await call(logged.url, 'GET', '/metrics')).status).to.equal(200);
      expect(
        (await call(logged.url, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } })).status,
      ).to.equal(403);
      expect((await call(logged.url, 'GET', '/health')).status).to.equal(200);
    } finally {
      await logged.close();
    }
    const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
    expect(requests.map((entry) => `${entry.path} ${entry.status}`)).to.deep.equal(['/metrics 403', '/health 200']);
  });

  it('METRICS_ENABLED=false: no /metrics at all', async () => {
    const off = await startTestDaemon(database.url, { METRICS_ENABLED: 'false' });
    try {
      expect((await call(off.url, 'GET', '/metrics')).status).to.equal(404);
      expect((await call(off.url, 'GET', '/health')).status).to.equal(200);
    } finally {
      await off.close();
    }
  });
});

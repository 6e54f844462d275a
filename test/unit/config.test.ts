import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig, parseDatabaseUrl } from '../../server/config.js';

describe('config', () => {
  it('defaults to the embedded SQLite file and the documented values', () => {
    const config = loadConfig({});
    expect(config.port).to.equal(3000);
    expect(config.host).to.equal('127.0.0.1');
    expect(config.database).to.deep.equal({
      client: 'sqlite',
      filename: path.resolve('data/affiliated.sqlite3'),
    });
    expect(config.bcryptRounds).to.equal(10);
    // One core is left to the requests: 1 on a 2-core machine, never 0, never past the 4 pool threads.
    expect(config.bcryptConcurrency).to.equal(Math.max(1, Math.min(4, os.availableParallelism() - 1)));
    expect(config.trustProxy).to.equal(false);
    expect(config.rateLimit).to.deep.equal({
      eventsPerWindow: 70,
      sdkPerWindow: 70,
      defaultPerWindow: 100,
      windowMs: 60_000,
    });
    expect(config.http).to.deep.equal({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(config.autoApproveIntervalMs).to.equal(60_000);
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'mysql://app:secret@db.internal:3307/affiliated',
      REDIS_URL: 'redis://cache:6379',
      BCRYPT_ROUNDS: '12',
      BCRYPT_CONCURRENCY: '3',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_EVENTS_PER_MIN: '5',
      RATE_LIMIT_SDK_PER_MIN: '6',
      RATE_LIMIT_DEFAULT_PER_MIN: '7',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '4000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      AUTO_APPROVE_INTERVAL_MS: '0',
    });
    expect(config.port).to.equal(8080);
    expect(config.database).to.include({ client: 'mysql', host: 'db.internal', database: 'affiliated' });
    expect(config.redisUrl).to.equal('redis://cache:6379');
    expect(config.bcryptRounds).to.equal(12);
    expect(config.bcryptConcurrency).to.equal(3);
    expect(config.trustProxy).to.equal(true);
    expect(config.logLevel).to.equal('warn');
    expect(config.rateLimit).to.include({ eventsPerWindow: 5, sdkPerWindow: 6, defaultPerWindow: 7 });
    expect(config.http).to.deep.equal({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000 });
    expect(config.autoApproveIntervalMs).to.equal(0);
  });

  it('refuses bad values with one line naming the variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'abc' }, /^PORT must be a whole number \(got "abc"\)$/],
      [{ PORT: '70000' }, /^PORT must be at most 65535/],
      [{ BCRYPT_ROUNDS: '2' }, /^BCRYPT_ROUNDS must be at least 4/],
      [{ BCRYPT_CONCURRENCY: '0' }, /^BCRYPT_CONCURRENCY must be at least 1/],
      [{ TRUST_PROXY: 'maybe' }, /^TRUST_PROXY must be true or false/],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL /],
      [{ AUTO_APPROVE_INTERVAL_MS: '-1' }, /^AUTO_APPROVE_INTERVAL_MS must be a whole number/],
      [{ DATABASE_URL: 'postgres://x@y/z' }, /^DATABASE_URL: unsupported scheme postgres:/],
      [{ DATABASE_URL: 'mysql://user@host' }, /^DATABASE_URL: a MySQL URL needs a host and a database/],
      [{ REQUEST_TIMEOUT_MS: '0' }, /^REQUEST_TIMEOUT_MS must be at least 100/],
      [{ HEADERS_TIMEOUT_MS: '40000' }, /^HEADERS_TIMEOUT_MS must not be greater than REQUEST_TIMEOUT_MS \(30000\)$/],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), JSON.stringify(env)).to.throw(ConfigError, message);
    }
  });

  it('never echoes a URL, which may hold a password', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://user:hunter2@cache' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.does.not.include('hunter2');
  });

  it('parses the DATABASE_URL forms', () => {
    expect(parseDatabaseUrl('sqlite:./x.db', '/srv')).to.deep.equal({
      client: 'sqlite',
      filename: '/srv/x.db',
    });
    expect(parseDatabaseUrl('sqlite:///var/lib/a.db', '/srv')).to.deep.equal({
      client: 'sqlite',
      filename: '/var/lib/a.db',
    });
    expect(parseDatabaseUrl('mariadb://u:p@h:3306/d')).to.include({
      client: 'mysql',
      url: 'mysql://u:p@h:3306/d',
    });
  });
});

describe('config: webhook caps and timeouts (docs/webhooks.md#configuration)', () => {
  it('defaults: 32 in flight, 8 a campaign, 4 an endpoint, 10 s an attempt, 20 endpoints, 5 retired secrets', () => {
    const { webhooks } = loadConfig({});
    expect(webhooks).to.include({
      maxInFlight: 32,
      campaignInFlight: 8,
      endpointInFlight: 4,
      attemptTimeoutMs: 10_000,
      leaseMs: 30_000,
      maxEndpoints: 20,
      maxRetiredSecrets: 5,
    });
  });

  it('reads each, and refuses a lease that an attempt could outlast', () => {
    const { webhooks } = loadConfig({
      WEBHOOK_MAX_IN_FLIGHT: '64',
      WEBHOOK_CAMPAIGN_IN_FLIGHT: '16',
      WEBHOOK_ENDPOINT_IN_FLIGHT: '2',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '6000',
      WEBHOOK_MAX_ENDPOINTS: '1000',
      WEBHOOK_MAX_RETIRED_SECRETS: '1',
    });
    expect(webhooks).to.include({
      maxInFlight: 64,
      campaignInFlight: 16,
      endpointInFlight: 2,
      attemptTimeoutMs: 5000,
      leaseMs: 6000,
      maxEndpoints: 1000,
      maxRetiredSecrets: 1,
    });
    expect(() => loadConfig({ WEBHOOK_LEASE_MS: '10000' })).to.throw(
      ConfigError,
      'WEBHOOK_LEASE_MS must be greater than WEBHOOK_ATTEMPT_TIMEOUT_MS (10000)',
    );
    expect(() => loadConfig({ WEBHOOK_CAMPAIGN_IN_FLIGHT: '40' })).to.throw(
      ConfigError,
      'WEBHOOK_CAMPAIGN_IN_FLIGHT must not be greater than WEBHOOK_MAX_IN_FLIGHT (32)',
    );
    expect(() => loadConfig({ WEBHOOK_MAX_ENDPOINTS: '0' })).to.throw(
      ConfigError,
      'WEBHOOK_MAX_ENDPOINTS must be at least 1',
    );
  });
});

describe('config: payout providers (docs/payouts-providers.md)', () => {
  it('defaults to the providers’ live APIs and a 30 s call', () => {
    expect(loadConfig({}).payouts).to.deep.equal({
      asaasUrl: 'https://api.asaas.com',
      paypalUrl: 'https://api-m.paypal.com',
      stripeUrl: 'https://api.stripe.com',
      timeoutMs: 30_000,
    });
  });

  it('reads a sandbox origin for each, and refuses a path, which the clients add themselves', () => {
    const config = loadConfig({
      PAYOUT_ASAAS_URL: 'https://api-sandbox.asaas.com/',
      PAYOUT_PAYPAL_URL: 'https://api-m.sandbox.paypal.com',
      PAYOUT_STRIPE_URL: 'http://127.0.0.1:12111',
      PAYOUT_TIMEOUT_MS: '5000',
    });
    expect(config.payouts).to.deep.equal({
      asaasUrl: 'https://api-sandbox.asaas.com',
      paypalUrl: 'https://api-m.sandbox.paypal.com',
      stripeUrl: 'http://127.0.0.1:12111',
      timeoutMs: 5000,
    });
    expect(() => loadConfig({ PAYOUT_ASAAS_URL: 'https://api-sandbox.asaas.com/v3' })).to.throw(
      ConfigError,
      /^PAYOUT_ASAAS_URL must be an origin such as https:\/\/api.example.com \(no path\)$/,
    );
    expect(() => loadConfig({ PAYOUT_TIMEOUT_MS: '10' })).to.throw(
      ConfigError,
      /^PAYOUT_TIMEOUT_MS must be at least 100/,
    );
  });
});

describe('config: metrics (docs/operations.md#metrics)', () => {
  it('has metrics on and no token by default; reads METRICS_TOKEN and METRICS_ENABLED', () => {
    expect(loadConfig({}).metrics).to.deep.equal({ enabled: true, token: undefined });
    const token = 'scrape-token-0123456789';
    expect(loadConfig({ METRICS_TOKEN: token, METRICS_ENABLED: 'false' }).metrics).to.deep.equal({
      enabled: false,
      token,
    });
  });

  it('refuses a token too short to resist guessing, or with blanks, without echoing it', () => {
    for (const token of ['short-secret', 'a token with blanks in it']) {
      expect(() => loadConfig({ METRICS_TOKEN: token }))
        .to.throw(ConfigError, 'METRICS_TOKEN must be 16 to 256 printable characters without spaces')
        .with.property('message')
        .that.does.not.include(token);
    }
  });
});

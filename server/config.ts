import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/** The embedded default store (README.md#configuration). */
const DEFAULT_DATABASE_URL = 'sqlite:./data/affiliated.sqlite3';

export type DatabaseConfig =
  { client: 'sqlite'; filename: string } | { client: 'mysql'; url: string; host: string; database: string };

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  redisUrl: string | undefined;
  bcryptRounds: number;
  /** How many bcrypt hashes may run at once (server/services/passwordHasher.ts). */
  bcryptConcurrency: number;
  trustProxy: boolean;
  logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  rateLimit: { eventsPerWindow: number; sdkPerWindow: number; defaultPerWindow: number; windowMs: number };
  apiKeyCacheMs: number;
  shutdownTimeoutMs: number;
  webhooks: WebhookConfig;
  /** What a slow client may hold a connection for (docs/reliability.md). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /** How often the hold-period job runs; 0: not in this daemon. */
  autoApproveIntervalMs: number;
  /** How often the payout schedule's job looks for a campaign whose period began; 0: not in this daemon. */
  payoutScheduleIntervalMs: number;
  /** A payout run still creating or sending after this long is taken as stopped and resumed (0: not by this daemon). */
  payoutResumeAfterMs: number;
  /** The daemon's address as browsers reach it: the origin of links in mails (docs/portal.md). */
  publicUrl: string | undefined;
  mail: MailConfig;
  /** The affiliate portal's throttling (docs/portal.md#the-security-model). */
  portal: { postsPerIp: number };
  payouts: PayoutConfig;
  payoutSends: PayoutSendConfig;
  /** `GET /metrics` (docs/operations.md). */
  metrics: MetricsConfig;
  /** Days raw page views and clicks are kept (docs/analytics.md#retention); undefined: for ever. */
  eventsRetentionDays: number | undefined;
  /**
   * The analytics rollups kept as events and clicks are stored. Off only for the bench's baseline
   * of what their upkeep costs intake (docs/benchmarks.md): the analytics then miss what arrives.
   */
  rollupUpkeep: boolean;
  /** A MaxMind-format database clicks' countries are read from (docs/analytics.md); undefined: unknown. */
  geoipDb: string | undefined;
}

/** The payout rails' providers (docs/payouts-providers.md): their API origins, so a sandbox can stand in. */
export interface PayoutConfig {
  asaasUrl: string;
  paypalUrl: string;
  stripeUrl: string;
  /** One call to a provider, its whole answer included, ends after this: the payout is then ambiguous. */
  timeoutMs: number;
}

/** The payout send queue (docs/payouts.md#payout-rails). */
export interface PayoutSendConfig {
  /** How often a payout still `processing` at its provider is looked up when no callback told. */
  pollMs: number;
  /** Entry n is the wait after the n-th unclear answer; after the last, the send waits for an operator. */
  retryScheduleMs: readonly number[];
  /** How long a claimed send stays with the daemon that claimed it, unless renewed (it is, while it runs). */
  leaseMs: number;
  /** Sends in flight at once in this daemon (a PayPal batch is one). */
  maxInFlight: number;
  /** The most payouts one PayPal batch carries (PayPal's limit is 15,000 items a call). */
  paypalBatchMax: number;
  /** The most calls a second this daemon makes to one campaign's Asaas, and Stripe, account. */
  asaasPerSecond: number;
  stripePerSecond: number;
}

/** `GET /metrics` (docs/operations.md#metrics). */
export interface MetricsConfig {
  /** Off: no `/metrics` and nothing counted (the bench's baseline). */
  enabled: boolean;
  /** Set: a scrape must send `Authorization: Bearer <token>`; unset: loopback clients only. */
  token: string | undefined;
}

/** E-mail (docs/portal.md): without `smtpUrl` no mail is recorded or sent. */
export interface MailConfig {
  /** `smtp://user:pass@host:587` or `smtps://…:465`. */
  smtpUrl: string | undefined;
  /** The From header, e.g. `Acme partners <partners@acme.example>`. */
  from: string | undefined;
  /** Entry n is the wait after the n-th failed attempt; a mail gets one attempt more than entries. */
  retryScheduleMs: readonly number[];
  leaseMs: number;
  pollMs: number;
}

export interface WebhookConfig {
  /** Entry n is the wait after the n-th failed attempt; a message gets one attempt more than entries. */
  retryScheduleMs: readonly number[];
  /** How long a claimed delivery stays with the daemon that claimed it. */
  leaseMs: number;
  allowPrivateNetworks: boolean;
  /** 32 bytes that encrypt the signing secrets; unset: generated and kept (docs/webhooks.md). */
  secretKey: Buffer | undefined;
  /** How often an idle daemon looks for due deliveries. */
  pollMs: number;
  /**
   * Fairness (docs/webhooks.md#fairness): attempts in flight in this daemon, in all, for one
   * campaign and for one endpoint, so a stalled campaign or receiver holds only its own share.
   */
  maxInFlight: number;
  campaignInFlight: number;
  endpointInFlight: number;
  /** One attempt, connection, request and answer's body included, ends after this. */
  attemptTimeoutMs: number;
  /** Endpoints a campaign may register. */
  maxEndpoints: number;
  /** Retired secrets of one endpoint that may still sign at once (each for 24 h after its rotation). */
  maxRetiredSecrets: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''], {
    error: 'must be true or false',
  })
  .transform((value) => ['1', 'true', 'yes', 'on'].includes(value));
const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );

/** docs/portal.md: 1 min, 5 min, 30 min, 2 h, 6 h. */
const DEFAULT_MAIL_RETRY_SCHEDULE = [6e4, 3e5, 18e5, 72e5, 216e5];

/** docs/webhooks.md: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
/** 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h: then the payout waits for an operator (docs/payouts.md). */
const DEFAULT_PAYOUT_RETRY_SCHEDULE = [3e4, 12e4, 6e5, 18e5, 36e5, 108e5, 216e5, 432e5];
const DEFAULT_RETRY_SCHEDULE = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6];

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 };

/** `250ms`, `5s`, `5m`, `2h`, `1d`. */
function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * (UNIT_MS[match[2]] ?? 0);
}

const durations = (fallback: number[]) =>
  z
    .string()
    .transform((value, ctx) => {
      const entries = value.split(',').map((entry) => parseDuration(entry.trim()));
      if (entries.some((ms) => ms === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'must be durations separated by commas, e.g. 5s,5m,30m,2h' });
        return z.NEVER;
      }
      return entries.filter((ms): ms is number => ms !== undefined);
    })
    .default(fallback);

/** An address of the form `Name <a@b.c>` or `a@b.c`, on one line. */
const MAIL_FROM = /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

/** A provider's API origin, e.g. `https://api-sandbox.asaas.com`; no path (the clients add theirs). */
const origin = (fallback: string) =>
  z
    .string()
    .regex(/^https?:\/\/[^\s/?#@]+\/?$/, { error: 'must be an origin such as https://api.example.com (no path)' })
    .transform((value) => value.replace(/\/$/, ''))
    .default(fallback);

const envSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, { error: 'must start with redis:// or rediss://' })
    .optional(),
  BCRYPT_ROUNDS: int(4, 15).default(10),
  // One core left to the event loop: 1 on 2 cores, never 0.
  BCRYPT_CONCURRENCY: int(1, 64).default(Math.max(1, Math.min(4, os.availableParallelism() - 1))),
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(['silent', 'error', 'warn', 'info', 'debug']).default('info'),
  RATE_LIMIT_EVENTS_PER_MIN: int(1, 1_000_000).default(70),
  RATE_LIMIT_SDK_PER_MIN: int(1, 1_000_000).default(70),
  RATE_LIMIT_DEFAULT_PER_MIN: int(1, 1_000_000).default(100),
  RATE_LIMIT_WINDOW_MS: int(100, 3_600_000).default(60_000),
  API_KEY_CACHE_MS: int(0, 60_000).default(5_000),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
  WEBHOOK_RETRY_SCHEDULE: durations(DEFAULT_RETRY_SCHEDULE),
  WEBHOOK_LEASE_MS: int(1_000, 3_600_000).default(30_000),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  WEBHOOK_SECRET_KEY: z
    .string()
    .transform((value, ctx) => {
      const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
      if (key.length !== 32) {
        ctx.addIssue({ code: 'custom', message: 'must be 32 bytes as 64 hex digits or base64' });
        return z.NEVER;
      }
      return key;
    })
    .optional(),
  WEBHOOK_POLL_MS: int(10, 600_000).default(500),
  WEBHOOK_MAX_IN_FLIGHT: int(1, 1_000).default(32),
  WEBHOOK_CAMPAIGN_IN_FLIGHT: int(1, 1_000).default(8),
  WEBHOOK_ENDPOINT_IN_FLIGHT: int(1, 1_000).default(4),
  WEBHOOK_ATTEMPT_TIMEOUT_MS: int(100, 600_000).default(10_000),
  WEBHOOK_MAX_ENDPOINTS: int(1, 10_000).default(20),
  WEBHOOK_MAX_RETIRED_SECRETS: int(1, 100).default(5),
  HEADERS_TIMEOUT_MS: int(100, 600_000).default(10_000),
  REQUEST_TIMEOUT_MS: int(100, 600_000).default(30_000),
  KEEP_ALIVE_TIMEOUT_MS: int(100, 600_000).default(5_000),
  AUTO_APPROVE_INTERVAL_MS: int(0, 86_400_000).default(60_000),
  PAYOUT_SCHEDULE_INTERVAL_MS: int(0, 86_400_000).default(60_000),
  PAYOUT_RESUME_AFTER_MS: int(0, 86_400_000).default(300_000),
  PUBLIC_URL: z
    .string()
    .regex(/^https?:\/\/[^\s/?#]+\/?$/, { error: 'must be an origin such as https://affiliates.example.com' })
    .transform((value) => value.replace(/\/$/, ''))
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, { error: 'must start with smtp:// or smtps://' })
    .refine((value) => URL.canParse(value), { error: 'must be a URL such as smtp://user:pass@mail.example.com:587' })
    .optional(),
  MAIL_FROM: z
    .string()
    .regex(MAIL_FROM, { error: 'must be an address, e.g. "Acme partners <partners@acme.example>"' })
    .optional(),
  MAIL_RETRY_SCHEDULE: durations(DEFAULT_MAIL_RETRY_SCHEDULE),
  MAIL_LEASE_MS: int(1_000, 3_600_000).default(60_000),
  MAIL_POLL_MS: int(10, 600_000).default(1_000),
  PORTAL_POSTS_PER_IP: int(1, 1_000_000).default(30),
  PAYOUT_ASAAS_URL: origin('https://api.asaas.com'),
  PAYOUT_PAYPAL_URL: origin('https://api-m.paypal.com'),
  PAYOUT_STRIPE_URL: origin('https://api.stripe.com'),
  PAYOUT_TIMEOUT_MS: int(100, 600_000).default(30_000),
  PAYOUT_POLL_MS: int(100, 86_400_000).default(300_000),
  PAYOUT_RETRY_SCHEDULE: durations(DEFAULT_PAYOUT_RETRY_SCHEDULE),
  PAYOUT_LEASE_MS: int(1_000, 3_600_000).default(120_000),
  PAYOUT_MAX_IN_FLIGHT: int(1, 100).default(8),
  PAYOUT_PAYPAL_BATCH_MAX: int(1, 15_000).default(15_000),
  PAYOUT_ASAAS_PER_SECOND: int(1, 1_000).default(10),
  PAYOUT_STRIPE_PER_SECOND: int(1, 1_000).default(25),
  METRICS_ENABLED: bool.default(true),
  EVENTS_RETENTION_DAYS: int(1, 36_500).optional(),
  ROLLUP_UPKEEP: bool.default(true),
  GEOIP_DB: z.string().min(1).optional(),
  // A bearer token goes in a header: printable ASCII without blanks, long enough not to be guessed.
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,256}$/, { error: 'must be 16 to 256 printable characters without spaces' })
    .optional(),
});

/**
 * `DATABASE_URL` forms: `sqlite:PATH` (relative to the working directory), `sqlite:///abs/path`,
 * `mysql://user:pass@host:3306/db` (`mariadb://` is an alias).
 */
export function parseDatabaseUrl(raw: string | undefined, cwd = process.cwd()): DatabaseConfig {
  const url = raw?.trim() || DEFAULT_DATABASE_URL;
  if (url.startsWith('sqlite:')) {
    let file = url.slice('sqlite:'.length);
    if (file.startsWith('//')) file = file.slice(2);
    if (!file) throw new ConfigError('DATABASE_URL: sqlite: needs a file path, e.g. sqlite:./data/affiliated.sqlite3');
    return { client: 'sqlite', filename: file === ':memory:' ? file : path.resolve(cwd, file) };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('DATABASE_URL must look like sqlite:./file.sqlite3 or mysql://user:pass@host:3306/db');
  }
  if (parsed.protocol !== 'mysql:' && parsed.protocol !== 'mariadb:') {
    throw new ConfigError(`DATABASE_URL: unsupported scheme ${parsed.protocol} (use sqlite: or mysql://)`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!parsed.hostname || !database) {
    throw new ConfigError('DATABASE_URL: a MySQL URL needs a host and a database: mysql://user:pass@host:3306/db');
  }
  parsed.protocol = 'mysql:';
  return { client: 'mysql', url: parsed.toString(), host: parsed.hostname, database };
}

/** Reads and validates the environment once; the result is frozen and passed to everything else. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = envSchema.safeParse(present, { reportInput: true });
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = issue?.path.join('.') ?? 'environment';
    // URLs may carry passwords: never echo them.
    const shown =
      typeof issue?.input === 'string' && !name.endsWith('_URL') && !name.endsWith('_KEY') && !name.endsWith('_TOKEN')
        ? ` (got "${issue.input.slice(0, 40)}")`
        : '';
    throw new ConfigError(`${name} ${issue?.message ?? 'is invalid'}${shown}`);
  }
  const e = result.data;
  if (e.SMTP_URL && !e.MAIL_FROM) {
    throw new ConfigError('MAIL_FROM must be set when SMTP_URL is: the address mails are sent from');
  }
  // Node refuses a header timeout longer than the request timeout that contains it.
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS must not be greater than REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS})`);
  }
  // A lease that ran out while its attempt still ran would let another daemon send the message too.
  if (e.PAYOUT_LEASE_MS <= e.PAYOUT_TIMEOUT_MS) {
    throw new ConfigError(`PAYOUT_LEASE_MS must be greater than PAYOUT_TIMEOUT_MS (${e.PAYOUT_TIMEOUT_MS})`);
  }
  if (e.WEBHOOK_LEASE_MS <= e.WEBHOOK_ATTEMPT_TIMEOUT_MS) {
    throw new ConfigError(
      `WEBHOOK_LEASE_MS must be greater than WEBHOOK_ATTEMPT_TIMEOUT_MS (${e.WEBHOOK_ATTEMPT_TIMEOUT_MS})`,
    );
  }
  for (const name of ['WEBHOOK_CAMPAIGN_IN_FLIGHT', 'WEBHOOK_ENDPOINT_IN_FLIGHT'] as const) {
    if (e[name] > e.WEBHOOK_MAX_IN_FLIGHT) {
      throw new ConfigError(`${name} must not be greater than WEBHOOK_MAX_IN_FLIGHT (${e.WEBHOOK_MAX_IN_FLIGHT})`);
    }
  }
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    database: parseDatabaseUrl(e.DATABASE_URL),
    redisUrl: e.REDIS_URL,
    bcryptRounds: e.BCRYPT_ROUNDS,
    bcryptConcurrency: e.BCRYPT_CONCURRENCY,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    rateLimit: Object.freeze({
      eventsPerWindow: e.RATE_LIMIT_EVENTS_PER_MIN,
      sdkPerWindow: e.RATE_LIMIT_SDK_PER_MIN,
      defaultPerWindow: e.RATE_LIMIT_DEFAULT_PER_MIN,
      windowMs: e.RATE_LIMIT_WINDOW_MS,
    }),
    apiKeyCacheMs: e.API_KEY_CACHE_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    webhooks: Object.freeze({
      retryScheduleMs: Object.freeze(e.WEBHOOK_RETRY_SCHEDULE),
      leaseMs: e.WEBHOOK_LEASE_MS,
      allowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      secretKey: e.WEBHOOK_SECRET_KEY,
      pollMs: e.WEBHOOK_POLL_MS,
      maxInFlight: e.WEBHOOK_MAX_IN_FLIGHT,
      campaignInFlight: e.WEBHOOK_CAMPAIGN_IN_FLIGHT,
      endpointInFlight: e.WEBHOOK_ENDPOINT_IN_FLIGHT,
      attemptTimeoutMs: e.WEBHOOK_ATTEMPT_TIMEOUT_MS,
      maxEndpoints: e.WEBHOOK_MAX_ENDPOINTS,
      maxRetiredSecrets: e.WEBHOOK_MAX_RETIRED_SECRETS,
    }),
    http: Object.freeze({
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    }),
    autoApproveIntervalMs: e.AUTO_APPROVE_INTERVAL_MS,
    payoutScheduleIntervalMs: e.PAYOUT_SCHEDULE_INTERVAL_MS,
    payoutResumeAfterMs: e.PAYOUT_RESUME_AFTER_MS,
    publicUrl: e.PUBLIC_URL,
    mail: Object.freeze({
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      retryScheduleMs: Object.freeze(e.MAIL_RETRY_SCHEDULE),
      leaseMs: e.MAIL_LEASE_MS,
      pollMs: e.MAIL_POLL_MS,
    }),
    portal: Object.freeze({ postsPerIp: e.PORTAL_POSTS_PER_IP }),
    payouts: Object.freeze({
      asaasUrl: e.PAYOUT_ASAAS_URL,
      paypalUrl: e.PAYOUT_PAYPAL_URL,
      stripeUrl: e.PAYOUT_STRIPE_URL,
      timeoutMs: e.PAYOUT_TIMEOUT_MS,
    }),
    payoutSends: Object.freeze({
      pollMs: e.PAYOUT_POLL_MS,
      retryScheduleMs: Object.freeze(e.PAYOUT_RETRY_SCHEDULE),
      leaseMs: e.PAYOUT_LEASE_MS,
      maxInFlight: e.PAYOUT_MAX_IN_FLIGHT,
      paypalBatchMax: e.PAYOUT_PAYPAL_BATCH_MAX,
      asaasPerSecond: e.PAYOUT_ASAAS_PER_SECOND,
      stripePerSecond: e.PAYOUT_STRIPE_PER_SECOND,
    }),
    metrics: Object.freeze({ enabled: e.METRICS_ENABLED, token: e.METRICS_TOKEN }),
    eventsRetentionDays: e.EVENTS_RETENTION_DAYS,
    rollupUpkeep: e.ROLLUP_UPKEEP,
    geoipDb: e.GEOIP_DB,
  });
}

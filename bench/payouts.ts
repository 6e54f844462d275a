/**
 * Payouts that pay (docs/benchmarks.md, "Payouts"): a run of 1,000 payouts per rail, started as a
 * merchant starts one (`POST /v1/payout-runs` with the rail: the daemon makes each payout and
 * commits its intent), sent against the providers' fakes answering in 50 ms and timed from the
 * request until the last is paid: PayPal in batches (one call), Pix and Stripe one call each at
 * PAYOUT_*_PER_SECOND. Beside it, the daemon's single-event intake (one page view per
 * POST /v1/events, one request at a time) p99 during each run, against its p99 alone, measured
 * just before in the same run: the target is ≤ 2×.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/payouts.ts [sqlite|mysql]
 * [payouts-pix|payouts-paypal|payouts-stripe]…`; a rail named runs alone on its own daemon, whose
 * CPU profile (BENCH_CPU_PROF) is then that rail's.
 */
import { request } from 'undici';
import { checkPayoutDetails } from '../shared/payoutDetails.js';
import { setPayoutDetails } from '../server/repositories/portalAccounts.js';
import { createMerchant } from '../test/helpers/daemon.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { addAffiliate } from '../test/helpers/events.js';
import { closeRailFakes, type Details, railEnv, startRailFakes } from '../test/helpers/payoutRails.js';
import { startDaemonChild } from './lib/daemon.js';
import { runIfMain } from './lib/direct.js';
import { pageViewBody } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import type { Part } from './lib/part.js';
import { startProbe } from './lib/probe.js';
import { percentile } from './lib/stats.js';

const PER_RAIL = 1_000;
const LATENCY_MS = 50;
/** Calls a second to Asaas and Stripe: Stripe's documented live-mode limit. */
const PER_SECOND = 100;
const RAILS = ['pix', 'paypal', 'stripe'] as const;
type Rail = (typeof RAILS)[number];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function detailsOf(rail: Rail, i: number): Details {
  const n = String(i).padStart(4, '0');
  if (rail === 'pix') return { method: 'pix', pixKeyType: 'phone', account: `+5511900${n}00` };
  if (rail === 'paypal') return { method: 'paypal', account: `bench${n}@example.com` };
  return { method: 'stripe', account: `acct_1BenchPayout${n}` };
}

async function benchPayouts(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  const perRail = opts.quick ? 200 : PER_RAIL;
  const asked = RAILS.filter((rail) => opts.only.includes(`payouts-${rail}`));
  const rails = asked.length > 0 ? asked : RAILS;
  const database = await createTestDatabase({ engine });
  const fakes = await startRailFakes();
  const { db } = database;
  let daemon: Awaited<ReturnType<typeof startDaemonChild>> | undefined;
  try {
    const merchant = await createMerchant(db, { plan: 'unlimited' });
    const codes: string[] = [];
    await db.transaction(async (trx) => {
      for (const rail of rails) {
        for (let i = 0; i < perRail; i++) {
          const { id, code } = await addAffiliate(trx, merchant.campaignId);
          const check = checkPayoutDetails(detailsOf(rail, i));
          if (!check.ok) throw new Error(`bad details for ${rail}`);
          await setPayoutDetails(trx, id, check.details, check.identity, new Date());
          codes.push(code);
        }
      }
    });
    for (let i = 0; i < perRail; i++) fakes.stripe.accounts.add(detailsOf('stripe', i).account);
    fakes.asaas.settleInstantly = true;
    daemon = await startDaemonChild(database.url, {
      logLevel: opts.daemonLogLevel,
      env: {
        ...railEnv(fakes),
        PAYOUT_TIMEOUT_MS: '10000',
        PAYOUT_LEASE_MS: '30000',
        PAYOUT_POLL_MS: '1000',
        PAYOUT_ASAAS_PER_SECOND: String(PER_SECOND),
        PAYOUT_STRIPE_PER_SECOND: String(PER_SECOND),
      },
      profile: ['payouts', engine, ...asked].join('-'),
    });
    const url = daemon.url;
    const api = async (method: string, path: string, body: unknown) => {
      const res = await request(`${url}${path}`, {
        method: method as 'PUT',
        headers: { 'content-type': 'application/json', 'x-api-key': merchant.key },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    await api('PUT', '/v1/payout-rails/pix', { apiKey: fakes.asaas.apiKey, webhookToken: fakes.asaas.webhookToken });
    await api('PUT', '/v1/payout-rails/paypal', {
      clientId: fakes.paypal.clientId,
      clientSecret: fakes.paypal.clientSecret,
      webhookToken: fakes.paypal.webhookId,
    });
    await api('PUT', '/v1/payout-rails/stripe', { secretKey: fakes.stripe.secretKey });
    fakes.asaas.callbackUrl = `${url}/v1/integrations/asaas-payouts/${merchant.publicId}`;
    fakes.paypal.callbackUrl = `${url}/v1/integrations/paypal-payouts/${merchant.publicId}`;
    for (let start = 0; start < codes.length; start += 1000) {
      const events = codes.slice(start, start + 1000).map((code, i) => ({
        event_type: 'conversion',
        campaign_id: merchant.publicId,
        affiliate_id: code,
        properties: { order_id: `bench-payout-${start + i}`, order_value: 1000 },
      }));
      await api('POST', '/v1/events', { events });
    }
    while (
      Number(
        (await api('POST', '/v1/conversions/bulk', { status: 'approved', filter: { status: 'pending' }, limit: 1000 }))
          .updated,
      ) > 0
    );
    for (const fake of [fakes.asaas, fakes.paypal, fakes.stripe]) fake.delayMs = LATENCY_MS;

    const pageView = pageViewBody(merchant.publicId, codes[0] ?? '');
    const figures: Figure[] = [];
    for (const rail of rails) {
      // Alone: the same probe for 3 s with nothing being sent.
      const probe = startProbe(url, merchant.key, pageView);
      await sleep(3000);
      probe.cut();
      const started = Date.now();
      const run = await api('POST', '/v1/payout-runs', { rail });
      const ids = (run.payouts as Array<{ payoutId: number }>).map((line) => line.payoutId);
      if (ids.length !== perRail) throw new Error(`${ids.length} ${rail} payouts made, not ${perRail}`);
      for (;;) {
        const left = await db('payouts')
          .whereIn('id', ids)
          .whereIn('status', ['pending', 'processing'])
          .count({ n: '*' });
        if (Number(left[0]?.n ?? 0) === 0) break;
        await sleep(50);
      }
      const seconds = (Date.now() - started) / 1000;
      const [alone = [], duringSamples = []] = await probe.stop();
      const paid = await db('payouts').whereIn('id', ids).where('status', 'paid').count({ n: '*' });
      if (Number(paid[0]?.n ?? 0) !== perRail) throw new Error(`not every ${rail} payout was paid`);
      const sendPath = { pix: '/v3/transfers', paypal: '/v1/payments/payouts', stripe: '/v1/transfers' }[rail];
      const calls = fakes[rail === 'pix' ? 'asaas' : rail].requests.filter(
        (req) => req.method === 'POST' && req.path === sendPath,
      ).length;
      const floor = rail === 'paypal' ? LATENCY_MS / 1000 : perRail / PER_SECOND;
      figures.push(
        makeFigure({
          name: `${perRail.toLocaleString('en')} ${rail} payouts sent and paid (fake answering in ${LATENCY_MS} ms)`,
          engine,
          value: seconds,
          unit: 's',
          baseline: floor,
          baselineName:
            rail === 'paypal'
              ? 'one call to the provider'
              : `${perRail.toLocaleString('en')} calls at ${PER_SECOND} a second (PAYOUT_*_PER_SECOND)`,
          note: `${calls} send calls at the fake`,
        }),
        makeFigure({
          name: `single-event intake p99 while ${rail} payouts are sent`,
          engine,
          value: percentile(duringSamples, 99),
          unit: 'ms',
          baseline: percentile(alone, 99),
          baselineName: 'its p99 alone, just before',
          target: { on: 'ratio', op: '<=', limit: 2 },
          note: `${duringSamples.length} requests during, ${alone.length} alone`,
        }),
      );
      for (const fake of [fakes.asaas, fakes.paypal, fakes.stripe]) fake.requests.length = 0;
    }
    return figures;
  } finally {
    await daemon?.stop();
    await closeRailFakes(fakes);
    await database.drop();
  }
}

export const parts: Part[] = [
  { names: ['payouts', ...RAILS.map((rail) => `payouts-${rail}`)], groups: ['payouts'], run: benchPayouts },
];

await runIfMain(import.meta.url, parts);

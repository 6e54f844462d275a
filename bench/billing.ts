/**
 * Billing integrations (docs/integrations.md): Stripe `invoice.paid` events per second through
 * POST /v1/integrations/stripe/{campaign}, each signed and each a new conversion, beside the same
 * conversions POSTed to /v1/events one per request, in the same run, at the same concurrency.
 * The route does more per sale (signature, log row, attribution, order references) in one
 * transaction and commit of its own, where /v1/events shares group commits: the ratio is that
 * price. Reported without a target.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/billing.ts [sqlite|mysql]`.
 */
import { Pool } from 'undici';
import { stripeSignature } from '../test/helpers/billing.js';
import { runIfMain } from './lib/direct.js';
import { activeCodes, conversionEvent } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { seedAffiliates, withStage } from './lib/stage.js';
import { medianOfRounds } from './lib/stats.js';

const SECRET = 'whsec_bench_0123456789abcdefghijklmnop';
/** Providers deliver webhooks over a handful of connections at a time. */
const CONNECTIONS = 16;

interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** An `invoice.paid` of the 2025-03-31 layout naming the affiliate in the subscription's metadata. */
function invoicePaid(code: string, tag: string, n: number): string {
  return JSON.stringify({
    id: `evt_${tag}_${n}`,
    object: 'event',
    api_version: '2025-03-31.basil',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type: 'invoice.paid',
    data: {
      object: {
        id: `in_${tag}_${n}`,
        object: 'invoice',
        customer: `cus_${tag}_${n}`,
        amount_paid: 4990,
        currency: 'brl',
        billing_reason: 'subscription_create',
        total_taxes: [],
        parent: {
          type: 'subscription_details',
          subscription_details: { subscription: `sub_${tag}_${n}`, metadata: { affiliated_ref: code } },
        },
      },
    },
  });
}

/** Sends every delivery, `CONNECTIONS` at a time; answers per second. Every one must be a new conversion. */
async function deliver(
  url: string,
  deliveries: readonly Delivery[],
  stored: (text: string) => boolean,
): Promise<number> {
  const pool = new Pool(url, { connections: CONNECTIONS });
  let next = 0;
  try {
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        for (let i = next++; i < deliveries.length; i = next++) {
          const delivery = deliveries[i];
          if (!delivery) continue;
          const res = await pool.request({ method: 'POST', ...delivery });
          const text = await res.body.text();
          if (res.statusCode !== 200 || !stored(text)) {
            throw new Error(`${delivery.path} answered ${res.statusCode}: ${text.slice(0, 200)}`);
          }
        }
      }),
    );
    return deliveries.length / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    await pool.close();
  }
}

export function benchStripeInvoices(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon }) => {
      const put = await fetch(`${daemon.url}/v1/integrations/stripe`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-api-key': merchant.key },
        body: JSON.stringify({ signingSecret: SECRET }),
      });
      if (put.status !== 200) throw new Error(`PUT /v1/integrations/stripe answered ${put.status}`);
      const codes = await activeCodes(db, merchant.campaignId);
      const count = opts.quick ? 500 : 1_000;
      const path = `/v1/integrations/stripe/${merchant.publicId}`;
      // Signed just before each round: a signature is good for 300 seconds.
      const stripe = (tag: string) =>
        Array.from({ length: count }, (_, n) => {
          const body = invoicePaid(codes[n % codes.length] ?? '', tag, n);
          return {
            path,
            headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(body, SECRET) },
            body,
          };
        });
      const events = (tag: string) =>
        Array.from({ length: count }, (_, n) => ({
          path: '/v1/events',
          headers: { 'content-type': 'application/json', 'x-api-key': merchant.key },
          body: JSON.stringify({ events: [conversionEvent(merchant.publicId, codes, tag, n)] }),
        }));
      const converted = (text: string) => text.includes('"outcome":"conversion_created"');
      const accepted = (text: string) => text.includes('"accepted":1');
      await deliver(daemon.url, stripe('warm').slice(0, 200), converted);
      await deliver(daemon.url, events('warm').slice(0, 200), accepted);
      const m = await medianOfRounds(opts.repeats, async (round) => ({
        real: await deliver(daemon.url, stripe(`r${round}`), converted),
        base: await deliver(daemon.url, events(`e${round}`), accepted),
      }));
      return [
        makeFigure({
          name: 'Stripe invoice.paid events through POST /v1/integrations/stripe/{campaign}, each a new conversion',
          engine,
          value: m.real,
          unit: 'events/s',
          baseline: m.base,
          baselineUnit: 'events/s',
          baselineName: 'the same conversions POSTed to /v1/events, one per request',
          note: `${count.toLocaleString('en')} a round, ${CONNECTIONS} connections`,
        }),
      ];
    },
    seedAffiliates(100),
    `billing-${engine}`,
  );
}

export const parts: Part[] = [part('billing', 'billing', benchStripeInvoices)];

await runIfMain(import.meta.url, parts);

import { Pool } from 'undici';
import type { Db } from '../../server/db/knex.js';

/** Referral codes of the campaign's active affiliates (events of others are skipped). */
export async function activeCodes(db: Db, campaignId: number): Promise<string[]> {
  const codes = await db('affiliates')
    .where({ campaign_id: campaignId, status: 'active' })
    .orderBy('id')
    .pluck('referral_id');
  if (codes.length === 0) throw new Error('the bench campaign has no active affiliate');
  return codes.map(String);
}

/** POST /v1/events of one page view of the campaign's first active affiliate, with the merchant's key. */
export async function pageViewRequest(db: Db, merchant: { campaignId: number; publicId: string; key: string }) {
  const [code] = await activeCodes(db, merchant.campaignId);
  return {
    method: 'POST' as const,
    body: pageViewBody(merchant.publicId, code ?? ''),
    headers: { 'content-type': 'application/json', 'x-api-key': merchant.key },
  };
}

/** One page view, the body the browser script or a backend sends for each view. */
export function pageViewBody(publicId: string, code: string): string {
  return JSON.stringify({
    events: [
      {
        event_type: 'page_view',
        campaign_id: publicId,
        affiliate_id: code,
        properties: { url: 'https://shop.example.com/products/42' },
      },
    ],
  });
}

/** A conversion as a backend reports an order; `n` makes its order_id unique within `tag`. */
export function conversionEvent(publicId: string, codes: readonly string[], tag: string, n: number) {
  return {
    event_type: 'conversion',
    campaign_id: publicId,
    affiliate_id: codes[n % codes.length],
    properties: { order_id: `${tag}-${n}`, order_value: 49.9 },
  };
}

/**
 * Sends `batches` requests of `size` conversions (conversionEvent's, or `event`'s) to POST
 * /v1/events, `inFlight` at a time (1 by default: one after another) over as many kept-alive
 * connections, and answers the events stored per second. The bodies are built before the clock
 * starts, so the rate is the daemon's, not this process's JSON.stringify. Every event must be
 * accepted: skipped or refused ones would make the rate mean something else. Given several
 * daemons' URLs, the batches go to them in turn (batch b to daemon b mod n), as a round-robin
 * load balancer sends them.
 */
export async function sendConversionBatches(
  url: string | readonly string[],
  key: string,
  publicId: string,
  codes: readonly string[],
  options: { batches: number; size: number; tag: string; inFlight?: number; event?: (n: number) => object },
): Promise<number> {
  const event = options.event ?? ((n: number) => conversionEvent(publicId, codes, options.tag, n));
  const inFlight = Math.max(1, options.inFlight ?? 1);
  const urls = typeof url === 'string' ? [url] : url;
  const pools = urls.map((u) => new Pool(u, { connections: inFlight }));
  try {
    const bodies = Array.from({ length: options.batches }, (_, b) =>
      JSON.stringify({
        events: Array.from({ length: options.size }, (_, i) => event(b * options.size + i)),
      }),
    );
    let next = 0;
    let accepted = 0;
    const sender = async () => {
      for (;;) {
        const b = next++;
        const body = bodies[b];
        if (body === undefined) return;
        const pool = pools[b % pools.length];
        if (!pool) throw new Error('sendConversionBatches needs a URL');
        const res = await pool.request({
          path: '/v1/events',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200)
          throw new Error(`POST /v1/events answered ${res.statusCode}: ${text.slice(0, 200)}`);
        accepted += (JSON.parse(text) as { accepted: number }).accepted;
      }
    };
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: inFlight }, sender));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const expected = options.batches * options.size;
    if (accepted !== expected) throw new Error(`intake accepted ${accepted} of ${expected} conversions`);
    return expected / seconds;
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
}

import type { Db } from '../../../server/db/knex.js';
import type { Merchant } from '../../helpers/daemon.js';
import { type Answer, ask } from './http.js';

/** One round's world: the database, the daemons, and the seeded randomness that picks everything. */
export interface Race {
  db: Db;
  /**
   * The daemons (one per node on a Galera cluster, two on MariaDB, one on SQLite); each request
   * goes to one of them at random.
   */
  urls: string[];
  random: () => number;
}

/** What a round found: rows past a limit, and rows stored twice. Both must be zero. */
export interface Outcome {
  overshoots: number;
  doubles: number;
  requests: number;
}

export const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;
export const between = (random: () => number, low: number, high: number) =>
  low + Math.floor(random() * (high - low + 1));

/** All at once: each request leaves after a random 0–3 ms, to a random daemon. */
export async function together(race: Race, requests: ((url: string) => Promise<Answer>)[]): Promise<Answer[]> {
  return Promise.all(
    requests.map(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(race.random() * 4)));
      return request(pick(race.random, race.urls));
    }),
  );
}

export const post = (url: string, key: string, path: string, body: unknown) =>
  ask(url, {
    method: 'POST',
    path,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

export const conversion = (merchant: Merchant, code: string, orderId: string, extra: Record<string, unknown> = {}) => ({
  event_type: 'conversion',
  campaign_id: merchant.publicId,
  affiliate_id: code,
  properties: { order_id: orderId, order_value: 10, ...extra },
});

export const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);

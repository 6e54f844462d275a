import { expect } from 'chai';
import { checkPayoutDetails, type PixKeyType } from '../../shared/payoutDetails.js';
import type { Db } from '../../server/db/knex.js';
import { setPayoutDetails } from '../../server/repositories/portalAccounts.js';
import { findPayout } from '../../server/repositories/payouts.js';
import { type Merchant, servicesFor, type TestDaemon, useTestDaemon } from './daemon.js';
import { addAffiliate } from './events.js';
import { lifecycleApi } from './lifecycleApi.js';
import { FakeAsaas } from './fakes/asaas.js';
import { FakePayPal } from './fakes/paypal.js';
import { FakeStripe } from './fakes/stripe.js';

/** The three providers' fakes, and the environment that points a daemon at them. */
export interface RailFakes {
  asaas: FakeAsaas;
  paypal: FakePayPal;
  stripe: FakeStripe;
}

export async function startRailFakes(): Promise<RailFakes> {
  const fakes = { asaas: new FakeAsaas(), paypal: new FakePayPal(), stripe: new FakeStripe() };
  await Promise.all([fakes.asaas.start(), fakes.paypal.start(), fakes.stripe.start()]);
  return fakes;
}

export async function closeRailFakes(fakes: RailFakes | undefined): Promise<void> {
  await Promise.all([fakes?.asaas.close(), fakes?.paypal.close(), fakes?.stripe.close()]);
}

/** Quick timeouts, polls and retries, so a test waits out an unclear answer in a second or two. */
export function railEnv(fakes: RailFakes): Record<string, string> {
  return {
    PAYOUT_ASAAS_URL: fakes.asaas.url,
    PAYOUT_PAYPAL_URL: fakes.paypal.url,
    PAYOUT_STRIPE_URL: fakes.stripe.url,
    PAYOUT_TIMEOUT_MS: '700',
    PAYOUT_LEASE_MS: '2000',
    PAYOUT_POLL_MS: '200',
    PAYOUT_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
  };
}

/**
 * One daemon for a test file, pointed at the three providers' fakes: the fakes start before it
 * and close after it. `extra` adds to (or overrides) its environment; `env` is the whole of it,
 * for a second daemon on the same database.
 */
export function useRailDaemon(extra: Record<string, string> = {}): {
  t: TestDaemon;
  fakes: RailFakes;
  rails: ReturnType<typeof railApi>;
  env: Record<string, string>;
} {
  // Built now, listening from `before`: a test file reads `fakes` while mocha collects it.
  const fakes: RailFakes = { asaas: new FakeAsaas(), paypal: new FakePayPal(), stripe: new FakeStripe() };
  const env: Record<string, string> = {};
  before(async () => {
    await Promise.all([fakes.asaas.start(), fakes.paypal.start(), fakes.stripe.start()]);
    Object.assign(env, railEnv(fakes), extra);
  });
  const t = useTestDaemon(env);
  after(() => closeRailFakes(fakes));
  const rails = railApi(
    () => t.url,
    () => t.merchant,
    () => t.db,
  );
  return { t, fakes, rails, env };
}

export type Details =
  | { method: 'pix'; pixKeyType: PixKeyType; account: string }
  | { method: 'paypal'; account: string }
  | { method: 'stripe'; account: string };

/** The merchant's API over HTTP, with what paying an affiliate on a rail takes. */
export function railApi(url: () => string, merchant: () => Merchant, db: () => Db) {
  const life = lifecycleApi(url, merchant);
  const { api } = life;

  /** Connects every rail with the fakes' credentials (and webhook tokens). */
  async function connect(fakes: RailFakes): Promise<void> {
    const bodies = {
      pix: { apiKey: fakes.asaas.apiKey, webhookToken: fakes.asaas.webhookToken },
      paypal: {
        clientId: fakes.paypal.clientId,
        clientSecret: fakes.paypal.clientSecret,
        webhookToken: fakes.paypal.webhookId,
      },
      stripe: { secretKey: fakes.stripe.secretKey },
    };
    for (const [rail, body] of Object.entries(bodies)) {
      const reply = await api('PUT', `/v1/payout-rails/${rail}`, body);
      expect(reply.status, reply.text).to.equal(200);
    }
  }

  /** An affiliate with these payout details (or none) and approved conversions of these order values (10 %). */
  async function owed(details: Details | null, orders: readonly number[]): Promise<{ id: number; code: string }> {
    const { id, code } = await addAffiliate(db(), merchant().campaignId);
    if (details) {
      const check = checkPayoutDetails(details);
      if (!check.ok) throw new Error(`bad details ${JSON.stringify(details)}`);
      await db().transaction((trx) => setPayoutDetails(trx, id, check.details, check.identity, new Date()));
    }
    const ids = await life.arrive(
      code,
      orders.map((value, i) => [`o-${id}-${i}`, value] as const),
    );
    await life.approve(...ids);
    return { id, code };
  }

  /** An affiliate with these payout details and a pending payout of these order values (10 % commission). */
  async function pendingPayout(
    details: Details,
    orders: readonly number[],
  ): Promise<{ affiliateId: number; payout: any }> {
    const { id } = await owed(details, orders);
    const made = await life.payout(id);
    expect(made.status, made.text).to.equal(201);
    return { affiliateId: id, payout: made.body };
  }

  const send = (id: number) => api('POST', `/v1/payouts/${id}/send`);
  const get = async (id: number) => (await api('GET', `/v1/payouts/${id}`)).body;

  /** Waits until the payout is no longer `processing` (or `pending`), and answers it. */
  async function settled(id: number, withinMs = 15_000): Promise<any> {
    const until = Date.now() + withinMs;
    for (;;) {
      const payout = await get(id);
      if (payout.status === 'paid' || payout.status === 'failed') return payout;
      if (Date.now() > until) throw new Error(`payout ${id} still ${payout.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  return { ...life, connect, owed, pendingPayout, send, get, settled };
}

/** Waits until `probe` holds. */
export async function eventually(
  probe: () => boolean | Promise<boolean>,
  what: string,
  withinMs = 10_000,
): Promise<void> {
  const until = Date.now() + withinMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Commits the send intents of these pending payouts in one transaction, as a payout run does, so
 * the send queue finds them due together. `heldBy`: the sends are left leased under that token
 * (a daemon that claimed them and is about to call), so no daemon takes them until it runs out.
 */
export async function commitSends(
  db: Db,
  campaignId: number,
  payoutIds: readonly number[],
  heldBy?: { token: string; untilMs: number },
): Promise<void> {
  const { payoutSender } = servicesFor(db);
  await db.transaction(async (trx) => {
    const now = new Date();
    for (const id of payoutIds) {
      const payout = await findPayout(trx, campaignId, id);
      if (!payout || !(await payoutSender.sendIn(trx, campaignId, payout, now)))
        throw new Error(`payout ${id} not sent`);
    }
    if (heldBy) {
      await trx('payout_sends')
        .whereIn('payout_id', payoutIds)
        .update({ lease_token: heldBy.token, lease_until: new Date(Date.now() + heldBy.untilMs) });
    }
  });
}

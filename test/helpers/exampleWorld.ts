import {
  EXAMPLE_ANA,
  EXAMPLE_ANA_PAYOUT,
  EXAMPLE_BILLING,
  EXAMPLE_RAILS,
  EXAMPLE_COUPON,
  EXAMPLE_STRIPE_BINDING,
  EXAMPLE_BRUNO,
  EXAMPLE_CAMPAIGN,
  EXAMPLE_DANI,
  EXAMPLE_GROUP,
  EXAMPLE_ORDERS,
  EXAMPLE_PAYOUT,
  EXAMPLE_WEBHOOK,
  exampleWorldEvents,
} from '../../shared/contract/examples.js';
import type { Db } from '../../server/db/knex.js';
import { fanOutRounds } from '../../server/services/webhooks/fanout.js';
import { servicesFor } from './daemon.js';
import { resetTables } from './database.js';
import { sendEvent } from './billing.js';
import { call } from './http.js';
import { checkPayoutDetails } from '../../shared/payoutDetails.js';
import { setPayoutDetails } from '../../server/repositories/portalAccounts.js';

/**
 * Builds the document's example world (shared/contract/examples.ts) in an emptied database,
 * through the daemon's API as a merchant would, and checks that every row got the id the
 * examples name. Returns the API key of its campaign.
 */
export async function buildExampleWorld(db: Db, url: string): Promise<string> {
  await resetTables(db);
  const services = servicesFor(db);
  const campaign = await services.campaigns.create({
    name: EXAMPLE_CAMPAIGN.name,
    plan: EXAMPLE_CAMPAIGN.plan,
    publicId: EXAMPLE_CAMPAIGN.publicId,
  });
  expectId('campaign', campaign.id, EXAMPLE_CAMPAIGN.id);
  // Its affiliate portal is on: an invitation's link points there.
  await services.campaigns.update(campaign.id, { portal: true });
  const { key } = await services.apiKeys.create({ campaign: campaign.id, name: 'examples' });
  const send = async (method: string, path: string, body: unknown, status: number) => {
    const reply = await call<{ id: number }>(url, method, path, { key, body });
    if (reply.status !== status)
      throw new Error(`example world: ${method} ${path} answered ${reply.status} ${reply.text}`);
    return reply.body;
  };
  for (const { password, ...affiliate } of [EXAMPLE_ANA, EXAMPLE_BRUNO, EXAMPLE_DANI]) {
    const { id, ...fields } = affiliate;
    expectId('affiliate', (await send('POST', '/v1/affiliates', { ...fields, password }, 201)).id, id);
  }
  const { id: webhookId, ...webhook } = EXAMPLE_WEBHOOK;
  expectId('webhook', (await send('POST', '/v1/webhooks', webhook, 201)).id, webhookId);
  await send('POST', '/v1/events', { events: exampleWorldEvents() }, 200);
  const [, second, third] = EXAMPLE_ORDERS;
  await send('PATCH', `/v1/conversions/${third.id}`, { status: 'approved' }, 200);
  expectId('payout', (await send('POST', '/v1/payouts', { affiliateId: EXAMPLE_ANA.id }, 201)).id, EXAMPLE_PAYOUT.id);
  await send('PATCH', `/v1/conversions/${second.id}`, { status: 'approved' }, 200);
  const { id: groupId, ...group } = EXAMPLE_GROUP;
  expectId('group', (await send('POST', '/v1/groups', group, 201)).id, groupId);
  await send('PATCH', `/v1/affiliates/${EXAMPLE_BRUNO.id}`, { groupId, parentAffiliateId: EXAMPLE_ANA.id }, 200);
  // The approvals' messages become deliveries 1 and 2 now, as a running worker would make them
  // (the document's examples name them; some tests stop the worker).
  const fanOut = fanOutRounds(db);
  while (await fanOut.round());
  await send('POST', `/v1/affiliates/${EXAMPLE_ANA.id}/coupons`, { code: EXAMPLE_COUPON.code }, 201);
  await send('PUT', '/v1/payout-rails/pix', EXAMPLE_RAILS.pix, 200);
  await send('PUT', '/v1/payout-rails/paypal', EXAMPLE_RAILS.paypal, 200);
  await send('PUT', '/v1/payout-rails/stripe', EXAMPLE_RAILS.stripe, 200);
  // Ana's payout details, as she saves them in the portal.
  const details = checkPayoutDetails({ method: 'pix', pixKeyType: 'email', account: EXAMPLE_ANA_PAYOUT.payoutAccount });
  if (!details.ok) throw new Error('example world: Ana’s Pix key is not one');
  await db.transaction((trx) => setPayoutDetails(trx, EXAMPLE_ANA.id, details.details, details.identity, new Date()));
  await send('PUT', '/v1/integrations/stripe', { signingSecret: EXAMPLE_BILLING.stripeSecret }, 200);
  await send('PUT', '/v1/integrations/paddle', { signingSecret: EXAMPLE_BILLING.paddleSecret }, 200);
  const bound = await sendEvent(url, 'stripe', EXAMPLE_CAMPAIGN.publicId, EXAMPLE_STRIPE_BINDING, {
    secret: EXAMPLE_BILLING.stripeSecret,
  });
  if (bound.body?.outcome !== 'customer_bound')
    throw new Error(`example world: the Stripe checkout answered ${bound.text}`);
  return key;
}

/**
 * Whether this database hands out ids one after another. A Galera node does not: with
 * wsrep_auto_increment_control it steps ids by the cluster's size (1, 4, 7 on three nodes), so the
 * example world's ids (1, 2, 3) cannot be rebuilt there. The document's examples are checked on
 * MariaDB and SQLite by `npm test`; the cluster run skips them, saying why.
 */
export async function idsStepByOne(db: Db): Promise<boolean> {
  if (db.client.config.client !== 'mysql2') return true;
  const [rows] = (await db.raw('SELECT @@auto_increment_increment AS step')) as [Array<{ step: number }>];
  return Number(rows[0]?.step) === 1;
}

function expectId(what: string, actual: number, expected: number): void {
  if (actual !== expected)
    throw new Error(`example world: the ${what} got id ${actual}, the examples name ${expected}`);
}

import { expect } from 'chai';
import type { Daemon } from '../../server/main.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { type Operation, operationsOf, requestUrl } from '../helpers/document.js';
import { buildExampleWorld, idsStepByOne } from '../helpers/exampleWorld.js';
import { call } from '../helpers/http.js';
import { exampleSignature } from '../helpers/billing.js';
import { EXAMPLE_BILLING, EXAMPLE_RAILS } from '../../shared/contract/examples.js';
import { FakePayPal, signPayPalBody } from '../helpers/fakes/paypal.js';

const EXAMPLE_SECRETS = { stripe: EXAMPLE_BILLING.stripeSecret, paddle: EXAMPLE_BILLING.paddleSecret };

/** Values that differ from run to run: times, secrets, message ids, this month, a random key's prefix (`label`), links with a fresh token, a payout's random reference. */
const VOLATILE = /At$|^secret$|^messageId$|^month$|^label$|^link$|^reference$/;

/** Where an answer differs from the documented one, times and secrets aside (same type there). */
function differences(actual: unknown, expected: unknown, path = ''): string[] {
  const name = path.split('.').pop() ?? '';
  if (VOLATILE.test(name)) {
    return (actual === null) === (expected === null) && typeof actual === typeof expected
      ? []
      : [`${path}: ${JSON.stringify(actual)}, documented ${JSON.stringify(expected)}`];
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return [`${path}: ${actual.length} items, documented ${expected.length}`];
    return actual.flatMap((item, i) => differences(item, expected[i], `${path}.${i}`));
  }
  if (isObject(actual) && isObject(expected)) {
    const keys = [...new Set([...Object.keys(actual), ...Object.keys(expected)])];
    return keys.flatMap((key) => differences(actual[key], expected[key], path ? `${path}.${key}` : key));
  }
  return actual === expected ? [] : [`${path}: ${JSON.stringify(actual)}, documented ${JSON.stringify(expected)}`];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The answer of an operation the reference documents, with an example (exactly one per operation). */
function documented(operation: Operation): { status: number; example: unknown; contentType: string } {
  const entries = Object.entries(operation.responses).filter(([, response]) => response.example !== undefined);
  const successes = entries.filter(([status]) => status.startsWith('2'));
  expect(successes, `${operation.operationId}: one success answer with an example`).to.have.length(1);
  const [status, response] = successes[0] as [string, Operation['responses'][string]];
  return { status: Number(status), example: response.example, contentType: response.contentType ?? '' };
}

/**
 * The reference's "Try it out", for every operation: in the example world, the documented
 * request (its parameters' and body's examples, as the page fills them in) gets the documented
 * status and the documented answer. The world is built anew for each, so examples that change
 * it (a delete, a payout) never affect another.
 */
describe(`every example of the document, sent to the daemon (${ENGINE})`, function () {
  // One test builds the world anew for each of about 60 operations: 35 s on SQLite, two to four
  // minutes on a loaded MariaDB or a Galera node, and it grows with every route the document gains.
  this.timeout(600_000);
  let database: TestDatabase;
  let daemon: Daemon;
  let operations: Operation[] = [];
  // PayPal's webhook certificate: the document's PayPal callback is signed as PayPal signs it.
  let paypal: FakePayPal | undefined;

  before(async function () {
    database = await createTestDatabase();
    if (!(await idsStepByOne(database.db))) {
      console.log(
        '      skipped: this database steps ids by the cluster size (Galera), the example world needs 1, 2, 3',
      );
      return this.skip();
    }
    // Example URLs are on example.com: never resolved (private networks allowed) nor called.
    paypal = await new FakePayPal().start();
    daemon = await startTestDaemon(database.url, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      PAYOUT_PAYPAL_URL: paypal.url,
    });
    // Nothing is delivered or paid: the example's payout stays processing, as documented.
    const quiet = new Set(['webhooks', 'payouts']);
    await Promise.all(daemon.services.workers.filter((worker) => quiet.has(worker.name)).map((w) => w.stop()));
    const reply = await call<Record<string, unknown>>(daemon.url, 'GET', '/v1/openapi.json');
    operations = operationsOf(reply.body);
  });
  after(async () => {
    await daemon?.close();
    await paypal?.close();
    await database?.drop();
  });

  /** The headers a provider sends with the receiving route's example body. */
  function signatureFor(path: string, body: unknown): Record<string, string> | undefined {
    if (path.startsWith('/v1/integrations/asaas-payouts/'))
      return { 'asaas-access-token': EXAMPLE_RAILS.pix.webhookToken };
    if (path.startsWith('/v1/integrations/paypal-payouts/') && paypal) {
      return signPayPalBody(JSON.stringify(body), EXAMPLE_RAILS.paypal.webhookToken, paypal.certUrl);
    }
    return exampleSignature(path, body, EXAMPLE_SECRETS);
  }

  it('answers each documented request with the documented status and answer', async () => {
    expect(operations.length).to.be.above(30);
    const failures: string[] = [];
    for (const operation of operations) {
      const key = await buildExampleWorld(database.db, daemon.url);
      const value = (name: string) => operation.parameters.find((p) => p.name === name)?.example;
      const params = Object.fromEntries(
        operation.parameters.filter((p) => p.in === 'path').map((p) => [p.name, value(p.name)]),
      );
      const query = Object.fromEntries(
        operation.parameters.filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, p.example]),
      );
      const { status, example, contentType } = documented(operation);
      const what = `${operation.method} ${operation.path}`;
      const reply = await call(daemon.url, operation.method, requestUrl(operation, params, query), {
        key,
        body: operation.body?.example,
        // The receiving routes' example is signed as the provider would sign it.
        headers: signatureFor(operation.path, operation.body?.example),
      });
      if (reply.status !== status) {
        failures.push(`${what}: ${reply.status} ${reply.text.slice(0, 300)}, documented ${status}`);
        continue;
      }
      expect(String(reply.headers['content-type']), what).to.contain(contentType.split(';')[0]);
      if (!contentType.startsWith('application/json')) continue;
      // The document cannot hold itself: its example is an excerpt of it.
      if (operation.operationId === 'getOpenApi') {
        expect(reply.body, what).to.deep.include({ openapi: (example as { openapi: string }).openapi });
        continue;
      }
      failures.push(...differences(reply.body, example).map((line) => `${what}: ${line}`));
    }
    expect(failures).to.deep.equal([]);
  });
});

import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { allRoutes, isContentResponse, type RouteSpec, schemaOf } from '../../shared/contract/index.js';
import { BODY_LIMIT_BYTES } from '../../server/middleware/body.js';
import { statusName } from '../../shared/errors.js';
import { createMerchant, type Merchant, revokeKey } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import type { Hints } from './support/arbitraries.js';
import { changes, type Fingerprinter, fingerprinter } from './support/fingerprint.js';
import { ask, send } from './support/http.js';
import type { Tree } from './support/json.js';
import { recorder } from './support/recorder.js';
import { providerEventRequest } from './support/providerEvents.js';
import { describeRequest, type FuzzRequest, requestFor } from './support/requests.js';
import { reproduce, SEED } from './support/seed.js';
import { daemonEnv, type ServedDaemon, serve } from './support/served.js';

/** Requests per engine: FUZZ_RUNS, else 1,200 (about a minute on a laptop). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1200);

/** The billing integrations' signing secrets in the fuzzed daemon (never to appear in a log). */
const PROVIDER_SECRETS = {
  stripe: `whsec_fuzz${randomBytes(12).toString('hex')}`,
  paddle: `pdl_ntfset_fuzz${randomBytes(12).toString('hex')}`,
};

/** What no answer may ever contain: a stack frame, SQL, an engine's error text. */
const LEAK = /\bat \S+ \(|node_modules|\bselect\b.+\bfrom\b|\binsert into\b|SQLITE_|\bER_[A-Z_]+|knex/i;

/**
 * Property-based fuzzing of every route of the contract (routes added later are fuzzed without
 * a change here): the body, query, path and headers are generated from the route's zod schemas,
 * then mutated. Whatever arrives, the daemon (the real one, a child process) answers in the
 * spec's shape, never with a 500; a request the contract refuses gets a 4xx and stores nothing;
 * an accepted one answers what the contract says; the daemon stays up.
 */
describe(`fuzzing every contract route (${ENGINE})`, function () {
  this.timeout(30 * 60_000);
  let database: TestDatabase;
  let daemon: ServedDaemon;
  let merchant: Merchant;
  let other: Merchant;
  let fingerprint: Fingerprinter;
  let revokedKey = '';
  let firstLogLine = 0;
  const codes: string[] = [];
  const ids: string[] = [];
  const groupIds: string[] = [];
  const passwords = Array.from({ length: 4 }, () => `pw-${randomBytes(9).toString('base64url')}`);

  before(async () => {
    database = await createTestDatabase();
    firstLogLine = recorder.logLines().length;
    daemon = await serve(daemonEnv(database.url));
    merchant = await createMerchant(database.db);
    other = await createMerchant(database.db);
    const revoked = await createMerchant(database.db);
    await revokeKey(database.db, revoked.keyId);
    for (const secret of [merchant.key, other.key, revoked.key, ...passwords]) recorder.secret(secret);
    for (let i = 0; i < 4; i++) {
      const made = await ask(daemon.url, {
        method: 'POST',
        path: '/v1/affiliates',
        headers: { 'x-api-key': merchant.key, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `seed${i}@example.com`, password: passwords[i % passwords.length] }),
      });
      if (made.status !== 201) throw new Error(`fixture affiliate not created: ${made.text}`);
      const affiliate = made.json as { id: number; referralId: string };
      codes.push(affiliate.referralId);
      ids.push(String(affiliate.id));
    }
    // Groups to name in group routes' paths and in affiliates' groupId (and one of another campaign).
    for (const [key, name] of [
      [merchant.key, 'Top partners'],
      [merchant.key, 'Resellers'],
      [other.key, 'Theirs'],
    ] as const) {
      const made = await ask(daemon.url, {
        method: 'POST',
        path: '/v1/groups',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name, commissionType: 'percent', commissionValue: 12 }),
      });
      if (made.status !== 201) throw new Error(`fixture group not created: ${made.text}`);
      groupIds.push(String((made.json as { id: number }).id));
    }
    for (const [provider, secret] of Object.entries(PROVIDER_SECRETS)) {
      recorder.secret(secret);
      const set = await ask(daemon.url, {
        method: 'PUT',
        path: `/v1/integrations/${provider}`,
        headers: { 'x-api-key': merchant.key, 'content-type': 'application/json' },
        body: JSON.stringify({ signingSecret: secret }),
      });
      if (set.status !== 200) throw new Error(`fixture integration not set: ${set.text}`);
    }
    fingerprint = await fingerprinter(database.db);
    revokedKey = revoked.key;
  });

  after(async () => {
    await daemon?.stop('SIGTERM');
    await database?.drop();
  });

  function hints(route: RouteSpec): Hints {
    const affiliateIds = ids.map(Number);
    return {
      // A group route's path names a group (of this campaign, another's, or none), any other an affiliate.
      id: route.tag === 'Groups' ? fc.constantFrom(...groupIds, '999999') : fc.constantFrom(...ids),
      groupId: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...groupIds.map(Number)) },
        { weight: 2, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 1e6 }) },
      ),
      parentAffiliateId: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...affiliateIds) },
        { weight: 2, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 1e6 }) },
      ),
      campaign_id: fc.oneof(
        { weight: 8, arbitrary: fc.constant(merchant.publicId) },
        { weight: 1, arbitrary: fc.constant(other.publicId) },
        { weight: 1, arbitrary: fc.constant('no-such-campaign') },
      ),
      affiliate_id: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...codes) },
        { weight: 1, arbitrary: fc.constantFrom(...codes.map((code) => code.toLowerCase())) },
        { weight: 1, arbitrary: fc.constant('NOSUCHCODE') },
      ),
      email: fc.emailAddress(),
      password: fc.constantFrom(...passwords),
      order_value: fc.double({ min: 0.01, max: 1e6, noNaN: true }),
    } satisfies Record<string, fc.Arbitrary<Tree>>;
  }

  async function check(request: FuzzRequest): Promise<void> {
    const before = await fingerprint.take();
    const answer = await send(daemon.url, request);
    recorder.count('fuzz: inputs tried');
    if (answer === 'unsendable') {
      recorder.count('fuzz: inputs undici refused to send');
      return;
    }
    if (answer === 'reset') {
      // Only an oversized request may be cut short; then nothing was stored and the daemon is up.
      const oversized =
        Buffer.byteLength(request.body ?? '') > BODY_LIMIT_BYTES ||
        Object.values(request.headers).some((value) => value.length > 16 * 1024);
      expect(oversized, `${describeRequest(request)}: connection cut`).to.equal(true);
      const changed = changes(before, await fingerprint.take());
      expect(
        changed,
        `${describeRequest(request)}: a cut request changed the database: ${changed.join('; ')}`,
      ).to.deep.equal([]);
      recorder.count('fuzz: oversized, connection cut after the answer');
      return;
    }
    const { status } = answer;
    const what = `${describeRequest(request)} → ${status} ${answer.text.slice(0, 300)}`;
    // A method of no route is 501; any other answer below 500 (another route may serve the path).
    if (!(request.otherMethod && status === 501)) expect(status, what).to.be.below(500);
    if (request.mustRefuse.length > 0) {
      expect(status, `${what} (must refuse: ${request.mustRefuse.join(', ')})`).to.be.within(400, 499);
    }
    expect(answer.text, what).to.not.match(LEAK);
    if (status >= 400) {
      recorder.count('fuzz: refused (4xx)');
      expect(answer.json, what).to.be.an('object');
      const body = answer.json as Record<string, unknown>;
      expect(Object.keys(body).sort(), what).to.deep.equal(['error', 'message', 'statusCode']);
      expect(body.statusCode, what).to.equal(status);
      expect(body.error, what).to.equal(statusName(status));
      const messages = Array.isArray(body.message) ? body.message : [body.message];
      expect(messages.length, what).to.be.above(0);
      for (const message of messages) expect(message, what).to.be.a('string').and.not.equal('');
      const changed = changes(before, await fingerprint.take());
      expect(changed, `${what}: a refused request changed the database: ${changed.join('; ')}`).to.deep.equal([]);
    } else if (status === 304) {
      // Only a route that declares an ETag may answer that the client's copy is current.
      expect(request.route.etag, `${what}: a 304 from a route without an ETag`).to.equal(true);
      recorder.count('fuzz: not modified (304)');
    } else if (request.otherMethod) {
      recorder.count('fuzz: another route’s method, accepted (2xx)');
    } else {
      recorder.count('fuzz: accepted (2xx)');
      const spec = request.route.responses[status as keyof RouteSpec['responses']];
      expect(spec, `${what}: a status the contract does not list`).to.not.equal(undefined);
      if (spec && !isContentResponse(spec)) {
        const parsed = schemaOf(spec).safeParse(answer.json);
        expect(parsed.success, `${what}: the answer breaks the contract`).to.equal(true);
      }
    }
  }

  it('answers every generated request in the spec’s shape: 4xx when the contract refuses it, never a 500, nothing stored', async () => {
    const routes = allRoutes();
    const keys = { valid: merchant.key, revoked: revokedKey };
    const arbitrary = fc.constantFrom(...routes).chain((route) => requestFor(route, hints(route), keys));
    console.log(`      fuzz seed ${SEED}, ${RUNS} requests over ${routes.length} routes`);
    await fc
      .assert(
        fc.asyncProperty(arbitrary, async (request) => check(request)),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      )
      .catch((err: unknown) => {
        const cause = (err as { cause?: unknown }).cause;
        const why = cause instanceof Error ? `\n${cause.message}` : '';
        throw new Error(`${reproduce('fuzzing failed')}\n${(err as Error).message}${why}`);
      });
    const figures = [...recorder.figures()].filter(([name]) => name.startsWith('fuzz:'));
    console.log(`      ${figures.map(([name, n]) => `${name.slice(6)} ${n}`).join(', ')}`);
    const health = await ask(daemon.url, { method: 'GET', path: '/health' });
    expect(health.status, 'the daemon is still up').to.equal(200);
    expect(daemon.child.exitCode).to.equal(null);
  });

  it('answers every provider event, signed or not, mutated or not: never a 500, refusals store nothing', async () => {
    // Affiliates of its own: the first property may have deleted the fixture's.
    const payees: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await ask(daemon.url, {
        method: 'POST',
        path: '/v1/affiliates',
        headers: { 'x-api-key': merchant.key, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `payee${i}@example.com`, password: passwords[0] }),
      });
      if (made.status !== 201) throw new Error(`fixture affiliate not created: ${made.text}`);
      payees.push((made.json as { referralId: string }).referralId);
    }
    fingerprint = await fingerprinter(database.db);
    const arbitrary = providerEventRequest({ own: merchant.publicId, other: other.publicId }, payees, PROVIDER_SECRETS);
    const runs = Math.max(100, Math.round(RUNS / 4));
    console.log(`      fuzz seed ${SEED}, ${runs} provider events`);
    await fc
      .assert(
        fc.asyncProperty(arbitrary, async (request) => check(request)),
        { seed: SEED, numRuns: runs, endOnFailure: true },
      )
      .catch((err: unknown) => {
        const cause = (err as { cause?: unknown }).cause;
        const why = cause instanceof Error ? `\n${cause.message}` : '';
        throw new Error(`${reproduce('fuzzing provider events failed')}\n${(err as Error).message}${why}`);
      });
    const outcomes = await database
      .db('billing_events')
      .groupBy('outcome', 'reason')
      .select<{ outcome: string; reason: string | null; n: number | string }[]>(
        'outcome',
        'reason',
        database.db.raw('COUNT(*) as n'),
      );
    const outcome = (row: (typeof outcomes)[number]) => (row.reason ? `${row.outcome} (${row.reason})` : row.outcome);
    console.log(`      outcomes: ${outcomes.map((row) => `${outcome(row)} ${row.n}`).join(', ')}`);
    expect((await ask(daemon.url, { method: 'GET', path: '/health' })).status, 'the daemon is still up').to.equal(200);
  });

  it('logged no error and no fault of ours while it fuzzed', () => {
    const lines = recorder
      .logLines()
      .slice(firstLogLine)
      .map((line) => JSON.parse(line) as { level: string; thrownAt?: string; stack?: string });
    expect(lines.filter((line) => line.level === 'error')).to.deep.equal([]);
    expect(lines.filter((line) => line.thrownAt !== undefined || line.stack !== undefined)).to.deep.equal([]);
  });
});

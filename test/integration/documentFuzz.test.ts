import { expect } from 'chai';
import {
  EXAMPLE_ANA,
  EXAMPLE_BILLING,
  EXAMPLE_BRUNO,
  EXAMPLE_CAMPAIGN,
  EXAMPLE_GROUP,
} from '../../shared/contract/examples.js';
import { isTimeZone, offsetMinutes } from '../../server/services/analytics/zone.js';
import { isReversed } from '../../shared/dateRange.js';
import { exampleSignature } from '../helpers/billing.js';
import type { Daemon } from '../../server/main.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import {
  ajvText,
  type DocumentRequest,
  documentRequests,
  documentValidator,
  type Operation,
  operationsOf,
  requestUrl,
} from '../helpers/document.js';
import { buildExampleWorld, idsStepByOne } from '../helpers/exampleWorld.js';
import { call } from '../helpers/http.js';
import { SEED } from '../reliability/support/seed.js';

/** Generated requests tried per operation; the seed is fixed in CI, random locally, FUZZ_SEED=n replays. */
const TRIES = Number(process.env.DOCUMENT_FUZZ_TRIES ?? 24);

const DAY_MS = 24 * 60 * 60 * 1000;

/** A zone Intl knows whose offset is whole hours from 2000 to 2040 (the generator's dates), sampled monthly. */
function wholeHourZone(zone: string): boolean {
  if (!isTimeZone(zone)) return false;
  for (let at = Date.UTC(2000, 0, 1); at < Date.UTC(2040, 0, 1); at += 30 * DAY_MS) {
    if (offsetMinutes(zone, at) % 60 !== 0) return false;
  }
  return true;
}

/** A valid payout account per Pix key type and method (a Stripe id's pattern is in the document). */
const VALID_ACCOUNTS: Record<string, string> = {
  cpf: '529.982.247-25',
  cnpj: '11.222.333/0001-81',
  email: 'pix@example.com',
  phone: '+5511912345678',
  random: '123e4567-e89b-12d3-a456-426614174000',
  paypal: 'paypal@example.com',
};

/** Answers that refuse a request for its shape: none may meet a request the document calls valid. */
const SHAPE_REFUSALS = new Set([400, 413, 415, 422]);

/**
 * The rules each operation's description states because JSON Schema cannot (they depend on the
 * data, or compare two values): applied to a generated request as a client who read the
 * description would. Nothing else is changed.
 */
function followDescriptions(operation: Operation, request: DocumentRequest): DocumentRequest {
  const query = { ...request.query };
  let body = request.body;
  if (operation.operationId === 'sendEvents' || operation.operationId === 'sendBrowserEvents') {
    // "campaign_id: the API key's campaign on /v1/events, an existing campaign on /v1/sdk/events".
    const events = (body as { events?: Record<string, unknown>[] }).events ?? [];
    body = {
      ...(body as object),
      events: events.map((event) => ({ ...event, campaign_id: EXAMPLE_CAMPAIGN.publicId })),
    };
  }
  if (operation.operationId === 'getReferral') query.campaign = EXAMPLE_CAMPAIGN.publicId;
  if (operation.operationId === 'createAffiliate' || operation.operationId === 'updateAffiliate') {
    // "groupId must be a group of this campaign; parentAffiliateId another affiliate of it, not below this one".
    const fields = { ...(body as Record<string, unknown>) };
    if (typeof fields.groupId === 'number') fields.groupId = EXAMPLE_GROUP.id;
    // "The account's own rules (a CPF's check digits, a phone's area code) the document cannot
    // state": an account of its method and key type, as a client who read it would send.
    const details = fields.payoutDetails as { method?: string; pixKeyType?: string } | null | undefined;
    if (details && typeof details === 'object') {
      const kind = details.method === 'pix' ? details.pixKeyType : details.method;
      const account = VALID_ACCOUNTS[String(kind)];
      if (account !== undefined) fields.payoutDetails = { ...details, account };
    }
    if (typeof fields.parentAffiliateId === 'number') {
      const self = Number(request.params.id);
      if (self === EXAMPLE_ANA.id || self === EXAMPLE_BRUNO.id) delete fields.parentAffiliateId;
      else fields.parentAffiliateId = EXAMPLE_ANA.id;
    }
    body = fields;
  }
  if (operation.operationId === 'updateGroup') {
    // "A percent sent alone must suit the stored type (at most 100 for percent)."
    const fields = body as Record<string, unknown>;
    if (fields.commissionType === undefined && Number(fields.commissionValue) > 100) {
      body = { ...fields, commissionType: 'fixed' };
    }
  }
  let params = request.params;
  if (operation.operationId === 'receiveStripeEvent' || operation.operationId === 'receivePaddleEvent') {
    // "The campaign's public id": the URL the merchant gave the provider.
    params = { ...params, campaignPublicId: EXAMPLE_CAMPAIGN.publicId };
  }
  if (operation.operationId === 'listConversions' || operation.operationId === 'listAuditLog') {
    // "A from after to is 400."
    if (isReversed(query.from as string | undefined, query.to as string | undefined)) delete query.from;
  }
  if (operation.operationId === 'getAnalytics' || operation.operationId === 'getAnalyticsFunnel') {
    // "An unknown zone, a zone whose offset is not whole hours over the range, or from after to
    // is 400; at most 744 hours, 366 days or 120 months": a known whole-hour zone, and the
    // default range (29 days before to) where a given from breaks a rule.
    if (query.timezone !== undefined && !wholeHourZone(String(query.timezone))) delete query.timezone;
    const to = query.to === undefined ? Date.now() : Date.parse(String(query.to));
    if (
      query.from !== undefined &&
      !(to - Date.parse(String(query.from)) < 28 * DAY_MS && to >= Date.parse(String(query.from)))
    )
      delete query.from;
  }
  if (operation.operationId === 'getAffiliateReport') {
    // "A from after to (today when to is not given) is 400."
    const day = (value: unknown) => String(value).slice(0, 10);
    const to = query.to === undefined ? new Date().toISOString().slice(0, 10) : day(query.to);
    if (query.from !== undefined && day(query.from) > to) query.from = to;
  }
  return { ...request, params, query, body, url: requestUrl(operation, params, query) };
}

/**
 * Requests generated from the served OpenAPI document by a JSON-Schema-driven generator
 * (json-schema-faker), as a third party would generate them: on every operation, none that the
 * document calls valid (Ajv decides) is refused for its shape, every answer's status is one the
 * document lists, and every success answers as its schema says. State may still refuse (404 for
 * an id that does not exist, 409, 403): the document lists those.
 */
describe(`requests generated from the served document (${ENGINE})`, function () {
  this.timeout(300_000);
  let database: TestDatabase;
  let daemon: Daemon;
  let key = '';
  let document: Record<string, unknown> = {};

  before(async function () {
    database = await createTestDatabase();
    if (!(await idsStepByOne(database.db))) {
      console.log(
        '      skipped: this database steps ids by the cluster size (Galera), the example world needs 1, 2, 3',
      );
      return this.skip();
    }
    // Generated webhook URLs are never resolved (private networks allowed) nor called (no worker).
    daemon = await startTestDaemon(database.url, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    await Promise.all(daemon.services.workers.filter((worker) => worker.name === 'webhooks').map((w) => w.stop()));
    key = await buildExampleWorld(database.db, daemon.url);
    document = (await call<Record<string, unknown>>(daemon.url, 'GET', '/v1/openapi.json')).body;
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });

  it('refuses no request the document calls valid for its shape, on any operation', async () => {
    const generate = documentRequests(document, SEED);
    const validator = documentValidator(document);
    const failures: string[] = [];
    const counts: string[] = [];
    for (const operation of operationsOf(document)) {
      let sent = 0;
      for (let i = 0; i < TRIES; i++) {
        const generated = generate(operation);
        if (generated.invalid.length > 0) continue;
        const request = followDescriptions(operation, generated.request);
        sent++;
        // "Signed by the provider with the integration's secret": the receiving routes' header.
        const headers = exampleSignature(operation.path, request.body, {
          stripe: EXAMPLE_BILLING.stripeSecret,
          paddle: EXAMPLE_BILLING.paddleSecret,
        });
        const reply = await call(daemon.url, request.method, request.url, { key, body: request.body, headers });
        const what = `${request.method} ${request.url} ${JSON.stringify(request.body) ?? ''} → ${reply.status} ${reply.text.slice(0, 300)}`;
        const response = operation.responses[String(reply.status)];
        if (SHAPE_REFUSALS.has(reply.status)) failures.push(`refused for its shape: ${what}`);
        else if (!response) failures.push(`a status the document does not list: ${what}`);
        else if (reply.status < 300 && response.schema && response.contentType?.startsWith('application/json')) {
          const validate = validator(response.schema);
          if (!validate(reply.body))
            failures.push(`an answer the document does not describe (${ajvText(validate)}): ${what}`);
        }
      }
      counts.push(`${operation.operationId} ${sent}`);
      // A generator that reaches no valid request proves nothing about the operation.
      if (sent < TRIES / 3)
        failures.push(`${operation.operationId}: only ${sent} of ${TRIES} generated requests were valid`);
    }
    console.log(`      seed ${SEED}; valid requests sent: ${counts.join(', ')}`);
    expect(failures, `seed ${SEED} (FUZZ_SEED=${SEED} replays it)`).to.deep.equal([]);
  });
});

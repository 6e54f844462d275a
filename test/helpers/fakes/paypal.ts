import { createSign, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { PayPalSignatureHeaders } from '../../../server/services/payouts/providers/index.js';
import { FakeProvider, type FakeReply, type FakeRequest, fakeId, postCallback } from './server.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/paypal/${name}`, import.meta.url), 'utf8');
/** A self-signed certificate standing in for PayPal's webhook certificate (test/fixtures/paypal/). */
export const PAYPAL_FAKE_CERT = fixture('webhook-cert.pem');
const PAYPAL_FAKE_KEY = fixture('webhook-key.pem');

/** The signature headers of a PayPal notification, as the verifier takes them. */
export function signatureOf(headers: Record<string, string | string[] | undefined>): PayPalSignatureHeaders {
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    transmissionId: header('paypal-transmission-id'),
    transmissionTime: header('paypal-transmission-time'),
    transmissionSig: header('paypal-transmission-sig'),
    certUrl: header('paypal-cert-url'),
    authAlgo: header('paypal-auth-algo'),
  };
}

/** The headers PayPal sends with a notification of this body, signed with the fake's key. */
export function signPayPalBody(body: string, webhookId: string, certUrl: string): Record<string, string> {
  const transmissionId = randomUUID();
  const transmissionTime = new Date().toISOString();
  const signer = createSign('RSA-SHA256');
  signer.update(`${transmissionId}|${transmissionTime}|${webhookId}|${crc32(Buffer.from(body)) >>> 0}`);
  return {
    'paypal-transmission-id': transmissionId,
    'paypal-transmission-time': transmissionTime,
    'paypal-transmission-sig': signer.sign(PAYPAL_FAKE_KEY, 'base64'),
    'paypal-cert-url': certUrl,
    'paypal-auth-algo': 'SHA256withRSA',
  };
}

/** Currencies PayPal pays without decimals; every other one takes exactly two. */
const WHOLE = new Set(['JPY', 'HUF', 'TWD']);
const CURRENCIES = new Set(
  'AUD BRL CAD CNY CZK DKK EUR HKD HUF ILS JPY MYR MXN TWD NZD NOK PHP PLN GBP SGD SEK CHF THB USD'.split(' '),
);

interface Item {
  payout_item_id: string;
  transaction_id?: string;
  transaction_status: string;
  payout_batch_id: string;
  sender_batch_id: string;
  payout_item: {
    recipient_type: string;
    amount: { currency: string; value: string };
    receiver: string;
    sender_item_id: string;
    note?: string;
  };
  time_processed?: string;
  errors?: { name: string; message: string };
}

interface Batch {
  header: {
    payout_batch_id: string;
    batch_status: string;
    time_created: string;
    sender_batch_header: Record<string, unknown>;
  };
  items: Item[];
  created: FakeReply;
}

const debugId = () => fakeId('', 13).toLowerCase();

/**
 * PayPal's Payouts API on loopback (`payments_payouts_batch_v1`): OAuth2 client credentials,
 * `POST /v1/payments/payouts` (201, batch `PENDING`), a repeated `sender_batch_id` refused with a
 * link to the original batch, `PayPal-Request-Id` replaying the first answer, `GET` of a batch
 * paged by 1,000, and signed `PAYMENT.PAYOUTS-ITEM.*` webhooks whose certificate it serves.
 */
export class FakePayPal extends FakeProvider {
  readonly clientId = `fake-client-${randomUUID()}`;
  readonly clientSecret = `fake-secret-${randomUUID()}`;
  readonly webhookId = fakeId('WH', 17);
  readonly batches = new Map<string, Batch>();
  tokenRequests = 0;
  tokenLifetimeSeconds = 32_400;
  /** The sender's balance cannot cover a batch. */
  insufficientFunds = false;
  /** E-mails with no PayPal account: their items end `UNCLAIMED`. */
  readonly unregistered = new Set<string>();
  /** Replay the first answer to a repeated PayPal-Request-Id (off: the sender_batch_id refusal answers). */
  honourRequestId = true;
  /** Items are processed as soon as the batch is read (their webhooks sent); the create answer still says PENDING. */
  processAtOnce = true;
  callbackUrl: string | undefined;
  private tokens = new Set<string>();
  private requestIds = new Map<string, FakeReply>();

  /** Items actually created across batches (each one money sent or held for its receiver). */
  get itemCount(): number {
    return [...this.batches.values()].reduce((sum, batch) => sum + batch.items.length, 0);
  }

  itemsFor(reference: string): Item[] {
    return [...this.batches.values()].flatMap((batch) =>
      batch.items.filter((item) => item.payout_item.sender_item_id === reference),
    );
  }

  get certUrl(): string {
    return `${this.url}/v1/notifications/certs/CERT-fake-0001`;
  }

  /** Drops every token, as if they expired. */
  expireTokens(): void {
    this.tokens.clear();
  }

  protected serverError(status: number): unknown {
    return {
      name: 'INTERNAL_SERVER_ERROR',
      message: 'An internal server error occurred.',
      debug_id: debugId(),
      status,
    };
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    if (req.method === 'GET' && req.path === '/v1/notifications/certs/CERT-fake-0001')
      return { status: 200, body: PAYPAL_FAKE_CERT };
    if (req.method === 'POST' && req.path === '/v1/oauth2/token') return this.token(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !this.tokens.has(bearer)) {
      return {
        status: 401,
        body: {
          name: 'AUTHENTICATION_FAILURE',
          message: 'Authentication failed due to invalid authentication credentials or a missing Authorization header.',
          debug_id: debugId(),
        },
      };
    }
    if (req.method === 'POST' && req.path === '/v1/payments/payouts') return this.create(req);
    const one = /^\/v1\/payments\/payouts\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && one?.[1]) return this.show(one[1], req.query);
    return {
      status: 404,
      body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', debug_id: debugId() },
    };
  }

  private token(req: FakeRequest): FakeReply {
    this.tokenRequests++;
    const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
    if (req.headers.authorization !== expected || req.body !== 'grant_type=client_credentials') {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    }
    const token = `A21AA${randomUUID().replace(/-/g, '')}`;
    this.tokens.add(token);
    return {
      status: 200,
      body: {
        scope: 'https://uri.paypal.com/services/payments/payouts',
        access_token: token,
        token_type: 'Bearer',
        app_id: 'APP-80W284485P519543T',
        expires_in: this.tokenLifetimeSeconds,
        nonce: `${new Date().toISOString()}${debugId()}`,
      },
    };
  }

  private create(req: FakeRequest): FakeReply {
    const requestId =
      typeof req.headers['paypal-request-id'] === 'string' ? req.headers['paypal-request-id'] : undefined;
    const replay = requestId && this.honourRequestId ? this.requestIds.get(requestId) : undefined;
    if (replay) return replay;
    let body: { sender_batch_header?: { sender_batch_id?: string }; items?: Item['payout_item'][] };
    try {
      body = JSON.parse(req.body) as typeof body;
    } catch {
      return this.invalid('MALFORMED_REQUEST_JSON', '/');
    }
    const senderBatchId = body.sender_batch_header?.sender_batch_id;
    const items = body.items ?? [];
    if (!senderBatchId) return this.invalid('MISSING_REQUIRED_PARAMETER', '/sender_batch_header/sender_batch_id');
    if (items.length < 1 || items.length > 15_000) return this.invalid('INVALID_PARAMETER_VALUE', '/items');
    const original = [...this.batches.values()].find(
      (batch) => batch.header.sender_batch_header.sender_batch_id === senderBatchId,
    );
    if (original) {
      return {
        status: 400,
        body: {
          name: 'USER_BUSINESS_ERROR',
          message: 'User business error.',
          debug_id: debugId(),
          information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/#errors',
          details: [
            {
              field: 'SENDER_BATCH_ID',
              location: 'body',
              issue: `Batch with given sender_batch_id already exists: ${senderBatchId}`,
            },
          ],
          links: [
            {
              href: `${this.url}/v1/payments/payouts/${original.header.payout_batch_id}`,
              rel: 'self',
              method: 'GET',
              encType: 'application/json',
            },
          ],
        },
      };
    }
    for (const [i, item] of items.entries()) {
      const { currency, value } = item.amount ?? { currency: '', value: '' };
      if (!CURRENCIES.has(currency)) return this.invalid('CURRENCY_NOT_SUPPORTED', `/items/${i}/amount/currency`);
      const pattern = WHOLE.has(currency) ? /^\d+$/ : /^\d+\.\d{2}$/;
      if (!pattern.test(value)) return this.invalid('DECIMALS_NOT_SUPPORTED', `/items/${i}/amount/value`);
    }
    if (this.insufficientFunds) {
      return {
        status: 422,
        body: {
          name: 'INSUFFICIENT_FUNDS',
          message: 'Sender does not have sufficient funds. Please add funds and retry.',
          debug_id: debugId(),
        },
      };
    }
    const batchId = fakeId('', 13);
    const header = {
      payout_batch_id: batchId,
      batch_status: 'PENDING',
      time_created: new Date().toISOString(),
      sender_batch_header: { ...body.sender_batch_header },
    };
    const created: FakeReply = {
      status: 201,
      body: {
        batch_header: header,
        links: [
          {
            href: `${this.url}/v1/payments/payouts/${batchId}`,
            rel: 'self',
            method: 'GET',
            encType: 'application/json',
          },
        ],
      },
    };
    const batch: Batch = {
      header: { ...header },
      items: items.map((item) => ({
        payout_item_id: fakeId('', 13),
        transaction_status: 'PENDING',
        payout_batch_id: batchId,
        sender_batch_id: senderBatchId,
        payout_item: item,
      })),
      created,
    };
    this.batches.set(batchId, batch);
    if (requestId) this.requestIds.set(requestId, created);
    // A callback that cannot be delivered is PayPal’s to retry, not the batch’s failure.
    if (this.processAtOnce) void this.process(batchId).catch(() => undefined);
    return created;
  }

  /** PayPal pays each item: a registered e-mail `SUCCESS` with a transaction id, an unknown one `UNCLAIMED`. */
  async process(batchId: string): Promise<void> {
    const batch = this.batches.get(batchId);
    if (!batch) throw new Error(`no batch ${batchId}`);
    batch.header.batch_status = 'SUCCESS';
    for (const item of batch.items) {
      item.time_processed = new Date().toISOString();
      if (this.unregistered.has(item.payout_item.receiver)) {
        item.transaction_status = 'UNCLAIMED';
        item.errors = {
          name: 'RECEIVER_UNREGISTERED',
          message: 'Receiver is unregistered. Sending a payment to an unregistered receiver sends a PayPal invitation.',
        };
      } else {
        item.transaction_status = 'SUCCESS';
        item.transaction_id = fakeId('', 17);
      }
    }
    for (const item of batch.items) {
      const type = item.transaction_status === 'SUCCESS' ? 'SUCCEEDED' : item.transaction_status;
      await this.emit(`PAYMENT.PAYOUTS-ITEM.${type}`, item);
    }
  }

  /** An unclaimed item's 30 days run out: PayPal returns the money. */
  async returnUnclaimed(reference: string): Promise<void> {
    for (const item of this.itemsFor(reference)) {
      if (item.transaction_status !== 'UNCLAIMED') continue;
      item.transaction_status = 'RETURNED';
      await this.emit('PAYMENT.PAYOUTS-ITEM.RETURNED', item);
    }
  }

  /** The notification PayPal would post, with its signature headers. */
  signedEvent(
    eventType: string,
    resource: unknown,
    webhookId = this.webhookId,
  ): { body: string; headers: Record<string, string> } {
    const body = JSON.stringify({
      id: fakeId('WH-', 20),
      event_version: '1.0',
      create_time: new Date().toISOString(),
      resource_type: 'payouts_item',
      event_type: eventType,
      summary: `Payout item ${eventType}`,
      resource,
    });
    return { body, headers: signPayPalBody(body, webhookId, this.certUrl) };
  }

  private async emit(eventType: string, item: Item): Promise<void> {
    if (!this.callbackUrl) return;
    const { body, headers } = this.signedEvent(eventType, item);
    await postCallback(this.callbackUrl, body, headers);
  }

  private show(batchId: string, query: URLSearchParams): FakeReply {
    const batch = this.batches.get(batchId);
    if (!batch)
      return {
        status: 404,
        body: { name: 'INVALID_RESOURCE_ID', message: 'Requested resource ID was not found.', debug_id: debugId() },
      };
    const pageSize = Math.min(Number(query.get('page_size') ?? 1000), 1000);
    const page = Math.max(Number(query.get('page') ?? 1), 1);
    const items = batch.items.slice((page - 1) * pageSize, page * pageSize);
    return {
      status: 200,
      body: {
        batch_header: batch.header,
        items,
        ...(query.get('total_required') === 'true'
          ? { total_items: batch.items.length, total_pages: Math.max(1, Math.ceil(batch.items.length / pageSize)) }
          : {}),
        links: [],
      },
    };
  }

  private invalid(issue: string, field: string): FakeReply {
    return {
      status: 400,
      body: {
        name: 'VALIDATION_ERROR',
        message: 'Invalid request - see details.',
        debug_id: debugId(),
        details: [{ field, location: 'body', issue }],
      },
    };
  }
}

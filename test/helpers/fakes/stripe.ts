import { randomUUID } from 'node:crypto';
import { FakeProvider, type FakeReply, type FakeRequest, fakeId } from './server.js';

export interface StripeTransfer {
  id: string;
  object: 'transfer';
  amount: number;
  amount_reversed: number;
  balance_transaction: string;
  created: number;
  currency: string;
  description: string | null;
  destination: string;
  destination_payment: string;
  livemode: false;
  metadata: Record<string, string>;
  reversals: { object: 'list'; data: []; has_more: false; total_count: 0; url: string };
  reversed: boolean;
  source_transaction: null;
  source_type: 'card';
  transfer_group: string | null;
}

/** Stripe's three-decimal currencies: minor units, but multiples of ten only. */
const THREE_DECIMALS = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

const stripeError = (status: number, error: Record<string, string>): FakeReply => ({
  status,
  body: { error: { ...error, request_log_url: 'https://dashboard.stripe.com/test/logs/req_fake' } },
});

/**
 * Stripe's transfers on loopback: secret-key auth, form-encoded `POST /v1/transfers` answered by
 * the transfer (money in the connected account at once), `GET /v1/transfers/{id}` and the list
 * filtered by `transfer_group`. Idempotency as Stripe documents it: a repeated `Idempotency-Key`
 * replays the first answer (`Idempotent-Replayed: true`), the same key with other parameters is
 * a 400 `idempotency_error`.
 */
export class FakeStripe extends FakeProvider {
  readonly secretKey = `sk_test_${randomUUID().replace(/-/g, '')}`;
  readonly transfers: StripeTransfer[] = [];
  /** Connected accounts that exist. */
  readonly accounts = new Set<string>();
  /** Available balance per currency (lower case), in Stripe's minor units; absent: plenty. */
  readonly balance = new Map<string, number>();
  private keys = new Map<string, { params: string; reply: FakeReply }>();

  get transferCount(): number {
    return this.transfers.length;
  }

  transfersFor(reference: string): StripeTransfer[] {
    return this.transfers.filter((transfer) => transfer.transfer_group === reference);
  }

  protected serverError(): unknown {
    return { error: { type: 'api_error', message: 'An unknown error occurred' } };
  }

  protected handle(req: FakeRequest): FakeReply {
    const reply = this.route(req);
    return { ...reply, headers: { 'request-id': `req_${fakeId('', 14)}`, ...reply.headers } };
  }

  private route(req: FakeRequest): FakeReply {
    if (req.headers.authorization !== `Bearer ${this.secretKey}`) {
      return stripeError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' });
    }
    if (req.method === 'POST' && req.path === '/v1/transfers') return this.idempotent(req);
    if (req.method === 'GET' && req.path === '/v1/transfers') {
      const group = req.query.get('transfer_group');
      const data = this.transfers.filter((transfer) => group === null || transfer.transfer_group === group).reverse();
      const limit = Number(req.query.get('limit') ?? 10);
      return {
        status: 200,
        body: { object: 'list', data: data.slice(0, limit), has_more: data.length > limit, url: '/v1/transfers' },
      };
    }
    const one = /^\/v1\/transfers\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && one?.[1]) {
      const transfer = this.transfers.find((entry) => entry.id === one[1]);
      if (transfer) return { status: 200, body: transfer };
      return stripeError(404, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'id',
        message: `No such transfer: '${one[1]}'`,
      });
    }
    return stripeError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${req.method}: ${req.path}).`,
    });
  }

  private idempotent(req: FakeRequest): FakeReply {
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    const params = [...new URLSearchParams(req.body)]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const seen = key ? this.keys.get(key) : undefined;
    if (seen && seen.params !== params) {
      return stripeError(400, {
        type: 'idempotency_error',
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      });
    }
    if (seen) return { ...seen.reply, headers: { ...seen.reply.headers, 'idempotent-replayed': 'true' } };
    const reply = this.create(new URLSearchParams(req.body));
    if (key) this.keys.set(key, { params, reply });
    return reply;
  }

  private create(form: URLSearchParams): FakeReply {
    const amount = Number(form.get('amount'));
    const currency = form.get('currency') ?? '';
    const destination = form.get('destination') ?? '';
    if (!Number.isSafeInteger(amount) || amount < 1) {
      return stripeError(400, {
        type: 'invalid_request_error',
        code: 'parameter_invalid_integer',
        param: 'amount',
        message: 'Invalid integer: amount',
      });
    }
    if (THREE_DECIMALS.has(currency) && amount % 10 !== 0) {
      return stripeError(400, {
        type: 'invalid_request_error',
        param: 'amount',
        message: `Amounts in ${currency.toUpperCase()} must be divisible by 10.`,
      });
    }
    if (!this.accounts.has(destination)) {
      return stripeError(400, {
        type: 'invalid_request_error',
        param: 'destination',
        message: `No such destination: '${destination}'`,
      });
    }
    const available = this.balance.get(currency);
    if (available !== undefined && available < amount) {
      return stripeError(400, {
        type: 'invalid_request_error',
        code: 'balance_insufficient',
        message:
          'You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card.',
      });
    }
    if (available !== undefined) this.balance.set(currency, available - amount);
    const id = `tr_${fakeId('', 24)}`;
    const metadata: Record<string, string> = {};
    for (const [name, value] of form) {
      const match = /^metadata\[(.+)\]$/.exec(name);
      if (match?.[1]) metadata[match[1]] = value;
    }
    const transfer: StripeTransfer = {
      id,
      object: 'transfer',
      amount,
      amount_reversed: 0,
      balance_transaction: `txn_${fakeId('', 24)}`,
      created: Math.floor(Date.now() / 1000),
      currency,
      description: form.get('description'),
      destination,
      destination_payment: `py_${fakeId('', 24)}`,
      livemode: false,
      metadata,
      reversals: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/transfers/${id}/reversals` },
      reversed: false,
      source_transaction: null,
      source_type: 'card',
      transfer_group: form.get('transfer_group'),
    };
    this.transfers.push(transfer);
    return { status: 200, body: transfer };
  }
}

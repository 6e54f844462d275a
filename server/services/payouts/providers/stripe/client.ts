import Stripe from 'stripe';
import { minorUnitExponent } from '../../../../../shared/currency.js';
import { providerMinor } from '../amounts.js';
import type { FailureCode, PayoutIntent, PayoutProvider, ProviderOutcome } from '../types.js';

export interface StripeOptions {
  baseUrl: string;
  timeoutMs: number;
}

/** Clients kept by secret key, so every call of one campaign shares its connections. */
const CLIENTS_KEPT = 100;

/** A transfer is money already in the connected account's balance: paid, its id the receipt. */
function outcomeOfTransfer(transfer: Stripe.Transfer): ProviderOutcome {
  if (transfer.reversed) {
    return { status: 'failed', code: 'refused', reason: 'the transfer was reversed', providerId: transfer.id };
  }
  return { status: 'paid', providerId: transfer.id, receipt: transfer.id };
}

function failureCodeOf(error: Stripe.errors.StripeError): FailureCode {
  if (error.code === 'balance_insufficient') return 'insufficient_balance';
  if (error.param === 'destination' || error.code === 'account_invalid') return 'invalid_payee';
  if (error.param === 'currency') return 'currency_not_supported';
  if (error.param === 'amount' || error.code === 'amount_too_small' || error.code === 'amount_too_large')
    return 'amount_not_payable';
  return 'refused';
}

/**
 * Stripe's answer to a create that threw. No status (a connection error or timeout), a 5xx, a
 * 429, a 409 (another request with the key still running) and an idempotency error (the key
 * already names a transfer) are no word on the transfer: ambiguous, so it is looked up.
 */
function outcomeOfError(err: unknown): ProviderOutcome {
  if (!(err instanceof Stripe.errors.StripeError)) return { status: 'ambiguous', reason: 'Stripe call failed' };
  const status = err.statusCode;
  if (
    status === undefined ||
    status >= 500 ||
    status === 429 ||
    status === 409 ||
    err.type === 'StripeIdempotencyError'
  ) {
    return {
      status: 'ambiguous',
      reason: status === undefined ? err.message : `Stripe answered ${status}: ${err.message}`,
    };
  }
  return { status: 'failed', code: failureCodeOf(err), reason: err.message };
}

/**
 * Stripe Connect transfers (`POST /v1/transfers` to a connected account) through the official
 * `stripe` package, pointed at `PAYOUT_STRIPE_URL`. The reference is the `Idempotency-Key`
 * (Stripe replays the first answer for 24 hours) and the `transfer_group`, by which a transfer
 * is found again after that (docs/payouts-providers.md#stripe).
 */
export function stripeProvider({ baseUrl, timeoutMs }: StripeOptions): PayoutProvider<'stripe'> {
  const url = new URL(baseUrl);
  const clients = new Map<string, Stripe>();
  const clientOf = (secretKey: string): Stripe => {
    const known = clients.get(secretKey);
    if (known) return known;
    if (clients.size >= CLIENTS_KEPT) clients.clear();
    const client = new Stripe(secretKey, {
      host: url.hostname,
      port: url.port || (url.protocol === 'http:' ? 80 : 443),
      protocol: url.protocol === 'http:' ? 'http' : 'https',
      timeout: timeoutMs,
      // The lifecycle decides on retries, after a look-up; the package still retries a closed
      // connection once, with the same Idempotency-Key, which Stripe answers from its record.
      maxNetworkRetries: 0,
      telemetry: false,
    });
    clients.set(secretKey, client);
    return client;
  };

  async function sendOne(secretKey: string, intent: PayoutIntent): Promise<ProviderOutcome> {
    if (intent.payee.rail !== 'stripe') throw new TypeError('a Stripe transfer pays a connected account');
    const amount = providerMinor(intent.amount, 'stripe');
    // Stripe takes three-decimal currencies (KWD, BHD…) in their minor unit, but only multiples of ten.
    const threeDecimals = minorUnitExponent(intent.amount.currency) === 3;
    if (amount === undefined || amount <= 0 || (threeDecimals && amount % 10 !== 0)) {
      const reason = `Stripe cannot transfer ${intent.amount.minor} minor units of ${intent.amount.currency}`;
      return { status: 'failed', code: 'amount_not_payable', reason };
    }
    try {
      const transfer = await clientOf(secretKey).transfers.create(
        {
          amount,
          currency: intent.amount.currency.toLowerCase(),
          destination: intent.payee.account,
          transfer_group: intent.reference,
          description: intent.description,
          metadata: { affiliated_reference: intent.reference },
        },
        { idempotencyKey: intent.reference },
      );
      return outcomeOfTransfer(transfer);
    } catch (err) {
      return outcomeOfError(err);
    }
  }

  return {
    rail: 'stripe',
    maxBatch: 1,
    async send({ secretKey }, batch) {
      if (batch.intents.length > 1) throw new RangeError('a Stripe call carries one transfer');
      return Promise.all(batch.intents.map((intent) => sendOne(secretKey, intent)));
    },
    async lookup({ secretKey }, sent) {
      try {
        const client = clientOf(secretKey);
        if (sent.providerId) return outcomeOfTransfer(await client.transfers.retrieve(sent.providerId));
        const list = await client.transfers.list({ transfer_group: sent.reference, limit: 10 });
        const transfer = list.data.find((entry) => entry.metadata.affiliated_reference === sent.reference);
        return transfer ? outcomeOfTransfer(transfer) : 'unknown';
      } catch (err) {
        const outcome = outcomeOfError(err);
        // A refused look-up says nothing about the transfer.
        return outcome.status === 'failed' ? { status: 'ambiguous', reason: outcome.reason } : outcome;
      }
    },
  };
}

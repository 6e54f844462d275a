import { minorUnitExponent } from '../../../../../shared/currency.js';
import { decimalText } from '../amounts.js';
import { call, type CallResult, joinUrl } from '../request.js';
import type { PayoutBatch, PayoutIntent, PayoutProvider, ProviderOutcome, SentPayout } from '../types.js';
import {
  batchDetails,
  createdBatch,
  describe,
  failureCodeOf,
  outcomeOfItem,
  type PayoutItem,
  paypalError,
} from './payloads.js';
import { paypalTokens } from './token.js';

export interface PayPalOptions {
  baseUrl: string;
  timeoutMs: number;
}

/** The Payouts API takes up to 15,000 items a call (`create_payout_request.items.maxItems`). */
export const PAYPAL_MAX_ITEMS = 15_000;
/** `GET /v1/payments/payouts/{id}` lists at most 1,000 items a page. */
const PAGE_SIZE = 1000;

/**
 * PayPal's currencies (REST "Currency codes"). HUF and TWD "do not support decimals" there
 * although ISO 4217 gives them two: they are sent as whole units.
 */
const CURRENCIES = new Set(
  'AUD BRL CAD CNY CZK DKK EUR HKD HUF ILS JPY MYR MXN TWD NZD NOK PHP PLN GBP SGD SEK CHF THB USD'.split(' '),
);
const WHOLE_UNITS = new Set(['HUF', 'TWD']);

type Priced = { intent: PayoutIntent; value: string } | { intent: PayoutIntent; refused: ProviderOutcome };

/** The item's amount as PayPal's decimal string, or why PayPal cannot pay it. */
function price(intent: PayoutIntent): Priced {
  const { minor, currency } = intent.amount;
  if (!CURRENCIES.has(currency)) {
    return {
      intent,
      refused: { status: 'failed', code: 'currency_not_supported', reason: `PayPal does not pay ${currency}` },
    };
  }
  const iso = minorUnitExponent(currency);
  const exponent = WHOLE_UNITS.has(currency) ? 0 : iso;
  const scale = 10 ** (iso - exponent);
  const value = minor > 0 && minor % scale === 0 ? decimalText(minor / scale, exponent) : undefined;
  if (value === undefined) {
    const reason = `PayPal pays ${currency} in whole units of 10^-${exponent}: ${minor} minor units is not one`;
    return { intent, refused: { status: 'failed', code: 'amount_not_payable', reason } };
  }
  return { intent, value };
}

function payoutBody(batch: PayoutBatch, items: { intent: PayoutIntent; value: string }[]): string {
  return JSON.stringify({
    sender_batch_header: { sender_batch_id: batch.reference, recipient_type: 'EMAIL' },
    items: items.map(({ intent, value }) => ({
      recipient_type: 'EMAIL',
      amount: { value, currency: intent.amount.currency },
      receiver: intent.payee.rail === 'paypal' ? intent.payee.email : '',
      sender_item_id: intent.reference,
      note: intent.description,
    })),
  });
}

/**
 * The original batch's id from a duplicate refusal's HATEOAS link (`…/v1/payments/payouts/{id}`).
 * Only the id is taken: the batch is then read from the configured PayPal origin, whatever host the link names.
 */
function originalBatchId(result: CallResult): string | undefined {
  if (!result.answered) return undefined;
  const error = paypalError.safeParse(result.json);
  if (!error.success) return undefined;
  const duplicate = error.data.details?.some((detail) => /sender_batch_id/i.test(`${detail.field} ${detail.issue}`));
  if (!duplicate) return undefined;
  for (const link of error.data.links ?? []) {
    const match = /\/v1\/payments\/payouts\/([^/?#]+)$/.exec(link.href);
    if (match?.[1]) return decodeURIComponent(match[1]);
  }
  return undefined;
}

const unclear = (result: CallResult): string | undefined => {
  if (!result.answered) return result.reason;
  if (result.status >= 500 || result.status === 429) return `PayPal answered ${result.status}`;
  return undefined;
};

/**
 * PayPal Payouts (`POST /v1/payments/payouts`): one call carries a whole batch. `sender_batch_id`
 * is the batch reference and PayPal refuses it again for 30 days, pointing at the original batch,
 * so a resend of the same batch never pays twice: this client follows that link and answers
 * what became of the original (docs/payouts-providers.md#paypal).
 */
export function paypalProvider({ baseUrl, timeoutMs }: PayPalOptions): PayoutProvider<'paypal'> {
  const tokens = paypalTokens(baseUrl, timeoutMs);

  /** One authorised call; a token PayPal refuses is renewed once. */
  async function authorised(
    credentials: { clientId: string; clientSecret: string },
    request: { method: 'GET' | 'POST'; path: string; body?: string; requestId?: string },
  ): Promise<CallResult | { refused: string }> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = await tokens.get(credentials.clientId, credentials.clientSecret);
      if (!token.ok) return token.refused ? { refused: token.reason } : { answered: false, reason: token.reason };
      const result = await call({
        method: request.method,
        url: joinUrl(baseUrl, request.path),
        headers: {
          authorization: `Bearer ${token.token}`,
          ...(request.requestId ? { 'paypal-request-id': request.requestId } : {}),
        },
        body: request.body,
        timeoutMs,
      });
      if (!(result.answered && result.status === 401)) return result;
      tokens.forget(credentials.clientId, credentials.clientSecret);
    }
    return { refused: 'PayPal refused the access token twice' };
  }

  /** Every item of a batch, page by page; `missing` for a batch PayPal does not know, `unclear` for no clear list. */
  async function batchItems(
    credentials: { clientId: string; clientSecret: string },
    batchId: string,
  ): Promise<{ items: PayoutItem[]; status: string } | { unclear: string } | 'missing'> {
    const items: PayoutItem[] = [];
    let status = '';
    for (let page = 1; page <= PAYPAL_MAX_ITEMS / PAGE_SIZE; page++) {
      const query = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE), total_required: 'true' });
      const result = await authorised(credentials, {
        method: 'GET',
        path: `/v1/payments/payouts/${encodeURIComponent(batchId)}?${query}`,
      });
      if ('refused' in result) return { unclear: result.refused };
      const why = unclear(result);
      if (why || !result.answered) return { unclear: why ?? 'no answer' };
      if (result.status === 404) return 'missing';
      const details = batchDetails.safeParse(result.json);
      if (result.status !== 200 || !details.success)
        return { unclear: `PayPal answered ${result.status} to the batch look-up` };
      status = details.data.batch_header.batch_status;
      items.push(...details.data.items);
      if (page >= (details.data.total_pages ?? 1) || details.data.items.length < PAGE_SIZE) break;
    }
    return { items, status };
  }

  /** What became of each reference (`sender_item_id`), read from the batch PayPal holds. */
  async function outcomesOfBatch(
    credentials: { clientId: string; clientSecret: string },
    batchId: string,
    references: readonly string[],
  ): Promise<ProviderOutcome[]> {
    const batch = await batchItems(credentials, batchId);
    if (batch === 'missing' || 'unclear' in batch) {
      const reason = batch === 'missing' ? `PayPal does not show batch ${batchId}` : batch.unclear;
      return references.map(() => ({ status: 'ambiguous', reason }));
    }
    const byReference = new Map(batch.items.map((item) => [item.payout_item.sender_item_id, item]));
    return references.map((reference): ProviderOutcome => {
      const item = byReference.get(reference);
      if (item) return outcomeOfItem(item);
      if (batch.status === 'DENIED') return { status: 'failed', code: 'refused', reason: 'PayPal denied the batch' };
      // Items are listed once PayPal has read the batch; until then it is PENDING.
      return { status: 'processing', providerId: batchId, providerBatchId: batchId };
    });
  }

  return {
    rail: 'paypal',
    maxBatch: PAYPAL_MAX_ITEMS,
    async send(credentials, batch) {
      if (batch.intents.length > PAYPAL_MAX_ITEMS)
        throw new RangeError(`a PayPal batch holds at most ${PAYPAL_MAX_ITEMS} items`);
      const priced = batch.intents.map(price);
      const payable = priced.filter((entry): entry is { intent: PayoutIntent; value: string } => 'value' in entry);
      const outcomes = new Map<PayoutIntent, ProviderOutcome>();
      for (const entry of priced) if ('refused' in entry) outcomes.set(entry.intent, entry.refused);
      if (payable.length > 0) {
        const result = await authorised(credentials, {
          method: 'POST',
          path: '/v1/payments/payouts',
          body: payoutBody(batch, payable),
          requestId: batch.reference,
        });
        const references = payable.map((entry) => entry.intent.reference);
        const answers = await answerOfCreate(credentials, result, references);
        payable.forEach((entry, i) =>
          outcomes.set(entry.intent, answers[i] ?? { status: 'ambiguous', reason: 'no answer' }),
        );
      }
      return batch.intents.map((intent) => outcomes.get(intent) ?? { status: 'ambiguous', reason: 'no answer' });
    },
    async lookup(credentials, sent: SentPayout) {
      // Without PayPal's batch id there is nothing to ask: resending the same batch is the
      // documented recovery, and PayPal's refusal of a repeated sender_batch_id leads back here.
      if (!sent.providerBatchId) return 'unknown';
      const [outcome] = await outcomesOfBatch(credentials, sent.providerBatchId, [sent.reference]);
      return outcome ?? 'unknown';
    },
    async lookupAll(credentials, sent) {
      // A batch's payouts share its id once PayPal gave it: one read (1,000 items a page) answers all.
      const batchId = sent.find((one) => one.providerBatchId)?.providerBatchId;
      if (!batchId) return sent.map(() => 'unknown' as const);
      return outcomesOfBatch(
        credentials,
        batchId,
        sent.map((one) => one.reference),
      );
    },
  };

  async function answerOfCreate(
    credentials: { clientId: string; clientSecret: string },
    result: CallResult | { refused: string },
    references: readonly string[],
  ): Promise<ProviderOutcome[]> {
    const all = (outcome: ProviderOutcome) => references.map(() => outcome);
    if ('refused' in result) return all({ status: 'failed', code: 'refused', reason: result.refused });
    const why = unclear(result);
    if (why || !result.answered) return all({ status: 'ambiguous', reason: why ?? 'no answer' });
    const created = createdBatch.safeParse(result.json);
    if (result.status === 201 && created.success) {
      const batchId = created.data.batch_header.payout_batch_id;
      if (created.data.batch_header.batch_status === 'DENIED') return outcomesOfBatch(credentials, batchId, references);
      return all({ status: 'processing', providerId: batchId, providerBatchId: batchId });
    }
    if (result.status >= 200 && result.status < 300)
      return all({ status: 'ambiguous', reason: 'PayPal answered without a batch' });
    const original = originalBatchId(result);
    if (original) return outcomesOfBatch(credentials, original, references);
    const error = paypalError.safeParse(result.json);
    const reason = describe(error.success ? error.data : undefined, `PayPal answered ${result.status}`);
    return all({ status: 'failed', code: failureCodeOf(error.success ? error.data.name : undefined), reason });
  }
}

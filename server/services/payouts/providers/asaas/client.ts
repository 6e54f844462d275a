import { decimalText } from '../amounts.js';
import { call, type CallResult, joinUrl } from '../request.js';
import type { PayoutBatch, PayoutIntent, PayoutProvider, ProviderOutcome, SentPayout } from '../types.js';
import {
  ASAAS_KEY_TYPES,
  asaasErrors,
  asaasTransfer,
  asaasTransferList,
  failureOfErrors,
  outcomeOfTransfer,
} from './payloads.js';

export interface AsaasOptions {
  baseUrl: string;
  timeoutMs: number;
}

/** Asaas pages lists by 100 at most; a lookup reads this many pages before it gives up (ambiguous). */
const PAGE_SIZE = 100;
const MAX_PAGES = 50;
const DAY_MS = 86_400_000;

/** Asaas requires a User-Agent from accounts created since 13 June 2024. */
const USER_AGENT = 'affiliated';

/**
 * The JSON body with `value` written as decimal reais straight from the centavos' digits, so no
 * binary fraction ever stands between the intent and the bytes Asaas reads.
 */
function transferBody(intent: PayoutIntent, value: string): string {
  if (intent.payee.rail !== 'pix') throw new TypeError('an Asaas transfer pays a Pix key');
  const rest = JSON.stringify({
    operationType: 'PIX',
    pixAddressKey: intent.payee.pixKey,
    pixAddressKeyType: ASAAS_KEY_TYPES[intent.payee.pixKeyType],
    description: intent.description,
    externalReference: intent.reference,
  });
  return `{"value":${value},${rest.slice(1)}`;
}

/** An answer that is no clear word on the transfer: the caller looks it up before any resend. */
function ambiguity(result: CallResult): ProviderOutcome | undefined {
  if (!result.answered) return { status: 'ambiguous', reason: result.reason };
  if (result.status >= 500 || result.status === 429) {
    return { status: 'ambiguous', reason: `Asaas answered ${result.status}` };
  }
  return undefined;
}

function outcomeOfAnswer(result: CallResult): ProviderOutcome {
  const unclear = ambiguity(result);
  if (unclear || !result.answered) return unclear ?? { status: 'ambiguous', reason: 'no answer' };
  if (result.status >= 200 && result.status < 300) {
    const transfer = asaasTransfer.safeParse(result.json);
    return transfer.success
      ? outcomeOfTransfer(transfer.data)
      : { status: 'ambiguous', reason: 'Asaas answered without a transfer' };
  }
  if (result.status === 401 || result.status === 403) {
    return { status: 'failed', code: 'refused', reason: `Asaas refused the API key (${result.status})` };
  }
  const errors = asaasErrors.safeParse(result.json);
  if (errors.success) return { status: 'failed', ...failureOfErrors(errors.data.errors) };
  return { status: 'failed', code: 'refused', reason: `Asaas answered ${result.status}` };
}

/**
 * Pix through Asaas transfers (`POST /v3/transfers` to a Pix key). BRL only. Asaas documents no
 * idempotency key: `externalReference` carries our reference, and after an unclear answer the
 * transfers created since the intent are searched for it (docs/payouts-providers.md#asaas).
 */
export function asaasProvider({ baseUrl, timeoutMs }: AsaasOptions): PayoutProvider<'pix'> {
  const headers = (apiKey: string) => ({ access_token: apiKey, 'user-agent': USER_AGENT });

  async function sendOne(apiKey: string, intent: PayoutIntent): Promise<ProviderOutcome> {
    if (intent.amount.currency !== 'BRL') {
      return {
        status: 'failed',
        code: 'currency_not_supported',
        reason: `Pix pays BRL only, not ${intent.amount.currency}`,
      };
    }
    const value = decimalText(intent.amount.minor, 2);
    if (value === undefined || intent.amount.minor <= 0) {
      return {
        status: 'failed',
        code: 'amount_not_payable',
        reason: 'the amount must be a positive number of centavos',
      };
    }
    const result = await call({
      method: 'POST',
      url: joinUrl(baseUrl, '/v3/transfers'),
      headers: headers(apiKey),
      body: transferBody(intent, value),
      timeoutMs,
    });
    return outcomeOfAnswer(result);
  }

  async function search(apiKey: string, sent: SentPayout): Promise<ProviderOutcome | 'unknown'> {
    // A day earlier than the intent, so no time zone (Asaas dates are Brazil's) hides the transfer.
    const since = new Date(sent.sentAt.getTime() - DAY_MS).toISOString().slice(0, 10);
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = new URLSearchParams({
        'dateCreated[ge]': since,
        offset: String(page * PAGE_SIZE),
        limit: String(PAGE_SIZE),
      });
      const result = await call({
        method: 'GET',
        url: joinUrl(baseUrl, `/v3/transfers?${query}`),
        headers: headers(apiKey),
        timeoutMs,
      });
      const unclear = ambiguity(result);
      if (unclear || !result.answered) return unclear ?? 'unknown';
      const list = asaasTransferList.safeParse(result.json);
      if (result.status !== 200 || !list.success)
        return { status: 'ambiguous', reason: `Asaas answered ${result.status} to the search` };
      const found = list.data.data.find((transfer) => transfer.externalReference === sent.reference);
      if (found) return outcomeOfTransfer(found);
      if (!list.data.hasMore) return 'unknown';
    }
    return {
      status: 'ambiguous',
      reason: `more than ${MAX_PAGES * PAGE_SIZE} transfers since ${since}: look it up in Asaas`,
    };
  }

  return {
    rail: 'pix',
    maxBatch: 1,
    async send({ apiKey }, batch: PayoutBatch) {
      if (batch.intents.length > 1) throw new RangeError('an Asaas call carries one transfer');
      return Promise.all(batch.intents.map((intent) => sendOne(apiKey, intent)));
    },
    async lookup({ apiKey }, sent) {
      if (!sent.providerId) return search(apiKey, sent);
      const result = await call({
        method: 'GET',
        url: joinUrl(baseUrl, `/v3/transfers/${encodeURIComponent(sent.providerId)}`),
        headers: headers(apiKey),
        timeoutMs,
      });
      if (result.answered && result.status === 404) return search(apiKey, { ...sent, providerId: undefined });
      const transfer = result.answered && result.status === 200 ? asaasTransfer.safeParse(result.json) : undefined;
      if (transfer?.success) return outcomeOfTransfer(transfer.data);
      // A refused or unreadable look-up says nothing about the transfer itself.
      return ambiguity(result) ?? { status: 'ambiguous', reason: 'Asaas did not show the transfer' };
    },
  };
}

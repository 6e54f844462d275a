import { randomUUID } from 'node:crypto';
import { FakeProvider, type FakeReply, type FakeRequest, fakeId, postCallback } from './server.js';

export interface AsaasTransfer {
  object: 'transfer';
  id: string;
  dateCreated: string;
  status: 'PENDING' | 'BANK_PROCESSING' | 'DONE' | 'CANCELLED' | 'FAILED';
  effectiveDate: string | null;
  endToEndIdentifier: string | null;
  type: 'PIX';
  operationType: 'PIX';
  value: number;
  netValue: number;
  transferFee: number;
  scheduleDate: string;
  authorized: boolean;
  failReason: string | null;
  transactionReceiptUrl: string | null;
  description: string | null;
  externalReference: string | null;
  bankAccount: { pixAddressKey: string; pixAddressKeyType: string };
}

const KEY_TYPES = new Set(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']);
const today = () => new Date().toISOString().slice(0, 10);
const errors = (code: string, description: string) => ({ errors: [{ code, description }] });

/** A Pix end-to-end id as the Central Bank shapes it: E, the payer's ISPB, yyyyMMddHHmm, 11 characters. */
function endToEndId(): string {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 12);
  return `E19540550${stamp}${fakeId('', 11)}`.slice(0, 32);
}

/**
 * Asaas's transfer API on loopback, as its reference documents it: `access_token` auth,
 * `POST /v3/transfers` to a Pix key (value in reais as a JSON number), `GET /v3/transfers/{id}`,
 * `GET /v3/transfers` paged by `offset`/`limit` with `dateCreated[ge]`, errors as
 * `{ errors: [{ code, description }] }`, and `TRANSFER_*` webhooks with `asaas-access-token`.
 * Asaas documents no dedupe on `externalReference`, so neither does the fake: a second POST is a
 * second transfer, which is what the tests count.
 */
export class FakeAsaas extends FakeProvider {
  readonly apiKey = `$aact_test_${randomUUID()}`;
  readonly transfers: AsaasTransfer[] = [];
  /** Available balance in centavos. */
  balanceCentavos = 1_000_000_000;
  /** Keys no Pix participant holds (Asaas refuses the transfer). */
  readonly unknownKeys = new Set<string>();
  /** Keys refused as malformed. */
  readonly invalidKeys = new Set<string>();
  /** Where TRANSFER_* events go, and the token they carry. */
  callbackUrl: string | undefined;
  webhookToken = `whk_${randomUUID()}`;
  /** Answer the POST with `DONE` (an instant Pix) instead of `PENDING`. */
  settleInstantly = false;

  /** Transfers actually made (the money that left). */
  get transferCount(): number {
    return this.transfers.length;
  }

  transfersFor(reference: string): AsaasTransfer[] {
    return this.transfers.filter((transfer) => transfer.externalReference === reference);
  }

  protected serverError(): unknown {
    return '<html><body>502 Bad Gateway</body></html>';
  }

  /** Moves a transfer to its end, as Asaas does once the Pix settles, and sends the event. */
  async settle(
    id: string,
    status: 'DONE' | 'FAILED' | 'CANCELLED' = 'DONE',
    failReason?: string,
  ): Promise<AsaasTransfer> {
    const transfer = this.transfers.find((entry) => entry.id === id);
    if (!transfer) throw new Error(`no transfer ${id}`);
    transfer.status = status;
    transfer.effectiveDate = today();
    if (status === 'DONE') {
      transfer.endToEndIdentifier = endToEndId();
      transfer.transactionReceiptUrl = `${this.url}/comprovantes/${transfer.id}`;
    } else {
      transfer.failReason = failReason ?? 'Transferência não efetuada';
    }
    await this.emit(`TRANSFER_${status}`, transfer);
    return transfer;
  }

  async emit(event: string, transfer: AsaasTransfer, token = this.webhookToken): Promise<number | undefined> {
    if (!this.callbackUrl) return undefined;
    return postCallback(this.callbackUrl, this.callbackBody(event, transfer), { 'asaas-access-token': token });
  }

  /** The body of the `TRANSFER_*` event Asaas would post about this transfer (its header: `webhookToken`). */
  callbackBody(event: string, transfer: AsaasTransfer): string {
    return JSON.stringify({
      id: `evt_${fakeId('', 32).toLowerCase()}&${Date.now()}`,
      event,
      dateCreated: new Date().toISOString().replace('T', ' ').slice(0, 19),
      transfer,
    });
  }

  protected handle(req: FakeRequest): FakeReply {
    if (req.headers.access_token !== this.apiKey) return { status: 401, body: '' };
    if (req.method === 'POST' && req.path === '/v3/transfers') return this.create(req.body);
    const one = /^\/v3\/transfers\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && one?.[1]) {
      const transfer = this.transfers.find((entry) => entry.id === one[1]);
      return transfer ? { status: 200, body: transfer } : { status: 404, body: '' };
    }
    if (req.method === 'GET' && req.path === '/v3/transfers') return this.list(req.query);
    return { status: 404, body: '' };
  }

  private create(text: string): FakeReply {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { status: 400, body: errors('invalid_request', 'JSON inválido.') };
    }
    const { value, pixAddressKey, pixAddressKeyType } = body;
    if (typeof value !== 'number' || !(value > 0))
      return { status: 400, body: errors('invalid_value', 'Informe o valor da transferência.') };
    // Asaas reads reais: more than two decimals cannot be paid.
    if (!/^\d+(\.\d{1,2})?$/.test(String(value)))
      return { status: 400, body: errors('invalid_value', 'Valor inválido.') };
    if (
      typeof pixAddressKey !== 'string' ||
      typeof pixAddressKeyType !== 'string' ||
      !KEY_TYPES.has(pixAddressKeyType)
    ) {
      return { status: 400, body: errors('invalid_pixAddressKey', 'Informe a chave Pix e o seu tipo.') };
    }
    if (this.invalidKeys.has(pixAddressKey))
      return { status: 400, body: errors('invalid_action', 'A chave Pix informada é inválida.') };
    if (this.unknownKeys.has(pixAddressKey)) {
      return { status: 400, body: errors('invalid_action', 'A chave Pix informada não foi encontrada.') };
    }
    const centavos = Math.round(value * 100);
    if (centavos > this.balanceCentavos) {
      return { status: 400, body: errors('invalid_action', 'Saldo insuficiente para realizar a transferência.') };
    }
    this.balanceCentavos -= centavos;
    const transfer: AsaasTransfer = {
      object: 'transfer',
      id: randomUUID(),
      dateCreated: today(),
      status: 'PENDING',
      effectiveDate: null,
      endToEndIdentifier: null,
      type: 'PIX',
      operationType: 'PIX',
      value,
      netValue: value,
      transferFee: 0,
      scheduleDate: today(),
      authorized: true,
      failReason: null,
      transactionReceiptUrl: null,
      description: typeof body.description === 'string' ? body.description : null,
      externalReference: typeof body.externalReference === 'string' ? body.externalReference : null,
      bankAccount: { pixAddressKey, pixAddressKeyType },
    };
    this.transfers.push(transfer);
    if (this.settleInstantly) {
      transfer.status = 'DONE';
      transfer.effectiveDate = today();
      transfer.endToEndIdentifier = endToEndId();
    }
    return { status: 200, body: transfer };
  }

  private list(query: URLSearchParams): FakeReply {
    const offset = Number(query.get('offset') ?? 0);
    const limit = Math.min(Number(query.get('limit') ?? 10), 100);
    const since = query.get('dateCreated[ge]');
    const matching = this.transfers.filter((transfer) => !since || transfer.dateCreated >= since).reverse();
    const data = matching.slice(offset, offset + limit);
    return {
      status: 200,
      body: {
        object: 'list',
        hasMore: offset + limit < matching.length,
        totalCount: matching.length,
        limit,
        offset,
        data,
      },
    };
  }
}

import { z } from 'zod';
import type { PixKeyType } from '../../../../../shared/payoutDetails.js';
import type { FailureCode, ProviderOutcome } from '../types.js';

/**
 * Asaas's transfer as its API reference describes it ("Transfer to another Institution's account
 * or Pix key", "Retrieve a single transfer", "Transfer events"); only the fields the daemon reads.
 */
export const asaasTransfer = z.object({
  id: z.string().min(1),
  status: z.string(),
  value: z.number().optional(),
  endToEndIdentifier: z.string().nullish(),
  failReason: z.string().nullish(),
  transactionReceiptUrl: z.string().nullish(),
  externalReference: z.string().nullish(),
});
export type AsaasTransfer = z.infer<typeof asaasTransfer>;

/** `GET /v3/transfers`: Asaas's paged list envelope. */
export const asaasTransferList = z.object({
  hasMore: z.boolean(),
  data: z.array(asaasTransfer),
});

/** Asaas's error body: `{ errors: [{ code, description }] }`. */
export const asaasErrors = z.object({
  errors: z.array(z.object({ code: z.string().optional(), description: z.string().optional() })).min(1),
});

/** A transfer event (`TRANSFER_*`) as Asaas posts it to the webhook URL. */
export const asaasTransferEvent = z.object({
  id: z.string().optional(),
  event: z.string().startsWith('TRANSFER_'),
  transfer: asaasTransfer,
});

/** Our Pix key kinds in Asaas's `pixAddressKeyType` words. */
export const ASAAS_KEY_TYPES: Readonly<Record<PixKeyType, string>> = {
  cpf: 'CPF',
  cnpj: 'CNPJ',
  email: 'EMAIL',
  phone: 'PHONE',
  random: 'EVP',
};

/**
 * A transfer's status in our terms: `DONE` is paid (its receipt the Pix end-to-end id `E…`),
 * `FAILED` and `CANCELLED` failed; `PENDING`, `BANK_PROCESSING` (and `BLOCKED`, which the
 * webhook events name) are still with Asaas.
 */
export function outcomeOfTransfer(transfer: AsaasTransfer): ProviderOutcome {
  if (transfer.status === 'DONE') {
    return { status: 'paid', providerId: transfer.id, receipt: transfer.endToEndIdentifier ?? transfer.id };
  }
  if (transfer.status === 'FAILED' || transfer.status === 'CANCELLED') {
    const reason = transfer.failReason ?? `Asaas ${transfer.status === 'FAILED' ? 'failed' : 'cancelled'} the transfer`;
    return { status: 'failed', code: 'refused', reason, providerId: transfer.id };
  }
  return { status: 'processing', providerId: transfer.id };
}

/**
 * A refusal's cause. Asaas documents the error body but not one code per cause (its codes are
 * generic, such as `invalid_action`), so the description's words decide; the text is kept as the reason.
 */
export function failureOfErrors(errors: z.infer<typeof asaasErrors>['errors']): { code: FailureCode; reason: string } {
  const reason = errors.map((error) => error.description ?? error.code ?? 'refused').join('; ');
  if (/saldo|balance/i.test(reason)) return { code: 'insufficient_balance', reason };
  if (/chave|pix key|pixAddressKey|destinat|recipient/i.test(reason)) return { code: 'invalid_payee', reason };
  return { code: 'refused', reason };
}

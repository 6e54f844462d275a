import { createHash, timingSafeEqual } from 'node:crypto';
import type { ProviderOutcome } from '../types.js';
import { asaasTransferEvent, outcomeOfTransfer } from './payloads.js';

/**
 * Asaas signs nothing: it sends the webhook's access token, as configured in Asaas, in the
 * `asaas-access-token` header. Both sides are hashed first, so the comparison takes the same
 * time whatever the lengths and wherever they differ.
 */
export function asaasTokenMatches(header: string | undefined, webhookToken: string): boolean {
  if (header === undefined || webhookToken === '') return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(header), digest(webhookToken));
}

/** What an Asaas `TRANSFER_*` notification says: the transfer's current status, by our reference. */
export type AsaasCallback =
  { kind: 'transfer'; eventId: string | undefined; reference: string; outcome: ProviderOutcome } | { kind: 'other' };

export function readAsaasCallback(json: unknown): AsaasCallback {
  const event = asaasTransferEvent.safeParse(json);
  const reference = event.success ? event.data.transfer.externalReference : undefined;
  if (!event.success || !reference) return { kind: 'other' };
  return { kind: 'transfer', eventId: event.data.id, reference, outcome: outcomeOfTransfer(event.data.transfer) };
}

import { createVerify, X509Certificate } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { call } from '../request.js';
import type { ProviderOutcome } from '../types.js';
import { batchResource, outcomeOfItem, payoutItem, paypalEvent } from './payloads.js';

/**
 * PayPal webhooks (PayPal REST "Integrate webhooks", self-verification): each notification is
 * signed with SHA256withRSA over `<transmission id>|<transmission time>|<webhook id>|<CRC32 of
 * the raw body, in decimal>`, and its `PAYPAL-CERT-URL` header names the certificate whose key
 * checks it. The certificate is fetched only from PayPal's API hosts (or the configured PayPal
 * base URL, a sandbox or a test's fake), over that URL's `/v1/notifications/certs/` path.
 */

export interface PayPalSignatureHeaders {
  transmissionId: string | undefined;
  transmissionTime: string | undefined;
  transmissionSig: string | undefined;
  certUrl: string | undefined;
  authAlgo: string | undefined;
}

/** The string PayPal signs. */
export function signedMessage(
  transmissionId: string,
  transmissionTime: string,
  webhookId: string,
  body: Buffer,
): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(body) >>> 0}`;
}

/** Pure: whether `body` with these headers was signed by the certificate's key for this webhook id. */
export function verifyPayPalSignature(
  headers: PayPalSignatureHeaders,
  body: Buffer,
  webhookId: string,
  certificatePem: string,
  now: Date = new Date(),
): boolean {
  const { transmissionId, transmissionTime, transmissionSig, authAlgo } = headers;
  if (!transmissionId || !transmissionTime || !transmissionSig || authAlgo !== 'SHA256withRSA') return false;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch {
    return false;
  }
  if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) return false;
  const verifier = createVerify('RSA-SHA256');
  verifier.update(signedMessage(transmissionId, transmissionTime, webhookId, body));
  try {
    return verifier.verify(certificate.publicKey, transmissionSig, 'base64');
  } catch {
    return false;
  }
}

/** PayPal's API hosts, live and sandbox, that serve webhook certificates. */
const PAYPAL_CERT_HOSTS = ['api.paypal.com', 'api-m.paypal.com', 'api.sandbox.paypal.com', 'api-m.sandbox.paypal.com'];
const CERT_PATH = '/v1/notifications/certs/';
const CERTS_KEPT = 100;

/** Whether a `PAYPAL-CERT-URL` may be fetched: PayPal's own host over HTTPS, or the configured PayPal origin. */
export function certUrlAllowed(certUrl: string, configuredBaseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(certUrl);
  } catch {
    return false;
  }
  if (url.username || url.password || url.search || url.hash || !url.pathname.startsWith(CERT_PATH)) return false;
  const configured = new URL(configuredBaseUrl);
  if (url.origin === configured.origin) return true;
  return url.protocol === 'https:' && url.port === '' && PAYPAL_CERT_HOSTS.includes(url.hostname);
}

/** Fetches and keeps PayPal's certificates by URL (a certificate at one URL never changes). */
export function paypalCertificates(configuredBaseUrl: string, timeoutMs: number) {
  const kept = new Map<string, string>();
  return {
    async get(certUrl: string): Promise<string | undefined> {
      const known = kept.get(certUrl);
      if (known) return known;
      if (!certUrlAllowed(certUrl, configuredBaseUrl)) return undefined;
      const result = await call({ method: 'GET', url: certUrl, headers: { accept: '*/*' }, timeoutMs });
      if (!result.answered || result.status !== 200 || typeof result.json !== 'string') return undefined;
      if (!result.json.includes('BEGIN CERTIFICATE')) return undefined;
      if (kept.size >= CERTS_KEPT) kept.clear();
      kept.set(certUrl, result.json);
      return result.json;
    },
  };
}

/** What a verified PayPal notification says about payouts. */
export type PayPalCallback =
  | {
      kind: 'item';
      eventId: string | undefined;
      reference: string;
      batchReference: string | undefined;
      outcome: ProviderOutcome;
    }
  /** `PAYMENT.PAYOUTSBATCH.*` names no item: the caller looks the batch up. */
  | { kind: 'batch'; eventId: string | undefined; batchReference: string | undefined; providerBatchId: string }
  | { kind: 'other' };

export function readPayPalCallback(json: unknown): PayPalCallback {
  const event = paypalEvent.safeParse(json);
  if (!event.success) return { kind: 'other' };
  const { id, event_type: type, resource } = event.data;
  if (type.startsWith('PAYMENT.PAYOUTS-ITEM.')) {
    const item = payoutItem.safeParse(resource);
    const reference = item.success ? item.data.payout_item.sender_item_id : undefined;
    if (!item.success || !reference) return { kind: 'other' };
    return {
      kind: 'item',
      eventId: id,
      reference,
      batchReference: item.data.sender_batch_id,
      outcome: outcomeOfItem(item.data),
    };
  }
  if (type.startsWith('PAYMENT.PAYOUTSBATCH.')) {
    const batch = batchResource.safeParse(resource);
    if (!batch.success) return { kind: 'other' };
    const header = batch.data.batch_header;
    return {
      kind: 'batch',
      eventId: id,
      batchReference: header.sender_batch_header?.sender_batch_id,
      providerBatchId: header.payout_batch_id,
    };
  }
  return { kind: 'other' };
}

import { MESSAGES } from '../errors.js';
import type { RouteSpec } from './route.js';

/** A body of 2 MiB (spec §10.6): the server's limit, quoted by its 413. */
const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

const NOT_FOUND: Record<string, string> = {
  Affiliates: MESSAGES.affiliateNotFound,
  Conversions: MESSAGES.conversionNotFound,
  Payouts: MESSAGES.payoutNotFound,
  Webhooks: MESSAGES.webhookNotFound,
  Integrations: MESSAGES.integrationNotFound,
  Coupons: MESSAGES.couponNotFound,
  Groups: MESSAGES.groupNotFound,
};

const CONFLICT: Record<string, string> = {
  Affiliates: MESSAGES.emailTaken,
  Conversions: MESSAGES.illegalTransition('Conversion', 'rejected', 'approved'),
  Payouts: MESSAGES.nothingToPay(2),
  Webhooks: MESSAGES.webhookDisabled,
  Coupons: MESSAGES.couponTaken,
  Groups: MESSAGES.groupNameTaken,
};

/** The `message` the document shows for an error status of a route: a real one, in the spec's words. */
export function errorExample(route: RouteSpec, status: number): string | string[] {
  switch (status) {
    case 400:
      if (route.signedBody) return MESSAGES.invalidSignature(route.path.includes('/paddle/') ? 'paddle' : 'stripe');
      return route.body || route.query ? ['property colour should not exist'] : MESSAGES.numericId;
    case 401:
      return MESSAGES.apiKeyRequired;
    case 403:
      if (route.guard) return MESSAGES.sdkConversionForbidden;
      if (route.auth === 'apiKeyEvents') return MESSAGES.conversionLimit('free', 100, 100);
      return MESSAGES.affiliateLimit('free', 10, 10);
    case 404:
      if (route.signedBody) return MESSAGES.notFound;
      return NOT_FOUND[route.tag] ?? MESSAGES.routeNotFound(route.method.toUpperCase(), route.path);
    case 409:
      if (route.operationId === 'createRefund') return MESSAGES.refundOverRemaining('100.00', '49.90', 'ORDER-1001');
      if (route.operationId === 'createWebhook') return MESSAGES.webhookEndpointLimit(20);
      if (route.operationId === 'rotateWebhookSecret')
        return MESSAGES.webhookRotationLimit(5, '2026-11-22T10:00:00.000Z');
      return CONFLICT[route.tag] ?? 'Conflict';
    case 413:
      return route.body ? MESSAGES.bodyTooLarge(BODY_LIMIT_BYTES) : MESSAGES.bodyNotAccepted;
    case 415:
      return MESSAGES.unsupportedMediaType;
    case 429:
      return MESSAGES.tooManyRequests;
    case 503:
      if (route.operationId === 'getReady') return MESSAGES.notReadyPending('20261127110000_dedupe_keys_without_null');
      return MESSAGES.databaseUnavailable;
    default:
      return MESSAGES.internal;
  }
}

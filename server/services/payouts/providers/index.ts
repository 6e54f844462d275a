import { asaasProvider } from './asaas/client.js';
import { paypalProvider } from './paypal/client.js';
import { stripeProvider } from './stripe/client.js';
import type { PayoutProvider, PayoutRail } from './types.js';

export * from './types.js';
export { hundredthsToMinor } from './amounts.js';
export { asaasTokenMatches, readAsaasCallback, type AsaasCallback } from './asaas/callback.js';
export {
  paypalCertificates,
  readPayPalCallback,
  verifyPayPalSignature,
  type PayPalCallback,
  type PayPalSignatureHeaders,
} from './paypal/callback.js';

/** Where each provider's API is and how long one call may take (`PAYOUT_*` in README.md#configuration). */
export interface PayoutProvidersConfig {
  asaasUrl: string;
  paypalUrl: string;
  stripeUrl: string;
  timeoutMs: number;
}

/** The registry: the lifecycle asks it for a rail, never names a provider. */
export type PayoutProviders = { readonly [R in PayoutRail]: PayoutProvider<R> };

export function createPayoutProviders(config: PayoutProvidersConfig): PayoutProviders {
  return {
    pix: asaasProvider({ baseUrl: config.asaasUrl, timeoutMs: config.timeoutMs }),
    paypal: paypalProvider({ baseUrl: config.paypalUrl, timeoutMs: config.timeoutMs }),
    stripe: stripeProvider({ baseUrl: config.stripeUrl, timeoutMs: config.timeoutMs }),
  };
}

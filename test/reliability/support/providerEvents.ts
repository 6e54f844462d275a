import fc from 'fast-check';
import { contract } from '../../../shared/contract/index.js';
import { fixture, objectOf, paddleSignature, stripeSignature } from '../../helpers/billing.js';
import { mutated } from './arbitraries.js';
import { toJsonText, type Tree } from './json.js';
import { describeRequest, type FuzzRequest } from './requests.js';

/** The integrations' secrets in the fuzzed daemon. */
export interface ProviderSecrets {
  stripe: string;
  paddle: string;
}

const FIXTURES = {
  stripe: [
    'stripe-checkout-session-payment',
    'stripe-checkout-session-subscription',
    'stripe-invoice-paid-2024-06-20',
    'stripe-invoice-paid-basil',
    'stripe-charge-refunded',
    'stripe-charge-refunded-2024-06-20',
  ],
  paddle: ['paddle-transaction-completed', 'paddle-adjustment-refund'],
} as const;

type SignatureKind = 'valid' | 'missing' | 'other secret' | 'stale' | 'future' | 'garbage';

/**
 * A provider's event as an attacker or a provider could send it: a published shape (the
 * fixtures) naming one of the campaign's affiliates, with a fresh event id or a repeated one,
 * mutated anywhere (types, values, nesting, strange text), then signed well or badly. What is
 * signed with the integration's secret is what a provider (or someone holding the secret) can
 * send: the daemon must never answer it 500. Anything else must be refused, storing nothing.
 */
export function providerEventRequest(
  campaigns: { own: string; other: string },
  codes: readonly string[],
  secrets: ProviderSecrets,
): fc.Arbitrary<FuzzRequest> {
  const provider = fc.constantFrom('stripe', 'paddle' as const);
  return provider.chain((name) => {
    const base = fc
      .record({
        file: fc.constantFrom(...FIXTURES[name]),
        code: fc.constantFrom(...codes, 'NOSUCHCODE'),
        eventId: fc.oneof(
          fc.constantFrom('evt_repeat_1', 'evt_repeat_2'),
          fc.uuid().map((id) => `evt_${id}`),
        ),
        amount: fc.oneof(fc.constantFrom(0, 1, 4990, 19990), fc.integer({ min: -10, max: 2 ** 40 })),
      })
      .map(({ file, code, eventId, amount }) => {
        const event = fixture(file);
        if (name === 'stripe') event.id = eventId;
        else event.event_id = eventId;
        const object = objectOf(event);
        if ('client_reference_id' in object) object.client_reference_id = code;
        if ('custom_data' in object) object.custom_data = { affiliated_ref: code };
        const subscription = (object.parent as { subscription_details?: { metadata?: object } } | undefined)
          ?.subscription_details;
        if (subscription) subscription.metadata = { affiliated_ref: code };
        if ('subscription_details' in object) object.subscription_details = { metadata: { affiliated_ref: code } };
        if ('amount_total' in object) object.amount_total = amount;
        if ('amount_paid' in object) object.amount_paid = amount;
        return event as Tree;
      });
    const signature = fc.oneof(
      { weight: 12, arbitrary: fc.constant<SignatureKind>('valid') },
      { weight: 1, arbitrary: fc.constantFrom<SignatureKind>('missing', 'other secret', 'stale', 'future', 'garbage') },
    );
    const campaign = fc.oneof(
      { weight: 9, arbitrary: fc.constant(campaigns.own) },
      { weight: 1, arbitrary: fc.constantFrom(campaigns.other, 'no-such-campaign', '%00', 'x'.repeat(300)) },
    );
    return fc
      .record({ body: mutated(base), signature, campaign })
      .map(({ body, signature: kind, campaign: publicId }) => {
        const text = toJsonText(body.value);
        const now = Math.floor(Date.now() / 1000);
        const secret = kind === 'other secret' ? `${secrets[name]}x` : secrets[name];
        const at = kind === 'stale' ? now - 600 : kind === 'future' ? now + 600 : now;
        const header =
          name === 'stripe'
            ? stripeSignature(text, secret, kind === 'future' ? now : at)
            : paddleSignature(text, secret, at);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (kind !== 'missing') {
          headers[`${name}-signature`] = kind === 'garbage' ? 't=;v1=;h1=%%' : header;
        }
        const mustRefuse: string[] = [];
        // Stripe refuses only old timestamps (its library allows clock skew forward).
        const refusedKinds: SignatureKind[] =
          name === 'stripe'
            ? ['missing', 'other secret', 'stale', 'garbage']
            : ['missing', 'other secret', 'stale', 'future', 'garbage'];
        if (refusedKinds.includes(kind)) mustRefuse.push(`${kind} signature`);
        if (publicId !== campaigns.own) mustRefuse.push('not this campaign’s integration');
        const route = name === 'stripe' ? contract.integrations.receiveStripe : contract.integrations.receivePaddle;
        const request: FuzzRequest = {
          route,
          method: 'POST',
          path: `/v1/integrations/${name}/${encodeURIComponent(publicId)}`,
          headers,
          body: text,
          mustRefuse,
          otherMethod: false,
          mutations: body.mutations + (kind === 'valid' ? 0 : 1),
        };
        return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
      });
  });
}

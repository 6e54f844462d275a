import { z } from 'zod';
import { checkPayoutDetails, PAYOUT_ACCOUNT_MESSAGES, type PayoutDetailsCheck } from '../payoutDetails.js';
import { PAYOUT_METHODS, PIX_KEY_TYPES } from '../vocabulary.js';
import { trimmed } from './common.js';

/** Stripe's connected account ids (shared/payoutDetails.ts), which the document can state. */
const STRIPE_ACCOUNT_PATTERN = '^acct_[A-Za-z0-9]{8,249}$';

/** 1 to 254 characters once trimmed; `\S` says so where no stricter pattern does (as `trimmedText`). */
const account = (description: string, pattern = '\\S') =>
  trimmed(z.string().min(1).max(254).meta({ description, pattern }));

/**
 * An affiliate's payout details as the API sets them (docs/payouts.md, "Payout details"): the
 * portal's choices, one object per method, checked by the portal's rules. The account's own rules
 * (a CPF's check digits, a phone's area code) the document cannot state: `payoutAccountIssues`
 * checks them beside the context rules.
 */
export const payoutDetailsSchema = z
  .discriminatedUnion(
    'method',
    [
      z.strictObject({
        method: z.literal('pix'),
        pixKeyType: z.enum(PIX_KEY_TYPES).meta({ description: 'The kind of Pix key `account` is' }),
        account: account('The Pix key: a CPF, a CNPJ, an e-mail, a Brazilian phone (+55…) or a random key (a UUID)'),
      }),
      z.strictObject({
        method: z.literal('paypal'),
        account: account("The e-mail of the affiliate's PayPal account"),
      }),
      z.strictObject({
        method: z.literal('stripe'),
        account: account('A Stripe connected account id, `acct_…`', STRIPE_ACCOUNT_PATTERN),
      }),
    ],
    {
      // The discriminator's issue is the method's (its path ends in `method`), worded as an enum's.
      error: (issue) => {
        if (issue.code !== 'invalid_union') return undefined;
        const method = (issue.input as { method?: unknown } | undefined)?.method;
        return method === undefined
          ? 'is required'
          : `must be one of the following values: ${PAYOUT_METHODS.join(', ')}`;
      },
    },
  )
  .meta({
    description:
      'Where the affiliate is paid, as in the portal: `pix` (BRL campaigns), `paypal` or `stripe`. Shown back as `payoutMethod`, `pixKeyType` and `payoutAccount`, normalised.',
  });
export type PayoutDetailsInput = z.infer<typeof payoutDetailsSchema>;

/** The message for details that are not valid for their method and kind. */
export function payoutDetailsProblem(check: PayoutDetailsCheck): string | undefined {
  return check.ok ? undefined : `payoutDetails.account ${PAYOUT_ACCOUNT_MESSAGES[check.problem]}`;
}

/** The account's own rules on the body as received (the schema has checked, or will refuse, its shape). */
export function payoutAccountIssues(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const parsed = payoutDetailsSchema.safeParse((body as Record<string, unknown>).payoutDetails);
  if (!parsed.success) return [];
  const problem = payoutDetailsProblem(checkPayoutDetails(parsed.data));
  return problem ? [problem] : [];
}

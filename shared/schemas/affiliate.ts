import { z } from 'zod';
import { commissionOverrideSchema } from './commission.js';
import { payoutDetailsSchema } from './affiliatePayout.js';
import { idQuery, isoDate, MAX_ID, money, paginationFields, paginationQuery, trimmed, trimmedText } from './common.js';

import { AFFILIATE_FLAGS, AFFILIATE_STATUSES, PAYOUT_METHODS, PIX_KEY_TYPES } from '../vocabulary.js';

export { AFFILIATE_STATUSES };
export const affiliateStatus = z.enum(AFFILIATE_STATUSES);
export type AffiliateStatus = z.infer<typeof affiliateStatus>;

const utf8Bytes = (value: string) => Buffer.byteLength(value, 'utf8');

/**
 * Passwords within 72 bytes of UTF-8, as JSON Schema can say it (it counts characters, not
 * bytes): any text of up to 18 characters, or longer text whose characters all take fewer bytes.
 */
const PASSWORD_BYTES_DOCUMENTED = [
  { maxLength: 72, pattern: '^[\\u0000-\\u007F]*$' },
  { maxLength: 36, pattern: '^[\\u0000-\\u07FF]*$' },
  { maxLength: 24, pattern: '^[\\u0000-\\uD7FF\\uE000-\\uFFFF]*$' },
  { maxLength: 18 },
];

/** spec §2.1 and §10.4: 6 to 72 bytes, because bcrypt ignores what lies past 72. */
export const password = z
  .string()
  .refine((value) => value.length >= 6, { error: 'must be at least 6 characters long', abort: true })
  .refine((value) => utf8Bytes(value) <= 72, { error: 'must be at most 72 bytes long (UTF-8)' })
  .meta({
    minLength: 6,
    anyOf: PASSWORD_BYTES_DOCUMENTED,
    description:
      'At least 6 characters and at most 72 bytes of UTF-8 (72 ASCII characters). Stored as a bcrypt hash, never returned.',
  });

/**
 * zod's e-mail pattern with the domain's labels as hostnames have them (RFC 1123: 1 to 63
 * letters, digits and hyphens, never starting or ending with a hyphen). zod's own lets a label
 * end with `-`, which the document's `email` format refuses: Schemathesis found the daemon taking
 * such an address.
 */
const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;

/** Trimmed, then the e-mail rule above (format and pattern, both in the document). */
export const email = trimmed(
  // Only the format has the spec's own text; a missing or mistyped value is named as such.
  z
    .email({
      pattern: EMAIL_PATTERN,
      error: (issue) => (issue.code === 'invalid_format' ? 'must be a valid email' : undefined),
    })
    .max(254),
);

/** spec §10.3: letters and digits only, 2 to 32 characters, stored as sent. */
export const referralId = z
  .string()
  .min(2)
  .max(32)
  .regex(/^[A-Za-z0-9]+$/, { error: 'must contain only letters and digits (A-Z, 0-9)' })
  .meta({ description: 'Letters and digits, unique across all campaigns whatever the case' });

const name = trimmedText(255);
const phone = trimmedText(32);

/** An id the body names; whether it exists in the campaign is the service's to say (400). */
const referenceId = (description: string) => z.number().int().min(1).max(MAX_ID).nullable().meta({ description });

/** The commission rule fields of an affiliate (docs/commissions.md); null clears each. */
const ruleFields = {
  groupId: referenceId("A group of this campaign (its rule applies); null: the campaign's rule").optional(),
  commissionOverride: commissionOverrideSchema.nullable().optional(),
  parentAffiliateId: referenceId(
    'Another affiliate of this campaign who earns a second-tier commission on this one’s sales; not one below it (no cycles); null: none',
  ).optional(),
};

export const createAffiliateSchema = z.strictObject({
  email,
  password,
  name: name.optional(),
  phone: phone.optional(),
  referralId: referralId.optional(),
  status: affiliateStatus.optional(),
  ...ruleFields,
  payoutDetails: payoutDetailsSchema.optional(),
});
export type CreateAffiliateInput = z.infer<typeof createAffiliateSchema>;

/** spec §4.4: every field optional; `null` clears `name` or `phone` (and `payoutDetails` the payout details). */
export const updateAffiliateSchema = z.strictObject({
  email: email.optional(),
  password: password.optional(),
  name: name.nullable().optional(),
  phone: phone.nullable().optional(),
  referralId: referralId.optional(),
  status: affiliateStatus.optional(),
  ...ruleFields,
  payoutDetails: payoutDetailsSchema.nullable().optional(),
});
export type UpdateAffiliateInput = z.infer<typeof updateAffiliateSchema>;

export const listAffiliatesQuerySchema = z.strictObject({
  status: affiliateStatus.optional(),
  search: z.string().max(255).optional(),
  groupId: idQuery('Only the affiliates of this group (decimal digits)'),
  ...paginationQuery,
});
export type ListAffiliatesQuery = z.infer<typeof listAffiliatesQuerySchema>;

export const affiliateSchema = z.object({
  id: z.number().int(),
  name: z.string().optional(),
  email: z.string(),
  phone: z.string().optional(),
  referralId: z.string(),
  status: affiliateStatus,
  createdAt: isoDate,
  totalConversions: z.number().int(),
  totalCommissions: money,
  totalPaid: money,
  groupId: z.number().int().nullable(),
  commissionOverride: commissionOverrideSchema.nullable(),
  parentAffiliateId: z.number().int().nullable(),
  /** Set by the affiliate in the portal (docs/portal.md) or by the API (docs/payouts.md); null until then. */
  payoutMethod: z.enum(PAYOUT_METHODS).nullable(),
  /** The kind of Pix key; null for PayPal or no details. */
  pixKeyType: z.enum(PIX_KEY_TYPES).nullable(),
  /** The Pix key, PayPal e-mail or Stripe account id, normalised (CPF and CNPJ without punctuation, phones as +55…). */
  payoutAccount: z.string().nullable(),
  /** `duplicate_payout_identity`: another affiliate of the campaign is paid to the same account. */
  flags: z.array(z.enum(AFFILIATE_FLAGS)),
});
export type Affiliate = z.infer<typeof affiliateSchema>;

export const affiliateListSchema = z.object({
  affiliates: z.array(affiliateSchema),
  ...paginationFields,
});
export type AffiliateList = z.infer<typeof affiliateListSchema>;

/** `POST /v1/affiliates/approve-pending`: those approved by this request, and how many pending are left. */
export const approvePendingResponseSchema = z.object({
  approved: z.array(affiliateSchema),
  remaining: z.number().int(),
});
export type ApprovePendingResponse = z.infer<typeof approvePendingResponseSchema>;

/**
 * `POST /v1/affiliates/{id}/invite` (docs/portal.md#inviting-affiliates): a set-your-password
 * link, mailed when the daemon sends mail (its token is made as the mail goes out), else
 * answered here for the merchant to pass on.
 */
export const inviteResponseSchema = z.object({
  affiliateId: z.number().int(),
  email: z.string(),
  mailed: z.boolean(),
  /** The link when it was not mailed; null when it was (only the mail holds it). */
  link: z.string().nullable(),
  /** When the answered link stops working; null when mailed (7 days after the mail goes). */
  expiresAt: isoDate.nullable(),
});
export type InviteResponse = z.infer<typeof inviteResponseSchema>;

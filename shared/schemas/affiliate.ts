import { z } from 'zod';
import { isoDate, money, paginationFields, paginationQuery } from './common.js';

import { AFFILIATE_STATUSES } from '../vocabulary.js';

export { AFFILIATE_STATUSES };
export const affiliateStatus = z.enum(AFFILIATE_STATUSES);
export type AffiliateStatus = z.infer<typeof affiliateStatus>;

const utf8Bytes = (value: string) => Buffer.byteLength(value, 'utf8');

/** seed-spec §2.1 and product §3.4: 6 to 72 bytes, because bcrypt ignores what lies past 72. */
export const password = z
  .string()
  .refine((value) => value.length >= 6, { error: 'must be at least 6 characters long', abort: true })
  .refine((value) => utf8Bytes(value) <= 72, { error: 'must be at most 72 bytes long (UTF-8)' });

export const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ error: 'must be a valid email' }));

/** product §3.3: letters and digits only, 2 to 32 characters, stored as sent. */
export const referralId = z
  .string()
  .min(2)
  .max(32)
  .regex(/^[A-Za-z0-9]+$/, { error: 'must contain only letters and digits (A-Z, 0-9)' });

const name = z.string().trim().min(1).max(255);
const phone = z.string().trim().min(1).max(32);

export const createAffiliateSchema = z.strictObject({
  email,
  password,
  name: name.optional(),
  phone: phone.optional(),
  referralId: referralId.optional(),
  status: affiliateStatus.optional(),
});
export type CreateAffiliateInput = z.infer<typeof createAffiliateSchema>;

/** seed-spec §4.4: every field optional; `null` clears `name` or `phone`. */
export const updateAffiliateSchema = z.strictObject({
  email: email.optional(),
  password: password.optional(),
  name: name.nullable().optional(),
  phone: phone.nullable().optional(),
  referralId: referralId.optional(),
  status: affiliateStatus.optional(),
});
export type UpdateAffiliateInput = z.infer<typeof updateAffiliateSchema>;

export const listAffiliatesQuerySchema = z.strictObject({
  status: affiliateStatus.optional(),
  search: z.string().max(255).optional(),
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
});
export type Affiliate = z.infer<typeof affiliateSchema>;

export const affiliateListSchema = z.object({
  affiliates: z.array(affiliateSchema),
  ...paginationFields,
});
export type AffiliateList = z.infer<typeof affiliateListSchema>;

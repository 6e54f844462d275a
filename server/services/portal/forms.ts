import { z } from 'zod';
import { checkPayoutDetails, type PayoutDetailsCheck, type PixKeyType } from '../../../shared/payoutDetails.js';
import { PIX_KEY_TYPES } from '../../../shared/vocabulary.js';

/**
 * What was wrong with a field, as a key the portal's texts translate (texts `errors`); the
 * service knows no language.
 */
export type FieldProblem =
  | 'required'
  | 'email'
  | 'passwordShort'
  | 'passwordLong'
  | 'nameLong'
  | 'phoneLong'
  | 'currentPassword'
  | `payout.${string}`;

export type FieldProblems = Record<string, FieldProblem>;

/** A form's fields as posted: text only (a repeated field keeps its first value). */
export type FormFields = Readonly<Record<string, string | undefined>>;

const emailSchema = z.email().max(254);

/** spec §10.4: 6 to 72 bytes of UTF-8, because bcrypt ignores what lies past 72. */
export function passwordProblem(password: string | undefined): FieldProblem | undefined {
  if (!password) return 'required';
  if (password.length < 6) return 'passwordShort';
  if (Buffer.byteLength(password, 'utf8') > 72) return 'passwordLong';
  return undefined;
}

export function emailProblem(email: string | undefined): FieldProblem | undefined {
  const text = email?.trim() ?? '';
  if (text === '') return 'required';
  return emailSchema.safeParse(text).success ? undefined : 'email';
}

/** Name and phone as the API keeps them (spec §2.1): trimmed, at most 255 and 32 characters. */
export function profileOf(
  fields: FormFields,
  nameRequired: boolean,
): { name: string | null; phone: string | null; problems: FieldProblems } {
  const problems: FieldProblems = {};
  const name = fields.name?.trim() ?? '';
  const phone = fields.phone?.trim() ?? '';
  if (name === '' && nameRequired) problems.name = 'required';
  if (name.length > 255) problems.name = 'nameLong';
  if (phone.length > 32) problems.phone = 'phoneLong';
  return { name: name === '' ? null : name, phone: phone === '' ? null : phone, problems };
}

/** The settings form's payout details, checked (shared/payoutDetails.ts), or the field at fault. */
export function payoutOf(fields: FormFields): { check: PayoutDetailsCheck; field: string } {
  if (fields.method === 'stripe') {
    const account = fields.stripeAccount ?? '';
    return { check: checkPayoutDetails({ method: 'stripe', account }), field: 'stripeAccount' };
  }
  if (fields.method === 'paypal') {
    return { check: checkPayoutDetails({ method: 'paypal', account: fields.paypalEmail ?? '' }), field: 'paypalEmail' };
  }
  const type = (PIX_KEY_TYPES as readonly string[]).includes(fields.pixKeyType ?? '')
    ? (fields.pixKeyType as PixKeyType)
    : 'cpf';
  return {
    check: checkPayoutDetails({ method: 'pix', pixKeyType: type, account: fields.pixKey ?? '' }),
    field: 'pixKey',
  };
}

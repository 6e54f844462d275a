import { z } from 'zod';
import type { PAYOUT_METHODS, PIX_KEY_TYPES } from './vocabulary.js';

export type PayoutMethod = (typeof PAYOUT_METHODS)[number];
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

/** Where an affiliate is paid: a Pix key of a kind, a PayPal account's e-mail, or a Stripe connected account. */
export type PayoutDetails =
  | { method: 'pix'; pixKeyType: PixKeyType; account: string }
  | { method: 'paypal'; pixKeyType: null; account: string }
  | { method: 'stripe'; pixKeyType: null; account: string };

/** A valid account, normalised as Pix and PayPal expect it, and the identity two affiliates may share. */
export type PayoutDetailsCheck =
  { ok: true; details: PayoutDetails; identity: string } | { ok: false; problem: PayoutProblem };

/** What was wrong, as a key the portal's texts translate. */
export type PayoutProblem = 'cpf' | 'cnpj' | 'email' | 'phone' | 'random' | 'paypal' | 'stripe';

const onlyDigits = (text: string) => text.replace(/\D/g, '');

/** A check digit of the Receita Federal's modulus 11 rule: weights applied from the right. */
function mod11(values: readonly number[], weights: readonly number[]): number {
  const sum = values.reduce((acc, value, i) => acc + value * (weights[i] ?? 0), 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** CPF: 11 digits, the last two check digits; a repeated digit (111.111.111-11) passes the sums but is not issued. */
export function isValidCpf(text: string): boolean {
  if (!/^[\d.\-\s]+$/.test(text)) return false;
  const digits = onlyDigits(text);
  if (digits.length !== 11 || /^(\d)\1{10}$/.test(digits)) return false;
  const values = [...digits].map(Number);
  const first = mod11(values.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = mod11(values.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return values[9] === first && values[10] === second;
}

const CNPJ_FIRST = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_SECOND = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/** The CNPJ's characters without punctuation, upper-cased. */
function cnpjCharacters(text: string): string {
  return text.replace(/[.\-/\s]/g, '').toUpperCase();
}

/**
 * CNPJ: 14 characters, the last two check digits. Since July 2026 the first twelve may be
 * letters too (the Receita's alphanumeric CNPJ): a character counts as its code less 48, so
 * digits keep their value and the rule is the same for the numeric ones.
 */
export function isValidCnpj(text: string): boolean {
  if (!/^[0-9A-Za-z.\-/\s]+$/.test(text)) return false;
  const chars = cnpjCharacters(text);
  if (!/^[0-9A-Z]{12}\d{2}$/.test(chars) || /^(\d)\1{13}$/.test(chars)) return false;
  const values = [...chars].map((c) => c.charCodeAt(0) - 48);
  const first = mod11(values.slice(0, 12), CNPJ_FIRST);
  const second = mod11(values.slice(0, 13), CNPJ_SECOND);
  return values[12] === first && values[13] === second;
}

/** A Brazilian phone as Pix keys hold it: +55, a two-digit area code (11 to 99), 8 or 9 digits. */
export function normalisePixPhone(text: string): string | undefined {
  if (!/^\+?[\d\s().-]+$/.test(text)) return undefined;
  let digits = onlyDigits(text);
  if (digits.length === 12 || digits.length === 13) {
    if (!digits.startsWith('55')) return undefined;
    digits = digits.slice(2);
  } else if (text.trim().startsWith('+')) {
    return undefined;
  }
  if (digits.length !== 10 && digits.length !== 11) return undefined;
  if (/^0/.test(digits) || digits[1] === '0') return undefined;
  // Mobile numbers have nine digits and start with 9; landlines eight, starting with 2 to 5.
  if (digits.length === 11 && digits[2] !== '9') return undefined;
  if (digits.length === 10 && !/^[2-5]$/.test(digits[2] ?? '')) return undefined;
  return `+55${digits}`;
}

const RANDOM_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const emailSchema = z.email().max(77);
const paypalSchema = z.email().max(254);
const STRIPE_ACCOUNT = /^acct_[A-Za-z0-9]{8,249}$/;

/** Normalised Pix key of a kind, or undefined when it is not one. */
function pixKey(type: PixKeyType, raw: string): string | undefined {
  const text = raw.trim();
  switch (type) {
    case 'cpf':
      return isValidCpf(text) ? onlyDigits(text) : undefined;
    case 'cnpj':
      return isValidCnpj(text) ? cnpjCharacters(text) : undefined;
    case 'email':
      // The Banco Central's limit for e-mail keys is 77 characters.
      return emailSchema.safeParse(text).success ? text.toLowerCase() : undefined;
    case 'phone':
      return normalisePixPhone(text);
    case 'random':
      // The "chave aleatória": a UUID the bank generated.
      return RANDOM_KEY.test(text.toLowerCase()) ? text.toLowerCase() : undefined;
  }
}

/**
 * The account as entered, checked and normalised. The identity is what two affiliates must not
 * share: the same e-mail is the same person whether it is a Pix key or a PayPal account.
 */
export function checkPayoutDetails(
  input:
    | { method: 'pix'; pixKeyType: PixKeyType; account: string }
    | { method: 'paypal'; account: string }
    | { method: 'stripe'; account: string },
): PayoutDetailsCheck {
  if (input.method === 'stripe') {
    // Stripe's connected account ids: `acct_` and letters and digits, case kept (Stripe compares them exactly).
    const account = input.account.trim();
    if (!STRIPE_ACCOUNT.test(account)) return { ok: false, problem: 'stripe' };
    return { ok: true, details: { method: 'stripe', pixKeyType: null, account }, identity: `stripe:${account}` };
  }
  if (input.method === 'paypal') {
    const text = input.account.trim();
    if (!paypalSchema.safeParse(text).success) return { ok: false, problem: 'paypal' };
    const account = text.toLowerCase();
    return { ok: true, details: { method: 'paypal', pixKeyType: null, account }, identity: `email:${account}` };
  }
  const account = pixKey(input.pixKeyType, input.account);
  if (account === undefined) return { ok: false, problem: input.pixKeyType };
  return {
    ok: true,
    details: { method: 'pix', pixKeyType: input.pixKeyType, account },
    identity: `${input.pixKeyType}:${account}`,
  };
}

/** What the API answers for an account that is not one (the portal words its own, texts `errors.payout`). */
export const PAYOUT_ACCOUNT_MESSAGES: Readonly<Record<PayoutProblem, string>> = {
  cpf: 'must be a valid CPF for pixKeyType cpf: 11 digits, the last two its check digits (e.g. 529.982.247-25)',
  cnpj: 'must be a valid CNPJ for pixKeyType cnpj: 14 characters, the last two its check digits (e.g. 11.222.333/0001-81)',
  email: 'must be an e-mail address of at most 77 characters for pixKeyType email',
  phone: 'must be a Brazilian phone number with its area code for pixKeyType phone (e.g. +55 11 91234-5678)',
  random:
    'must be the random key the bank gave, a UUID such as 123e4567-e89b-12d3-a456-426614174000, for pixKeyType random',
  paypal: "must be the e-mail address of the affiliate's PayPal account for method paypal",
  stripe:
    'must be a Stripe connected account id for method stripe: acct_ then letters and digits (e.g. acct_1A2b3C4d5E6f7G8h)',
};

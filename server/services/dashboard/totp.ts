import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as docs/dashboard.md says: SHA-1, 6 digits, 30-second steps, one step of drift either way. */
const PERIOD_S = 30;
const WINDOW = 1;

function totpOf(secret: string, label: string, issuer: string): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** A new shared secret (160 bits, base32, as authenticator apps take it). */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

/** The `otpauth://` address an authenticator app reads from the QR code. */
export const totpUri = (secret: string, label: string, issuer: string) => totpOf(secret, label, issuer).toString();

/**
 * The 30-second step a code belongs to, if it is the secret's code now (or one step either
 * side); undefined otherwise. Which step it is lets the caller refuse a code already used.
 */
export function totpStep(secret: string, code: string, now: Date): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(secret, 'x', 'x').validate({ token, timestamp: now.getTime(), window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(now.getTime() / 1000 / PERIOD_S) + delta;
}

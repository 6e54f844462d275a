import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const UPPER_ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER_ALNUM = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Uniform characters from the CSPRNG (randomInt has no modulo bias). */
function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(randomInt(alphabet.length));
  return out;
}

export const randomBase62 = (length: number) => randomString(BASE62, length);
/** spec §10.3: generated referral codes are 8 upper-case alphanumerics. */
export const randomReferralCode = () => randomString(UPPER_ALNUM, 8);
export const randomPublicId = () => randomString(LOWER_ALNUM, 12);

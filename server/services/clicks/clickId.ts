import { randomBytes } from 'node:crypto';

/** Crockford's base 32: no I, L, O or U, so an id read aloud or copied by hand stays itself. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A click id: 10 characters of the millisecond time, then 16 of randomness (80 bits), the ULID
 * layout. Ids made later sort later, so clicks are inserted at the end of their primary key and
 * retention deletes a range of it; the random part makes an id nobody can guess.
 */
/** Random bytes drawn at once and handed out 16 an id: one call into the CSPRNG per 256 clicks, not per click. */
const POOL_BYTES = 4_096;
let pool = Buffer.alloc(0);
let used = 0;

function randomSixteen(): Buffer {
  if (used + 16 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += 16;
  return pool.subarray(used - 16, used);
}

export function newClickId(at: Date): string {
  let time = at.getTime();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = (ALPHABET[time % 32] ?? '0') + head;
    time = Math.floor(time / 32);
  }
  const bytes = randomSixteen();
  let tail = '';
  for (const byte of bytes) tail += ALPHABET[byte % 32] ?? '0';
  return head + tail;
}

/** The first click id a given instant can have: every click made before it sorts below. */
export function clickIdFloor(at: Date): string {
  return newClickId(at).slice(0, 10) + '0'.repeat(16);
}

import { PUBLIC_ID } from '../../../shared/schemas/campaign.js';
import type { Db } from '../../db/knex.js';
import { findLinkTarget, type LinkTarget } from '../../repositories/clicks.js';

/** What a referral code can look like (spec §10.3); anything else is no code at all. */
const REFERRAL_CODE = /^[A-Za-z0-9]{2,32}$/;

/**
 * How long a link's campaign and code are remembered: a code made inactive stops counting, and a
 * changed site URL starts being used, within this time on every daemon.
 */
export const LINK_CACHE_MS = 30_000;
const CACHE_ENTRIES = 10_000;

export type LinkResolver = (publicId: string, code: string, now: number) => Promise<LinkTarget | undefined>;

/**
 * A link's campaign and affiliate, remembered for `LINK_CACHE_MS`: a campaign's traffic repeats a
 * few links, so the click path reads the database once a link per half minute, not once a click.
 * An unknown campaign is remembered too (as undefined), so made-up ids cost one read each.
 */
export function linkResolver(db: Db): LinkResolver {
  const cache = new Map<string, { target: LinkTarget | undefined; expires: number }>();
  return async (publicId, code, now) => {
    if (!PUBLIC_ID.test(publicId)) return undefined;
    const key = REFERRAL_CODE.test(code) ? code.toUpperCase() : '';
    const cacheKey = `${publicId}\n${key}`;
    const cached = cache.get(cacheKey);
    if (cached && cached.expires > now) return cached.target;
    const target = await findLinkTarget(db, publicId, key);
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(cacheKey, { target, expires: now + LINK_CACHE_MS });
    return target;
  };
}

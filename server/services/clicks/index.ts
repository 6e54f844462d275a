import { MESSAGES } from '../../../shared/errors.js';
import { inTransaction, isDatabaseUnavailable } from '../../db/knex.js';
import { NotFoundError } from '../../errors.js';
import { insertClicks, type NewClick, UTM_TAGS } from '../../repositories/clicks.js';
import { errorSite } from '../../logger.js';
import type { ServiceDeps, Worker } from '../deps.js';
import { createGroupCommitter } from '../events/index.js';
import { newClickId } from './clickId.js';
import { type ClickFold, clickFold } from './fold.js';
import { linkResolver } from './links.js';
import { referrerHost, utmTags, visitorOf } from './visitor.js';

/** A visit to a referral link, as the HTTP layer read it. */
export interface LinkVisit {
  publicId: string;
  code: string;
  query: Readonly<Record<string, string | string[] | undefined>>;
  userAgent: string;
  referer: string | undefined;
  /** The client's address as the daemon derives it (`TRUST_PROXY`: the forwarding header's). */
  ip: string;
  /** HEAD (a link preview asking where it leads) is answered, never counted. */
  counted: boolean;
}

export interface ClickService {
  /**
   * `GET /r/{campaignPublicId}/{code}` (docs/analytics.md): records the click and answers where
   * to send the visitor. Unknown campaign: 404. Unknown or inactive code: the site, unmarked.
   */
  follow(visit: LinkVisit): Promise<string>;
  /** Stops once every click handed to the writer is written (before the pool closes). */
  worker: Worker;
  /** The clicks' share of the analytics rollup, folded in after they are stored (fold.ts). */
  fold: ClickFold;
}

/** Clicks per flush: two statements of 500 rows at most. */
const FLUSH_CLICKS = 1_000;

/**
 * The site's address with its own query kept; for an active affiliate's code, `ref` and the
 * link's utm_* tags (unless the site sets them), and `click_id` once the click is recorded.
 */
function destination(siteUrl: string, visit: LinkVisit, marked: boolean, clickId?: string): string {
  const url = new URL(siteUrl);
  if (marked) {
    for (const [tag, value] of Object.entries(utmTags(visit.query))) {
      if (value !== null && !url.searchParams.has(tag)) url.searchParams.set(tag, value);
    }
    url.searchParams.set('ref', visit.code);
    if (clickId !== undefined) url.searchParams.set('click_id', clickId);
  }
  return url.toString();
}

/** Marked addresses remembered, by site, code and tags: a campaign's traffic repeats a few links. */
const MARKED_KEPT = 2_000;
const markedAddresses = new Map<string, { address: string; hash: number } | null>();

/**
 * `destination` for a recorded click, from the address without its click id remembered: parsing
 * and writing the URL each click was 3 % of the daemon's time on the link. Its query holds `ref`, so the id
 * is `&click_id=…` before any fragment (the id is base 32: nothing to escape). A site whose own
 * address sets `click_id` (remembered as null) has it replaced in place, the long way.
 */
function clickDestination(siteUrl: string, visit: LinkVisit, clickId: string): string {
  // The tags as kept (at most 255 characters each) and an active code (at most 32): small keys.
  const tags = utmTags(visit.query);
  const key = JSON.stringify([siteUrl, visit.code, ...UTM_TAGS.map((tag) => tags[tag])]);
  let known = markedAddresses.get(key);
  if (known === undefined) {
    const address = destination(siteUrl, visit, true);
    const hash = address.indexOf('#');
    known = new URL(address).searchParams.has('click_id') ? null : { address, hash: hash < 0 ? address.length : hash };
    if (markedAddresses.size >= MARKED_KEPT) markedAddresses.clear();
    markedAddresses.set(key, known);
  }
  if (known === null) return destination(siteUrl, visit, true, clickId);
  return `${known.address.slice(0, known.hash)}&click_id=${clickId}${known.address.slice(known.hash)}`;
}

export function clickService({ db, logger, now, config, countryOf }: ServiceDeps): ClickService {
  const resolve = linkResolver(db);
  // Clicks that arrive while one flush is written share the next: one insert, one commit. The
  // writer waits for its fsync (aside on SQLite, the event loop free) before the next flush: the
  // clicks that arrive meanwhile make that one larger, and a larger flush costs less CPU a click.
  // They are stored pending: the fold (fold.ts) adds them to the rollup later, many a statement,
  // off the redirect's path.
  const writer = createGroupCommitter<NewClick, undefined>(
    async (clicks) => {
      await inTransaction(db, (trx) => insertClicks(trx, clicks, config.rollupUpkeep));
      return clicks.map(() => ({ ok: true, value: undefined }));
    },
    { maxWeight: FLUSH_CLICKS, weightOf: () => 1, retryAlone: (err) => !isDatabaseUnavailable(err) },
  );

  return {
    async follow(visit) {
      const at = now();
      const target = await resolve(visit.publicId, visit.code, at.getTime());
      if (!target) throw new NotFoundError(MESSAGES.linkCampaignNotFound);
      if (target.siteUrl === null) throw new NotFoundError(MESSAGES.linkWithoutSite);
      if (target.affiliateId === null) return destination(target.siteUrl, visit, false);
      if (!visit.counted) return destination(target.siteUrl, visit, true);
      const visitor = visitorOf(visit.userAgent);
      const click: NewClick = {
        id: newClickId(at),
        campaignId: target.campaignId,
        affiliateId: target.affiliateId,
        createdAt: at,
        ...visitor,
        country: countryOf?.(visit.ip) ?? null,
        referrer: referrerHost(visit.referer),
        utm: utmTags(visit.query),
      };
      try {
        await writer.submit(click);
      } catch (err) {
        // The visitor still reaches the site; the click is lost, and the code alone attributes.
        logger.error('a click could not be recorded', { thrownAt: errorSite(err) });
        return destination(target.siteUrl, visit, true);
      }
      return clickDestination(target.siteUrl, visit, click.id);
    },
    worker: { name: 'click writer', start: () => undefined, stop: () => writer.drained() },
    fold: clickFold({ db, config }),
  };
}

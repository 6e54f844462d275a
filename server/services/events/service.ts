import {
  campaignMismatch,
  CAMPAIGN_UNKNOWN,
  type EventsRequest,
  namedCampaigns,
  type EventsResponse,
  type TrackingEvent,
} from '../../../shared/schemas/event.js';
import { ValidationError } from '../../errors.js';
import { findCampaignIdsByPublicIds } from '../../repositories/campaigns.js';
import type { AuthenticatedCampaign } from '../auth.js';
import type { ServiceDeps, Worker } from '../deps.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { createEventIntake, type EventIntake } from './intake.js';
import type { MonthlyLimit } from './records.js';
import type { MonthlyUsage } from './usage.js';

export interface EventService {
  /** `POST /v1/events` (spec §4.6): events of the key's campaign. */
  track(auth: AuthenticatedCampaign, request: EventsRequest): Promise<EventsResponse>;
  /** `POST /v1/sdk/events` (spec §10.11): page views and leads from browsers, no key. */
  trackFromBrowser(request: EventsRequest): Promise<EventsResponse>;
  /**
   * The campaign rule of both endpoints (spec §10.5, §10.11) on a body as it arrived, valid or
   * not, so that one 400 lists its failures with the schema's (spec §10.6): the key's campaign
   * with `auth`, an existing campaign without.
   */
  campaignIssues(auth: AuthenticatedCampaign | undefined, body: unknown): Promise<string[]>;
  /** Stops after the writer has answered every request it holds (the daemon stops it before the pool closes). */
  worker: Worker;
}

/** Campaign public ids never change, so a found one may be remembered for a while. */
const CAMPAIGN_CACHE_MS = 60_000;
const CACHE_ENTRIES = 1_000;

/**
 * spec §10.6: a campaign_id the caller may not use refuses the whole batch, one message per
 * such event, with its path (the contract's schema already checked everything else).
 */
function refuseCampaigns(events: readonly TrackingEvent[], accepts: (publicId: string) => boolean, rule: string) {
  const messages = events.flatMap((event, index) =>
    accepts(event.campaign_id) ? [] : [`events.${index}.campaign_id ${rule}`],
  );
  if (messages.length > 0) throw new ValidationError(messages);
}

/** The group-commit writer behind an event service, as tests see it: hold it, wait for requests, count flushes. */
export type IntakeWriterHandle = Pick<EventIntake, 'hold' | 'queued' | 'stats'>;

/** Kept beside the services rather than in them, so the daemon's interface has no test hook. */
const writers = new WeakMap<EventService, IntakeWriterHandle>();

/**
 * Tests only: the writer behind a daemon's event service, to put chosen requests in one flush
 * (`hold`, then `queued`) and to count flushes (`stats`).
 */
export function intakeWriterForTests(events: EventService): IntakeWriterHandle {
  const writer = writers.get(events);
  if (!writer) throw new Error('this event service was not built by eventService()');
  return writer;
}

/** The key's campaign and its plan's monthly limit, which its conversions reserve from. */
function monthlyLimitOf(auth: AuthenticatedCampaign): MonthlyLimit {
  return {
    campaignId: auth.campaignId,
    planName: auth.planName,
    maxMonthlyConversions: auth.maxMonthlyConversions,
  };
}

/**
 * spec §10.11: anyone may call the key-less route, so its answer must not tell which codes belong
 * to a `pending` or `inactive` affiliate: for a browser those are codes that do not count, as an
 * unknown one. The merchant's keyed route keeps `inactive_affiliate`.
 */
function withoutAffiliateStatus(answer: EventsResponse): EventsResponse {
  return {
    ...answer,
    skipped: answer.skipped.map((skip) =>
      skip.reason === 'inactive_affiliate' ? { ...skip, reason: 'unknown_affiliate' } : skip,
    ),
  };
}

/** Both endpoints answer `{ success, received, accepted, skipped }`. */
export function eventService(
  { db, observer, config }: ServiceDeps,
  outbox: WebhookOutbox,
  usage: MonthlyUsage,
): EventService {
  const intake = createEventIntake(db, outbox, usage, observer, config.rollupUpkeep);
  const campaignIds = new Map<string, { id: number; expires: number }>();

  async function resolveCampaigns(publicIds: readonly string[], now = Date.now()): Promise<Map<string, number>> {
    const known = new Map<string, number>();
    const missing: string[] = [];
    for (const publicId of publicIds) {
      const cached = campaignIds.get(publicId);
      if (cached && cached.expires > now) known.set(publicId, cached.id);
      else missing.push(publicId);
    }
    if (missing.length > 0) {
      const found = await findCampaignIdsByPublicIds(db, missing);
      if (campaignIds.size + found.size > CACHE_ENTRIES) campaignIds.clear();
      for (const [publicId, id] of found) {
        known.set(publicId, id);
        campaignIds.set(publicId, { id, expires: now + CAMPAIGN_CACHE_MS });
      }
    }
    return known;
  }

  const service: EventService = {
    async campaignIssues(auth, body) {
      const named = namedCampaigns(body);
      if (named.length === 0) return [];
      const issue = (index: number, rule: string) => `events.${index}.campaign_id ${rule}`;
      if (auth) {
        const rule = campaignMismatch(auth.publicId);
        return named.filter(({ publicId }) => publicId !== auth.publicId).map(({ index }) => issue(index, rule));
      }
      const known = await resolveCampaigns([...new Set(named.map(({ publicId }) => publicId))]);
      return named.filter(({ publicId }) => !known.has(publicId)).map(({ index }) => issue(index, CAMPAIGN_UNKNOWN));
    },

    worker: { name: 'event intake', start: () => undefined, stop: () => intake.drained() },

    async track(auth, { events }) {
      // spec §10.5: campaign_id must be the key's campaign.
      refuseCampaigns(events, (publicId) => publicId === auth.publicId, campaignMismatch(auth.publicId));
      return intake(events, () => auth.campaignId, monthlyLimitOf(auth));
    },

    async trackFromBrowser({ events }) {
      // Conversions were refused (403) by the route's guard before validation.
      const known = await resolveCampaigns([...new Set(events.map((event) => event.campaign_id))]);
      refuseCampaigns(events, (publicId) => known.has(publicId), CAMPAIGN_UNKNOWN);
      // Page views and leads only, so no monthly limit.
      const answer = await intake(events, (event) => known.get(event.campaign_id) ?? 0, undefined);
      return withoutAffiliateStatus(answer);
    },
  };
  writers.set(service, { hold: intake.hold, queued: intake.queued, stats: intake.stats });
  return service;
}

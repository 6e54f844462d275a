import {
  campaignMismatch,
  CAMPAIGN_UNKNOWN,
  type EventsRequest,
  namedCampaigns,
  type EventsResponse,
  type TrackingEvent,
} from '../../shared/schemas/event.js';
import { ValidationError } from '../errors.js';
import { findCampaignIdsByPublicIds } from '../repositories/events.js';
import type { AuthenticatedCampaign } from './auth.js';
import type { ServiceDeps, Worker } from './deps.js';
import { createEventIntake, type EventIntake } from './eventIntake.js';

export interface EventService {
  /** `POST /v1/events` (spec 4.6): events of the key's campaign. */
  track(auth: AuthenticatedCampaign, request: EventsRequest): Promise<EventsResponse>;
  /** `POST /v1/sdk/events` (product §3.11): page views and leads from browsers, no key. */
  trackFromBrowser(request: EventsRequest): Promise<EventsResponse>;
  /**
   * The campaign rule of both endpoints (product §3.5, §3.11) on a body as it arrived, valid or
   * not, so that one 400 lists its failures with the schema's (product §3.6): the key's campaign
   * with `auth`, an existing campaign without.
   */
  campaignIssues(auth: AuthenticatedCampaign | undefined, body: unknown): Promise<string[]>;
  /** The group-commit writer both endpoints share: its flush counts, and a hold for tests. */
  writer: Pick<EventIntake, 'hold' | 'queued' | 'stats'>;
  /** Stops after the writer has answered every request it holds (the daemon stops it before the pool closes). */
  worker: Worker;
}

/** Campaign public ids never change, so a found one may be remembered for a while. */
const CAMPAIGN_CACHE_MS = 60_000;
const CACHE_ENTRIES = 1_000;

/**
 * product §3.6: a campaign_id the caller may not use refuses the whole batch, one message per
 * such event, with its path (the contract's schema already checked everything else).
 */
function refuseCampaigns(events: readonly TrackingEvent[], accepts: (publicId: string) => boolean, rule: string) {
  const messages = events.flatMap((event, index) =>
    accepts(event.campaign_id) ? [] : [`events.${index}.campaign_id ${rule}`],
  );
  if (messages.length > 0) throw new ValidationError(messages);
}

/** Both endpoints answer `{ success, received, accepted, skipped }`. */
export function eventService({ db }: ServiceDeps): EventService {
  const intake = createEventIntake(db);
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

  return {
    writer: { hold: intake.hold, queued: intake.queued, stats: intake.stats },

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
      // product §3.5: campaign_id must be the key's campaign.
      refuseCampaigns(events, (publicId) => publicId === auth.publicId, campaignMismatch(auth.publicId));
      // The authenticated campaign carries its plan limit and commission rule: they are the rules.
      return intake(events, () => auth.campaignId, auth);
    },

    async trackFromBrowser({ events }) {
      // Conversions were refused (403) by the route's guard before validation.
      const known = await resolveCampaigns([...new Set(events.map((event) => event.campaign_id))]);
      refuseCampaigns(events, (publicId) => known.has(publicId), CAMPAIGN_UNKNOWN);
      // Page views and leads only, so no conversion rules.
      return intake(events, (event) => known.get(event.campaign_id) ?? 0, undefined);
    },
  };
}

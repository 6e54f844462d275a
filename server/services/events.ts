import { MESSAGES } from '../../shared/errors.js';
import {
  CAMPAIGN_MISMATCH,
  CAMPAIGN_UNKNOWN,
  type EventsResponse,
  eventsRequestSchemaFor,
  MAX_EVENTS_PER_REQUEST,
  type TrackingEvent,
} from '../../shared/schemas/event.js';
import { parseWith } from '../../shared/schemas/validation.js';
import type { Db } from '../db/knex.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { findCampaignIdsByPublicIds } from '../repositories/events.js';
import type { AuthenticatedCampaign } from './auth.js';
import { createEventIntake } from './eventIntake.js';

export interface EventService {
  /** `POST /v1/events` (spec 4.6): events of the key's campaign. */
  track(auth: AuthenticatedCampaign, body: unknown): Promise<EventsResponse>;
  /** `POST /v1/sdk/events` (product §3.11): page views and leads from browsers, no key. */
  trackFromBrowser(body: unknown): Promise<EventsResponse>;
}

/** Campaign public ids never change, so a found one may be remembered (issue 4: cache what is safe). */
const CAMPAIGN_CACHE_MS = 60_000;
const CACHE_ENTRIES = 1_000;

/**
 * Validation (it depends on the caller's campaign, so it is done here rather than in the
 * route), then intake. Both endpoints answer `{ success, received, accepted, skipped }`.
 */
export function eventService(db: Db): EventService {
  const intake = createEventIntake(db);
  const schemas = new Map<string, ReturnType<typeof eventsRequestSchemaFor>>();
  const campaignIds = new Map<string, { id: number; expires: number }>();

  /** Building a zod schema costs more than parsing one small batch, so one is kept per campaign set. */
  function schemaAccepting(publicIds: readonly string[], message: string) {
    const cacheKey = `${message}\n${publicIds.join('\n')}`;
    let schema = schemas.get(cacheKey);
    if (!schema) {
      const accepted = new Set(publicIds);
      schema = eventsRequestSchemaFor((campaignId) => accepted.has(campaignId), message);
      if (schemas.size >= CACHE_ENTRIES) schemas.clear();
      schemas.set(cacheKey, schema);
    }
    return schema;
  }

  function validate(publicIds: readonly string[], message: string, body: unknown): TrackingEvent[] {
    const result = parseWith(schemaAccepting(publicIds, message), body);
    // product §3.6: one invalid event refuses the whole batch, naming every failure.
    if (!result.ok) throw new ValidationError(result.messages);
    return result.data.events;
  }

  async function resolveCampaigns(
    publicIds: readonly string[],
    now = Date.now(),
  ): Promise<Map<string, number>> {
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
    async track(auth, body) {
      // product §3.5: campaign_id must be the key's campaign.
      const events = validate([auth.publicId], CAMPAIGN_MISMATCH, body);
      // The authenticated campaign carries its plan limit and commission rule: they are the rules.
      return intake(events, () => auth.campaignId, auth);
    },

    async trackFromBrowser(body) {
      const raw = rawEvents(body);
      // product §3.11: sales are reported by the merchant's backend, whatever else the body holds.
      if (raw.some((event) => fieldOf(event, 'event_type') === 'conversion')) {
        throw new ForbiddenError(MESSAGES.sdkConversionForbidden);
      }
      const named = new Set<string>();
      for (const event of raw) {
        const publicId = fieldOf(event, 'campaign_id');
        if (typeof publicId === 'string' && publicId.length > 0 && publicId.length <= 64) named.add(publicId);
      }
      const known = await resolveCampaigns([...named].sort());
      const events = validate([...known.keys()].sort(), CAMPAIGN_UNKNOWN, body);
      // Page views and leads only, so no conversion rules.
      return intake(events, (event) => known.get(event.campaign_id) ?? 0, undefined);
    },
  };
}

/** The `events` array of a body not validated yet; too long an array is left to validation. */
function rawEvents(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null || !('events' in body)) return [];
  const { events } = body;
  return Array.isArray(events) && events.length <= MAX_EVENTS_PER_REQUEST ? events : [];
}

function fieldOf(event: unknown, field: string): unknown {
  return typeof event === 'object' && event !== null ? (event as Record<string, unknown>)[field] : undefined;
}

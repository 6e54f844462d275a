import type { DueHead } from '../../repositories/webhookClaims.js';

/** Attempts in flight in this daemon, by campaign and by endpoint. */
export interface InFlight {
  campaigns: ReadonlyMap<number, number>;
  endpoints: ReadonlyMap<number, number>;
}

export interface Shares {
  /** Free sending slots of the daemon now. */
  room: number;
  /** The most one campaign, and one endpoint, may have in flight at once. */
  campaignInFlight: number;
  endpointInFlight: number;
}

/**
 * Who gets the free slots (docs/webhooks.md#fairness): one at a time, to the campaign with the
 * fewest attempts in flight, then within it to the endpoint with the fewest, then to the oldest
 * delivery; never past a campaign's or an endpoint's share. So a campaign whose receivers stall
 * keeps at most its share, and when every slot is taken the next free one goes to a campaign
 * that has fewer: a stalled campaign delays another by one attempt's timeout at most.
 * Answers how many deliveries to claim of each endpoint.
 */
export function shareSlots(heads: readonly DueHead[], shares: Shares, inFlight: InFlight): Map<number, number> {
  const campaigns = new Map(inFlight.campaigns);
  const endpoints = new Map(inFlight.endpoints);
  const planned = new Map<number, number>();
  const load = (counts: Map<number, number>, id: number) => counts.get(id) ?? 0;
  for (let slot = 0; slot < shares.room; slot++) {
    let best: DueHead | undefined;
    for (const head of heads) {
      if (load(campaigns, head.campaignId) >= shares.campaignInFlight) continue;
      if (load(endpoints, head.endpointId) >= shares.endpointInFlight) continue;
      if (!best || before(head, best)) best = head;
    }
    if (!best) break;
    campaigns.set(best.campaignId, load(campaigns, best.campaignId) + 1);
    endpoints.set(best.endpointId, load(endpoints, best.endpointId) + 1);
    planned.set(best.endpointId, (planned.get(best.endpointId) ?? 0) + 1);
  }
  return planned;

  function before(head: DueHead, best: DueHead): boolean {
    const byCampaign = load(campaigns, head.campaignId) - load(campaigns, best.campaignId);
    if (byCampaign !== 0) return byCampaign < 0;
    const byEndpoint = load(endpoints, head.endpointId) - load(endpoints, best.endpointId);
    if (byEndpoint !== 0) return byEndpoint < 0;
    return head.deliveryId < best.deliveryId;
  }
}

/** Attempts in flight by id (campaign or endpoint), kept by the worker as they start and end. */
export function inFlightTally() {
  const counts = new Map<number, number>();
  return {
    counts: counts as ReadonlyMap<number, number>,
    add(id: number) {
      counts.set(id, (counts.get(id) ?? 0) + 1);
    },
    remove(id: number) {
      const left = (counts.get(id) ?? 1) - 1;
      if (left === 0) counts.delete(id);
      else counts.set(id, left);
    },
    /** The ids with at least `limit` in flight: at their share. */
    atLeast(limit: number): number[] {
      return [...counts].filter(([, count]) => count >= limit).map(([id]) => id);
    },
  };
}

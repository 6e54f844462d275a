import { shareSlots as shareLanes } from '../../jobs/fairness.js';
import type { DueHead } from '../../repositories/webhookClaims.js';

/**
 * Webhooks' fairness in their own words (docs/webhooks.md#fairness): the job runtime's
 * `shareSlots` (server/jobs/fairness.ts) with campaigns as tenants and endpoints as lanes.
 * Answers how many deliveries to claim of each endpoint.
 */
export function shareSlots(
  heads: readonly DueHead[],
  shares: { room: number; campaignInFlight: number; endpointInFlight: number },
  inFlight: { campaigns: ReadonlyMap<number, number>; endpoints: ReadonlyMap<number, number> },
): Map<number, number> {
  return shareLanes(
    heads.map((head) => ({ tenant: head.campaignId, lane: head.endpointId, id: head.deliveryId })),
    { room: shares.room, tenantInFlight: shares.campaignInFlight, laneInFlight: shares.endpointInFlight },
    { tenants: inFlight.campaigns, lanes: inFlight.endpoints },
  );
}

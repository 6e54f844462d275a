import type { Db } from '../../db/knex.js';
import { campaignsToFanOut, fanOutCampaign } from '../../repositories/webhookFanout.js';

/**
 * Campaigns served per round, and deliveries (or messages) per campaign and round. A chunk holds
 * SQLite's one connection while it is written: at 250, 6 to 15 ms, which a page view of another
 * campaign waited through (docs/architecture.md, "Commits on SQLite").
 */
const CAMPAIGNS_PER_ROUND = 50;
const CHUNK = 100;

/**
 * Fan-out by rounds (docs/webhooks.md#fairness): each round gives each of the next
 * CAMPAIGNS_PER_ROUND campaigns with messages to fan out (in campaign id order, going round) one
 * chunk of at most CHUNK deliveries of its oldest messages, each chunk its own short
 * transaction. So a campaign with a thousand endpoints and a thousand messages never holds the
 * database, nor another campaign's messages, for longer than one chunk, however many wait.
 */
export function fanOutRounds(db: Db): { round(): Promise<boolean> } {
  let afterCampaign = 0;
  return {
    /** Answers whether anything was pending (another round may be due at once). */
    async round() {
      let campaigns = await campaignsToFanOut(db, { afterCampaign, limit: CAMPAIGNS_PER_ROUND });
      if (campaigns.length === 0 && afterCampaign > 0) {
        afterCampaign = 0;
        campaigns = await campaignsToFanOut(db, { afterCampaign, limit: CAMPAIGNS_PER_ROUND });
      }
      for (const campaignId of campaigns) await fanOutCampaign(db, campaignId, CHUNK);
      afterCampaign = campaigns.length < CAMPAIGNS_PER_ROUND ? 0 : (campaigns.at(-1) ?? 0);
      return campaigns.length > 0;
    },
  };
}

import { MESSAGES } from '../../../shared/errors.js';
import type { Webhook, WebhookEventType } from '../../../shared/schemas/webhook.js';
import { type Db, inTransaction, isRetryableTxError } from '../../db/knex.js';
import { recordAudit } from '../audit.js';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../errors.js';
import { UniqueConflict } from '../../repositories/uniqueConflict.js';
import { insertEndpoint, takenSlots } from '../../repositories/webhookEndpoints.js';
import { retireSecret, signingSecrets, swapSecret } from '../../repositories/webhookSecrets.js';

/** docs/webhooks.md: a retired secret keeps signing for 24 hours after its rotation. */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
/** Races lost in a row before giving up (each lost race means another request just succeeded). */
const TRIES = 20;

/** Thrown inside a transaction to roll it back and run it again. */
class LostRace extends Error {}

/** A free slot from 1 to `max`, chosen at random so that registrations racing each other spread out. */
function freeSlot(taken: ReadonlySet<number>, max: number): number | undefined {
  const free: number[] = [];
  for (let slot = 1; slot <= max; slot++) if (!taken.has(slot)) free.push(slot);
  return free[Math.floor(Math.random() * free.length)];
}

/**
 * A new endpoint under the campaign's cap (docs/webhooks.md: WEBHOOK_MAX_ENDPOINTS). Each
 * endpoint holds a slot from 1 to the cap, unique in its campaign: two registrations that pick
 * the same free slot cannot both commit, and the loser looks again, so however many arrive at
 * once the campaign never holds more endpoints than slots. Past the cap: 409.
 */
export async function registerEndpoint(
  db: Db,
  endpoint: {
    campaignId: number;
    url: string;
    events: readonly WebhookEventType[];
    description: string | null;
    secretEnc: string;
    createdAt: Date;
    maxEndpoints: number;
    /** The fields the request set, for the audit log. */
    fields: readonly string[];
  },
): Promise<Webhook> {
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    try {
      return await inTransaction(db, async (trx) => {
        const { endpoints, slots } = await takenSlots(trx, endpoint.campaignId);
        const slot = endpoints >= endpoint.maxEndpoints ? undefined : freeSlot(slots, endpoint.maxEndpoints);
        if (slot === undefined) throw new ConflictError(MESSAGES.webhookEndpointLimit(endpoint.maxEndpoints));
        const webhook = await insertEndpoint(trx, { ...endpoint, slot });
        await recordAudit(trx, endpoint.createdAt, [
          { campaignId: endpoint.campaignId, action: 'webhook.create', targetId: webhook.id, fields: endpoint.fields },
        ]);
        return webhook;
      });
    } catch (err) {
      // Another registration took the slot (or, on MySQL, deadlocked on it): look again.
      if (!(err instanceof UniqueConflict && err.field === 'webhookSlot') && !isRetryableTxError(err)) throw err;
    }
  }
  throw new ServiceUnavailableError(MESSAGES.databaseUnavailable);
}

/**
 * A new signing secret (docs/webhooks.md#rotating-a-secret). The current one is retired and
 * keeps signing for 24 hours, as does every secret retired before it within its own 24 hours;
 * with WEBHOOK_MAX_RETIRED_SECRETS of them still signing, 409 until the soonest stops. The swap
 * is a compare-and-set on the current secret, so concurrent rotations each retire a different
 * secret and none is lost; the count of those signing is read again after a lost race.
 */
export async function rotateEndpointSecret(
  db: Db,
  rotation: { campaignId: number; id: number; nextEnc: string; now: Date; maxRetiredSecrets: number },
): Promise<void> {
  const { campaignId, id, nextEnc, now } = rotation;
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    try {
      await inTransaction(db, async (trx) => {
        const signing = await signingSecrets(trx, campaignId, id, now);
        if (!signing) throw new NotFoundError(MESSAGES.webhookNotFound);
        const [soonest] = signing.retiredUntil;
        if (signing.retiredUntil.length >= rotation.maxRetiredSecrets && soonest) {
          throw new ConflictError(MESSAGES.webhookRotationLimit(rotation.maxRetiredSecrets, soonest.toISOString()));
        }
        const swapped = await swapSecret(trx, campaignId, id, { currentEnc: signing.currentEnc, nextEnc, now });
        if (!swapped) throw new LostRace();
        await retireSecret(trx, id, {
          secretEnc: signing.currentEnc,
          expiresAt: new Date(now.getTime() + ROTATION_GRACE_MS),
          now,
        });
        await recordAudit(trx, now, [{ campaignId, action: 'webhook.rotate_secret', targetId: id }]);
      });
      return;
    } catch (err) {
      if (!(err instanceof LostRace) && !isRetryableTxError(err)) throw err;
    }
  }
  throw new ServiceUnavailableError(MESSAGES.databaseUnavailable);
}

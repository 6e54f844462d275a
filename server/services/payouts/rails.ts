import { MESSAGES } from '../../../shared/errors.js';
import type {
  PayoutRail,
  PayoutRailList,
  PayoutRailName,
  PutPayoutRailInput,
} from '../../../shared/schemas/payoutRail.js';
import { inTransaction } from '../../db/knex.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import {
  deleteRail,
  findRail,
  listRails,
  type PayoutRailRecord,
  saveRail,
  type SealedRail,
} from '../../repositories/payoutRails.js';
import { recordAudit } from '../audit.js';
import type { ServiceDeps } from '../deps.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import type { CredentialsOf, RailCredentials } from './providers/index.js';

/** The fields each rail's credentials are made of (docs/payouts.md, "Connecting a rail"). */
const FIELDS: { readonly [R in PayoutRailName]: readonly (keyof PutPayoutRailInput)[] } = {
  pix: ['apiKey'],
  paypal: ['clientId', 'clientSecret'],
  stripe: ['secretKey'],
};

const CREDENTIAL_FIELDS = ['apiKey', 'clientId', 'clientSecret', 'secretKey'] as const;

/** Where each provider posts its callbacks (Stripe transfers are final when made: none). */
export const callbackPath = (rail: PayoutRailName, publicId: string): string | null =>
  rail === 'stripe'
    ? null
    : `/v1/integrations/${rail === 'pix' ? 'asaas' : 'paypal'}-payouts/${encodeURIComponent(publicId)}`;

/** The body's credentials for this rail, or a 400 naming what is missing or foreign to it. */
function credentialsOf(rail: PayoutRailName, input: PutPayoutRailInput): RailCredentials {
  const wanted = FIELDS[rail];
  const missing = wanted.filter((field) => input[field] === undefined);
  if (missing.length > 0) throw new ValidationError(MESSAGES.payoutRailNeeds(rail, missing.join(' and ')));
  const foreign = CREDENTIAL_FIELDS.filter((field) => !wanted.includes(field) && input[field] !== undefined);
  if (foreign.length > 0) throw new ValidationError(MESSAGES.payoutRailRefuses(rail, foreign.join(' or ')));
  const text = (value: string | undefined) => value ?? '';
  switch (rail) {
    case 'pix':
      return { rail, apiKey: text(input.apiKey) };
    case 'paypal':
      return { rail, clientId: text(input.clientId), clientSecret: text(input.clientSecret) };
    case 'stripe':
      return { rail, secretKey: text(input.secretKey) };
  }
}

export interface PayoutRailService {
  list(campaign: { campaignId: number; publicId: string }): Promise<PayoutRailList>;
  /** Connects the rail, or replaces its credentials. */
  put(
    campaign: { campaignId: number; publicId: string },
    rail: PayoutRailName,
    input: PutPayoutRailInput,
  ): Promise<PayoutRail>;
  remove(campaignId: number, rail: PayoutRailName): Promise<void>;
}

/** What a rail's sealed credentials open to, for the send queue and the callbacks. */
export interface OpenedRail<R extends PayoutRailName = PayoutRailName> {
  credentials: CredentialsOf<R>;
  webhookToken: string | undefined;
}

/** Opens a rail's sealed credentials; undefined when they were sealed under another key (or damaged). */
export async function openRail<R extends PayoutRailName>(
  box: SecretBox,
  rail: R,
  sealed: SealedRail,
): Promise<OpenedRail<R> | undefined> {
  const text = await box.open(sealed.credentialsEnc);
  if (text === undefined) return undefined;
  const credentials = JSON.parse(text) as RailCredentials;
  if (credentials.rail !== rail) return undefined;
  const webhookToken = sealed.webhookTokenEnc === null ? undefined : await box.open(sealed.webhookTokenEnc);
  return { credentials: credentials as CredentialsOf<R>, webhookToken };
}

/** `GET|PUT|DELETE /v1/payout-rails…`: credentials sealed like webhook secrets and never answered. */
export function payoutRailService({ db, now: clock }: ServiceDeps, box: SecretBox): PayoutRailService {
  const describe = (publicId: string, record: PayoutRailRecord): PayoutRail => ({
    rail: record.rail,
    callbackPath: callbackPath(record.rail, publicId),
    hasWebhookToken: record.hasWebhookToken,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  });

  return {
    async list({ campaignId, publicId }) {
      return { rails: (await listRails(db, campaignId)).map((record) => describe(publicId, record)) };
    },

    async put({ campaignId, publicId }, rail, input) {
      const credentials = credentialsOf(rail, input);
      const sealed = {
        credentials: await box.seal(JSON.stringify(credentials)),
        webhookToken: input.webhookToken === undefined ? null : await box.seal(input.webhookToken),
      };
      const record = await inTransaction(db, async (trx) => {
        const now = clock();
        await saveRail(trx, campaignId, rail, sealed, now);
        // The names of what was set, never the credentials themselves.
        const fields = [
          ...Object.keys(credentials).filter((name) => name !== 'rail'),
          ...(input.webhookToken === undefined ? [] : ['webhookToken']),
        ];
        await recordAudit(trx, now, [{ campaignId, action: 'payout_rail.set', targetId: rail, fields }]);
        return findRail(trx, campaignId, rail);
      });
      if (!record) throw new NotFoundError(MESSAGES.payoutRailNotFound(rail));
      return describe(publicId, record);
    },

    async remove(campaignId, rail) {
      await inTransaction(db, async (trx) => {
        if ((await deleteRail(trx, campaignId, rail)) === 0) throw new NotFoundError(MESSAGES.payoutRailNotFound(rail));
        await recordAudit(trx, clock(), [{ campaignId, action: 'payout_rail.remove', targetId: rail }]);
      });
    },
  };
}

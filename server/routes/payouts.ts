import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';
import type { PayoutRailName } from '../../shared/schemas/payoutRail.js';
import type { PayoutRailService } from '../services/payouts/rails.js';

export const payoutHandlers: Handlers<typeof contract.payouts> = {
  list: ({ auth, query }, { payouts }) => payouts.list(auth.campaignId, query),
  clawbacks: ({ auth, query }, { payouts }) => payouts.clawbacks(auth.campaignId, query),
  get: ({ auth, params }, { payouts }) => payouts.get(auth.campaignId, params.id),
  create: ({ auth, body }, { payouts }) => payouts.create(auth.campaignId, body.affiliateId),
  bulkCreate: ({ auth, body }, { payouts }) => payouts.createMany(auth.campaignId, body.affiliateIds),
  update: ({ auth, params, body }, { payouts }) => payouts.update(auth.campaignId, params.id, body.status),
  send: ({ auth, params }, { payoutSender }) => payoutSender.send(auth.campaignId, params.id),
  run: ({ auth, body }, { payoutRuns }) => payoutRuns.start(auth.campaignId, body),
};

/** Payout rails (docs/payouts.md) and the providers' callbacks. */
export const payoutRailHandlers: Handlers<typeof contract.payoutRails> = {
  list: ({ auth }, { payoutRails }) => payoutRails.list(auth),
  putPix: ({ auth, body }, { payoutRails }) => payoutRails.put(auth, 'pix', body),
  putPayPal: ({ auth, body }, { payoutRails }) => payoutRails.put(auth, 'paypal', body),
  putStripe: ({ auth, body }, { payoutRails }) => payoutRails.put(auth, 'stripe', body),
  removePix: ({ auth }, { payoutRails }) => removeRail(payoutRails, auth.campaignId, 'pix'),
  removePayPal: ({ auth }, { payoutRails }) => removeRail(payoutRails, auth.campaignId, 'paypal'),
  removeStripe: ({ auth }, { payoutRails }) => removeRail(payoutRails, auth.campaignId, 'stripe'),
  receiveAsaas: ({ params, signed }, { payoutCallbacks }) => payoutCallbacks.asaas(params.campaignPublicId, signed),
  receivePayPal: ({ params, signed }, { payoutCallbacks }) => payoutCallbacks.paypal(params.campaignPublicId, signed),
};

async function removeRail(rails: PayoutRailService, campaignId: number, rail: PayoutRailName) {
  await rails.remove(campaignId, rail);
  return { success: true, message: 'Payout rail deleted successfully' };
}

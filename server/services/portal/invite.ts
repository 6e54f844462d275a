import { MESSAGES } from '../../../shared/errors.js';
import type { InviteResponse } from '../../../shared/schemas/affiliate.js';
import { type Db, inTransaction, type Trx } from '../../db/knex.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { findAffiliate } from '../../repositories/affiliates.js';
import { findCampaign } from '../../repositories/campaigns.js';
import { recordAudit } from '../audit.js';
import { INVITE_LINK_MS, setPasswordLink } from '../mail/links.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { Site } from '../site.js';

export interface InviteDeps {
  db: Db;
  now: () => Date;
  mail: MailOutbox;
  site: Site;
  /** Looks for the mail at once rather than at the next poll. */
  wake: () => void;
}

/**
 * docs/portal.md#inviting-affiliates: an affiliate the merchant created gets a link to choose
 * its password. With mail, the link goes to the affiliate (its token is made as the mail is
 * sent, like a reset's); without, the merchant gets it to pass on. Either way it is the reset
 * page's single-use link, for 7 days.
 */
export async function invite(deps: InviteDeps, campaignId: number, id: number): Promise<InviteResponse> {
  const affiliate = await findAffiliate(deps.db, campaignId, id);
  if (!affiliate) throw new NotFoundError(MESSAGES.affiliateNotFound);
  const campaign = (await findCampaign(deps.db, campaignId))?.campaign;
  if (campaign?.id !== campaignId) throw new NotFoundError(MESSAGES.affiliateNotFound);
  if (!campaign.portal.enabled) throw new ConflictError(MESSAGES.inviteNeedsPortal(campaign.publicId));
  if (affiliate.status === 'inactive') throw new ConflictError(MESSAGES.inviteInactive(id));
  const answer = { affiliateId: id, email: affiliate.email };
  // A mail queued or a link made is a change: its audit row names the affiliate, never the link.
  const audit = (trx: Trx) => recordAudit(trx, deps.now(), [{ campaignId, action: 'affiliate.invite', targetId: id }]);
  if (deps.mail.enabled) {
    await inTransaction(deps.db, async (trx) => {
      await deps.mail.record(trx, [{ kind: 'portal_invite', affiliateId: id }]);
      await audit(trx);
    });
    deps.wake();
    return { ...answer, mailed: true, link: null, expiresAt: null };
  }
  const link = await inTransaction(deps.db, async (trx) => {
    const made = await setPasswordLink(trx, {
      site: deps.site,
      publicId: campaign.publicId,
      affiliateId: id,
      now: deps.now(),
      lifetimeMs: INVITE_LINK_MS,
    });
    await audit(trx);
    return made;
  });
  return { ...answer, mailed: false, link: link.url, expiresAt: link.expiresAt.toISOString() };
}

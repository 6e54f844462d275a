import { randomBytes } from 'node:crypto';
import type { Db, Trx } from '../../db/knex.js';
import { insertResetToken } from '../../repositories/portalSessions.js';
import { hashSecret } from '../secretHash.js';
import type { Site } from '../site.js';

/** docs/portal.md: a reset link works for one hour after its mail is sent. */
export const RESET_LINK_MS = 60 * 60 * 1000;
/** docs/portal.md#inviting-affiliates: an invitation's link works for 7 days. */
export const INVITE_LINK_MS = 7 * 24 * 60 * 60 * 1000;

/** A campaign's portal, on the daemon's public address. */
export const portalUrl = (site: Site, publicId: string) => `${site.url()}/portal/${encodeURIComponent(publicId)}`;

/**
 * A new single-use link to the portal's set-your-password page: 256 random bits, of which the
 * database keeps only the SHA-256, so the link exists only where it is handed (a mail, or the
 * invitation's answer to the merchant).
 */
export async function setPasswordLink(
  db: Db | Trx,
  link: { site: Site; publicId: string; affiliateId: number; now: Date; lifetimeMs: number },
): Promise<{ url: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(link.now.getTime() + link.lifetimeMs);
  await insertResetToken(db, {
    tokenHash: hashSecret(token),
    affiliateId: link.affiliateId,
    now: link.now,
    expiresAt,
  });
  return { url: `${portalUrl(link.site, link.publicId)}/reset?token=${token}`, expiresAt };
}

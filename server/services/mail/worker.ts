import { randomBytes } from 'node:crypto';
import type { LeasedItem, QueueJob } from '../../jobs/queue.js';
import { type ClaimedMail, claimMails, MAIL_QUEUE, settleMail } from '../../repositories/mailOutbox.js';
import { insertDashboardToken } from '../../repositories/dashboardSessions.js';
import { SETUP_LINK_MS, setupAddress } from '../dashboard/users.js';
import type { ServiceDeps } from '../deps.js';
import { hashSecret } from '../secretHash.js';
import type { Site } from '../site.js';
import { mailContent } from './content.js';
import { INVITE_LINK_MS, portalUrl, RESET_LINK_MS, setPasswordLink } from './links.js';
import { type MailTransport, type SendResult, smtpTransport } from './transport.js';

export { RESET_LINK_MS } from './links.js';

export interface MailWorkerOptions extends ServiceDeps {
  site: Site;
  /** How many mails are handed to the SMTP server at once, in this daemon. */
  concurrency?: number;
  /** Tests hand their own; by default nodemailer over SMTP_URL. */
  transport?: MailTransport;
}

/**
 * The mail outbox as a queue of the job runtime (server/jobs/): claims due mails (a lease each,
 * so one daemon sends each mail), renders each in its language, hands it to the SMTP server,
 * and records the outcome; the runtime tries a failure again on `MAIL_RETRY_SCHEDULE`, and a
 * refusal (5xx) or the last attempt fails the mail (`affiliated mail retry` sends it again).
 * Reset links get their token here, at send time: the outbox never stores one. Without
 * SMTP_URL this daemon sends nothing.
 */
export function mailDeliveryJob(options: MailWorkerOptions): QueueJob<ClaimedMail & LeasedItem, SendResult> {
  const { db, logger, now: clock, site } = options;
  const config = options.config.mail;
  let transport: MailTransport | undefined;

  /** The portal page the mail points to; a reset or invitation link with a new single-use token. */
  async function linkOf(mail: ClaimedMail): Promise<string | undefined> {
    const publicId = String(mail.data.publicId);
    const portal = portalUrl(site, publicId);
    switch (mail.kind) {
      case 'application_approved':
        return `${portal}/`;
      case 'payout_paid':
        return `${portal}/payouts/${Number(mail.data.payoutId)}`;
      case 'password_reset':
      case 'portal_invite': {
        if (mail.affiliateId === null) return undefined;
        const lifetimeMs = mail.kind === 'portal_invite' ? INVITE_LINK_MS : RESET_LINK_MS;
        const link = await setPasswordLink(db, {
          site,
          publicId,
          affiliateId: mail.affiliateId,
          now: clock(),
          lifetimeMs,
        });
        return link.url;
      }
      case 'dashboard_invitation': {
        // The set-up link's token exists only in the mail; the database keeps its SHA-256.
        const token = randomBytes(32).toString('base64url');
        const at = clock();
        await insertDashboardToken(db, {
          tokenHash: hashSecret(token),
          userId: Number(mail.data.userId),
          now: at,
          expiresAt: new Date(at.getTime() + SETUP_LINK_MS),
        });
        return setupAddress(site, String(mail.data.publicId), token);
      }
      default:
        return undefined;
    }
  }

  return {
    name: 'mail',
    label: 'mail',
    idField: 'mailId',
    enabled: config.smtpUrl !== undefined,
    table: MAIL_QUEUE,
    pollMs: config.pollMs,
    leaseMs: config.leaseMs,
    maxInFlight: options.concurrency ?? 4,
    // MAIL_RETRY_SCHEDULE is documented as exact waits (docs/portal.md#e-mail).
    retry: { scheduleMs: config.retryScheduleMs, jitter: 0 },
    // No stopGraceMs: a mail handed to the SMTP server is never cut, stop waits for its answer.
    claim: (ids, now, leaseMs) => claimMails(db, ids, { now, leaseMs }),
    async attempt(mail) {
      if (!transport || !config.from) return undefined;
      const content = mailContent(mail, await linkOf(mail));
      return transport.send({ from: config.from, to: mail.to, ...content });
    },
    async settle(mail, result, next) {
      const now = clock();
      await settleMail(db, mail, { ...next, error: result.ok ? null : result.error, now });
      const status = next.outcome === 'succeeded' ? 'sent' : next.outcome === 'retried' ? 'pending' : 'failed';
      // Never the address or the text: the mail may hold a reset link.
      logger.debug('mail attempt', { mailId: mail.id, kind: mail.kind, attempt: mail.attemptCount + 1, next: status });
      if (next.outcome === 'dead')
        logger.warn('mail failed', { mailId: mail.id, kind: mail.kind, error: result.ok ? null : result.error });
    },
    open() {
      if (config.smtpUrl) transport = options.transport ?? smtpTransport(config.smtpUrl);
    },
    close() {
      transport?.close();
    },
  };
}

import { randomBytes } from 'node:crypto';
import { errorSite } from '../../logger.js';
import { type ClaimedMail, claimDueMails, releaseMail, settleMail } from '../../repositories/mailOutbox.js';
import { insertResetToken } from '../../repositories/portalSessions.js';
import type { ServiceDeps, Worker } from '../deps.js';
import { hashSecret } from '../secretHash.js';
import type { Site } from '../site.js';
import { mailContent } from './content.js';
import { type MailTransport, smtpTransport } from './transport.js';

/** docs/portal.md: a reset link works for one hour after its mail is sent. */
export const RESET_LINK_MS = 60 * 60 * 1000;

export interface MailWorker extends Worker {
  /** Look for due mails now rather than at the next poll. */
  wake(): void;
}

export interface MailWorkerOptions extends ServiceDeps {
  site: Site;
  /** How many mails are handed to the SMTP server at once, in this daemon. */
  concurrency?: number;
  /** Tests hand their own; by default nodemailer over SMTP_URL. */
  transport?: MailTransport;
}

/**
 * Sends the mail outbox: claims due mails (a lease each, so one daemon sends each mail),
 * renders each in its language, hands it to the SMTP server, and records the outcome; a
 * failure is tried again on `MAIL_RETRY_SCHEDULE`, a refusal (5xx) or the last attempt fails
 * the mail. Reset links get their token here, at send time: the outbox never stores one.
 */
export function createMailWorker(options: MailWorkerOptions): MailWorker {
  const { db, logger, now: clock, site } = options;
  const config = options.config.mail;
  const concurrency = options.concurrency ?? 4;
  let transport: MailTransport | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  let again = false;

  function schedule(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      running = poll().finally(() => {
        running = undefined;
      });
    }, delayMs);
  }

  /** The portal page the mail points to; a reset link with a new single-use token. */
  async function linkOf(mail: ClaimedMail): Promise<string | undefined> {
    const portal = `${site.url()}/portal/${encodeURIComponent(String(mail.data.publicId))}`;
    switch (mail.kind) {
      case 'application_approved':
        return `${portal}/`;
      case 'payout_paid':
        return `${portal}/payouts/${Number(mail.data.payoutId)}`;
      case 'password_reset': {
        if (mail.affiliateId === null) return undefined;
        const token = randomBytes(32).toString('base64url');
        const at = clock();
        await insertResetToken(db, {
          tokenHash: hashSecret(token),
          affiliateId: mail.affiliateId,
          now: at,
          expiresAt: new Date(at.getTime() + RESET_LINK_MS),
        });
        return `${portal}/reset?token=${token}`;
      }
      default:
        return undefined;
    }
  }

  async function deliver(mail: ClaimedMail): Promise<void> {
    if (!transport || !config.from) return;
    if (stopped) return releaseMail(db, mail);
    const content = mailContent(mail, await linkOf(mail));
    const result = await transport.send({ from: config.from, to: mail.to, ...content });
    const now = clock();
    const wait = config.retryScheduleMs[mail.attemptCount];
    const next = result.ok
      ? { status: 'sent' as const, nextAttemptAt: null, error: null }
      : result.permanent || wait === undefined
        ? { status: 'failed' as const, nextAttemptAt: null, error: result.error }
        : { status: 'pending' as const, nextAttemptAt: new Date(now.getTime() + wait), error: result.error };
    await settleMail(db, mail, { ...next, now });
    // Never the address or the text: the mail may hold a reset link.
    logger.debug('mail attempt', {
      mailId: mail.id,
      kind: mail.kind,
      attempt: mail.attemptCount + 1,
      next: next.status,
    });
    if (next.status === 'failed') logger.warn('mail failed', { mailId: mail.id, kind: mail.kind, error: next.error });
  }

  async function poll(): Promise<void> {
    let full = false;
    try {
      const claimed = await claimDueMails(db, { now: clock(), leaseMs: config.leaseMs, limit: concurrency * 4 });
      for (let i = 0; i < claimed.length; i += concurrency) {
        await Promise.all(
          claimed.slice(i, i + concurrency).map((mail) =>
            deliver(mail).catch((err: unknown) => {
              // The lease runs out and the mail is tried again: nothing is lost.
              logger.error('mail delivery failed to record', { mailId: mail.id, thrownAt: errorSite(err) });
            }),
          ),
        );
      }
      full = claimed.length === concurrency * 4;
    } catch (err) {
      const code = (err as { code?: string }).code;
      // Another daemon claimed the same mails first: on a Galera cluster the loser's claim is
      // refused at commit as a deadlock. Normal there, and nothing is lost: poll again.
      if (code === 'ER_LOCK_DEADLOCK') logger.debug('mail claim lost to another daemon', { code });
      else logger.error('mail claim failed', { code, thrownAt: errorSite(err) });
    } finally {
      const soon = full || again;
      again = false;
      schedule(soon ? 0 : config.pollMs);
    }
  }

  return {
    name: 'mail',
    start() {
      if (!stopped || !config.smtpUrl) return;
      stopped = false;
      transport = options.transport ?? smtpTransport(config.smtpUrl);
      schedule(0);
    },
    wake() {
      if (running) again = true;
      else schedule(0);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await running;
      transport?.close();
    },
  };
}

import type { AffiliateStatus } from '../../../shared/schemas/affiliate.js';
import type { Config } from '../../config.js';
import type { Trx } from '../../db/knex.js';
import { insertMails, type NewMail } from '../../repositories/mailOutbox.js';
import { type MailAddressee, mailAddressees } from '../../repositories/portalAccounts.js';
import { localeOf } from '../../views/locale.js';

/** A change that sends a mail (docs/portal.md#e-mail). Who gets it and in which language is the outbox's call. */
export type MailRequest =
  | { kind: 'application_received'; affiliateId: number; status: AffiliateStatus }
  | { kind: 'application_approved'; affiliateId: number }
  | { kind: 'password_reset'; affiliateId: number }
  | { kind: 'portal_invite'; affiliateId: number }
  | { kind: 'payout_paid'; affiliateId: number; payoutId: number; amountCents: number; receipt?: string }
  /** To a merchant's new dashboard user (docs/dashboard.md): the set-up link is made at send time. */
  | {
      kind: 'dashboard_invitation';
      campaignId: number;
      userId: number;
      campaignName: string;
      publicId: string;
      to: string;
      role: string;
      locale: string;
    };

type AffiliateMail = Exclude<MailRequest, { kind: 'dashboard_invitation' }>;

/**
 * How a service sends mail: from inside the transaction of the change the mail reports, so
 * the mail commits or rolls back with it (the same shape as the webhook `Outbox`). One is built
 * in `createServices`; a worker sends what it stores.
 */
export interface MailOutbox {
  /** Whether mail can be sent at all (`SMTP_URL` is set): the portal offers password reset only then. */
  readonly enabled: boolean;
  record(trx: Trx, mails: readonly MailRequest[]): Promise<void>;
}

/** What every mail to an affiliate says about where it comes from. */
function about(to: MailAddressee) {
  return { name: to.name, campaignName: to.campaignName, publicId: to.campaignPublicId };
}

/** The row for one request, or undefined when this mail is not sent (no address, turned off). */
function mailFor(request: AffiliateMail, to: MailAddressee, campaignId: number, at: Date): NewMail | undefined {
  const base = { campaignId, affiliateId: to.affiliateId, locale: localeOf(to.locale), createdAt: at };
  switch (request.kind) {
    case 'application_received':
      // To the merchant: the campaign's contact address, if it has one.
      if (to.contactEmail === null) return undefined;
      return {
        ...base,
        kind: request.kind,
        to: to.contactEmail,
        data: { ...about(to), email: to.email, affiliateId: to.affiliateId, status: request.status },
      };
    case 'application_approved':
    case 'password_reset':
      return { ...base, kind: request.kind, to: to.email, data: about(to) };
    case 'portal_invite':
      // The address to log in with is the one the mail goes to: the mail says it.
      return { ...base, kind: request.kind, to: to.email, data: { ...about(to), email: to.email } };
    case 'payout_paid':
      if (!to.notifyPayouts) return undefined;
      return {
        ...base,
        kind: request.kind,
        to: to.email,
        data: {
          ...about(to),
          payoutId: request.payoutId,
          amountCents: request.amountCents,
          currency: to.campaignCurrency,
          // The provider's proof of a payout the daemon sent (docs/payouts.md); none for one paid by hand.
          ...(request.receipt === undefined ? {} : { receipt: request.receipt }),
        },
      };
  }
}

/**
 * The policy: without `SMTP_URL` nothing is recorded (mails are not kept for a server that may
 * never come); mails go only for campaigns whose portal is on, since every one of them points
 * there; the payout mail only to affiliates who keep it on.
 */
export function mailOutbox({ config, now }: { config: Readonly<Config>; now: () => Date }): MailOutbox {
  const enabled = config.mail.smtpUrl !== undefined;
  return {
    enabled,
    async record(trx, requests) {
      if (!enabled || requests.length === 0) return;
      const at = now();
      const toAffiliates = requests.filter((r): r is AffiliateMail => r.kind !== 'dashboard_invitation');
      // A dashboard user is no affiliate: the invitation names its own address and language.
      const invitations: NewMail[] = requests.flatMap((r) =>
        r.kind === 'dashboard_invitation'
          ? [
              {
                campaignId: r.campaignId,
                affiliateId: null,
                kind: r.kind,
                to: r.to,
                locale: localeOf(r.locale),
                data: { userId: r.userId, role: r.role, campaignName: r.campaignName, publicId: r.publicId },
                createdAt: at,
              },
            ]
          : [],
      );
      const addressees =
        toAffiliates.length === 0
          ? new Map<number, MailAddressee>()
          : await mailAddressees(
              trx,
              toAffiliates.map((request) => request.affiliateId),
            );
      const mails = toAffiliates.flatMap((request) => {
        const to = addressees.get(request.affiliateId);
        if (!to?.portalEnabled) return [];
        const mail = mailFor(request, to, to.campaignId, at);
        return mail ? [mail] : [];
      });
      await insertMails(trx, [...mails, ...invitations]);
    },
  };
}

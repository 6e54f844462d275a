import { DEFAULT_CURRENCY } from '../../../shared/currency.js';
import { formatMoney } from '../../views/format.js';
import { renderView } from '../../views/engine.js';
import { localeOf } from '../../views/locale.js';
import { textsFor } from '../../views/texts/index.js';

/** A mail ready to send. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const nameOf = (data: Record<string, unknown>) => (typeof data.name === 'string' ? data.name : null);

/**
 * A stored mail in its language: plain text and the same in HTML (escaped by the template
 * engine, since names come from affiliates). `link` is the portal address the mail points to,
 * made by the worker at send time (a reset link's token exists only in the mail itself).
 */
export function mailContent(
  mail: { kind: string; locale: string; data: Record<string, unknown> },
  link: string | undefined,
): MailContent {
  const locale = localeOf(mail.locale);
  const t = textsFor(locale).mail;
  const campaign = text(mail.data.campaignName);
  const greeting = t.greeting(nameOf(mail.data));
  let subject: string;
  let lines: string[];
  let after: string[] = [];
  switch (mail.kind) {
    case 'application_received': {
      const status = textsFor(locale).status[text(mail.data.status)] ?? text(mail.data.status);
      subject = t.applicationReceived.subject(campaign);
      lines = [t.applicationReceived.body(nameOf(mail.data) ?? text(mail.data.email), text(mail.data.email), status)];
      if (mail.data.status === 'pending') {
        lines.push(t.applicationReceived.manual.replace('ID', String(mail.data.affiliateId)));
      }
      break;
    }
    case 'application_approved':
      subject = t.applicationApproved.subject(campaign);
      lines = [greeting, t.applicationApproved.body];
      break;
    case 'password_reset':
      subject = t.passwordReset.subject(campaign);
      lines = [greeting, t.passwordReset.body];
      after = [t.passwordReset.ignore];
      break;
    case 'portal_invite':
      subject = t.portalInvite.subject(campaign);
      lines = [greeting, t.portalInvite.body(campaign, text(mail.data.email))];
      after = [t.portalInvite.after];
      break;
    case 'payout_paid':
      subject = t.payoutPaid.subject(campaign);
      // A mail stored before it kept its campaign's currency was BRL, the only one then shown.
      lines = [
        greeting,
        t.payoutPaid.body(
          formatMoney(Number(mail.data.amountCents ?? 0), locale, text(mail.data.currency) || DEFAULT_CURRENCY),
        ),
      ];
      // Sent through a rail: the provider's receipt (Pix end-to-end id, PayPal or Stripe id), to find it in the bank.
      after = [
        ...(text(mail.data.receipt) ? [t.payoutPaid.receipt(text(mail.data.receipt))] : []),
        t.payoutPaid.optOut,
      ];
      break;
    case 'dashboard_invitation':
      subject = t.dashboardInvitation.subject(campaign);
      lines = [
        t.dashboardInvitation.body(
          campaign,
          textsFor(locale).dashboardRoles[text(mail.data.role)] ?? text(mail.data.role),
        ),
      ];
      after = [t.dashboardInvitation.expires];
      break;
    default:
      throw new Error(`unknown mail kind ${mail.kind}`);
  }
  const signature = t.signature(campaign);
  const plain = [...lines, ...(link ? [link] : []), ...after, signature].join('\n\n');
  const html = renderView('mail', { lang: locale, subject, lines, link, after, signature });
  return { subject, text: `${plain}\n`, html };
}

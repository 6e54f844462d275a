import { type MailSummary, recentMails } from '../../repositories/mailOutbox.js';
import type { ServiceDeps } from '../deps.js';

export interface MailService {
  /** `affiliated mail list`: recent mails and how their delivery went, never what they say. */
  list(filter: { limit: number; status?: string; campaignId?: number }): Promise<MailSummary[]>;
  /** Whether `SMTP_URL` is set. */
  readonly configured: boolean;
}

export function mailService({ db, config }: ServiceDeps): MailService {
  return {
    configured: config.mail.smtpUrl !== undefined,
    list: (filter) => recentMails(db, filter),
  };
}

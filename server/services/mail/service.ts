import { MESSAGES } from '../../../shared/errors.js';
import { NotFoundError } from '../../errors.js';
import { type MailSummary, recentMails, retryFailedMail } from '../../repositories/mailOutbox.js';
import type { ServiceDeps } from '../deps.js';

export interface MailService {
  /** `affiliated mail list`: recent mails and how their delivery went, never what they say. */
  list(filter: { limit: number; status?: string; campaignId?: number }): Promise<MailSummary[]>;
  /**
   * `affiliated mail retry`: a failed mail (the job runtime's dead state) is pending again and
   * due now; a daemon sending mail takes it at its next poll, for one attempt more.
   */
  retry(id: number): Promise<void>;
  /** Whether `SMTP_URL` is set. */
  readonly configured: boolean;
}

export function mailService({ db, config, now }: ServiceDeps): MailService {
  return {
    configured: config.mail.smtpUrl !== undefined,
    list: (filter) => recentMails(db, filter),
    async retry(id) {
      if (!(await retryFailedMail(db, id, now()))) throw new NotFoundError(MESSAGES.failedMailNotFound(id));
    },
  };
}

import type { Db, Trx } from '../db/knex.js';
import type { MailOutboxRow } from '../db/portalRows.js';
import { toDate } from '../db/rows.js';
import { claimItems, type LeasedTable, retryDeadItem, settleItem } from './leasedQueue.js';

/**
 * The mail outbox's rows (docs/portal.md#e-mail). Which mails a change sends, to whom and in
 * which language is the outbox's policy (services/mail/outbox.ts); this file stores, claims and
 * settles the rows it is given.
 */

export interface NewMail {
  campaignId: number;
  affiliateId: number | null;
  kind: string;
  to: string;
  locale: string;
  /** What the mail says: names and amounts, never a token or a link. */
  data: Record<string, unknown>;
  createdAt: Date;
}

export async function insertMails(trx: Trx, mails: readonly NewMail[]): Promise<void> {
  if (mails.length === 0) return;
  await trx('mail_outbox').insert(
    mails.map((mail) => ({
      campaign_id: mail.campaignId,
      affiliate_id: mail.affiliateId,
      kind: mail.kind,
      to_address: mail.to,
      locale: mail.locale,
      data: JSON.stringify(mail.data),
      status: 'pending' as const,
      attempt_count: 0,
      next_attempt_at: mail.createdAt,
      lease_token: null,
      lease_until: null,
      last_error: null,
      created_at: mail.createdAt,
      updated_at: mail.createdAt,
      sent_at: null,
    })),
  );
}

/** A mail this daemon holds the lease of. */
export interface ClaimedMail {
  id: number;
  campaignId: number;
  affiliateId: number | null;
  kind: string;
  to: string;
  locale: string;
  data: Record<string, unknown>;
  attemptCount: number;
  leaseToken: string;
}

/** The outbox's columns as the job runtime's leased queue sees them (leasedQueue.ts). */
export const MAIL_QUEUE: LeasedTable = { table: 'mail_outbox', pending: 'pending', done: 'sent', dead: 'failed' };

/** Claims these mails where still due and free (leasedQueue.ts), and reads back what was taken. */
export async function claimMails(
  db: Db,
  ids: readonly number[],
  options: { now: Date; leaseMs: number },
): Promise<ClaimedMail[]> {
  const token = await claimItems(db, MAIL_QUEUE, ids, options);
  if (token === undefined) return [];
  const rows = await db('mail_outbox').where('lease_token', token).orderBy('id').select<MailOutboxRow[]>('*');
  return rows.map((row) => ({
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    affiliateId: row.affiliate_id === null ? null : Number(row.affiliate_id),
    kind: row.kind,
    to: row.to_address,
    locale: row.locale,
    data: JSON.parse(row.data) as Record<string, unknown>,
    attemptCount: Number(row.attempt_count),
    leaseToken: token,
  }));
}

/** The mail's next state, written only while this daemon still holds its lease. */
export async function settleMail(
  db: Db,
  mail: ClaimedMail,
  next: { outcome: 'succeeded' | 'retried' | 'dead'; nextAttemptAt: Date | null; error: string | null; now: Date },
): Promise<void> {
  await settleItem(db, MAIL_QUEUE, mail, next, {
    last_error: next.error,
    updated_at: next.now,
    sent_at: next.outcome === 'succeeded' ? next.now : null,
  });
}

/** `affiliated mail retry`: a failed mail is due now, for one attempt more. Answers whether it was failed. */
export function retryFailedMail(db: Db, id: number, now: Date): Promise<boolean> {
  return retryDeadItem(db, MAIL_QUEUE, id, now, { updated_at: now });
}

/** A mail as `affiliated mail list` shows it: whom, what, its state; never what it says. */
export interface MailSummary {
  id: number;
  campaignId: number;
  affiliateId: number | null;
  kind: string;
  to: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  nextAttemptAt: string | null;
}

export async function recentMails(
  db: Db,
  filter: { limit: number; status?: string; campaignId?: number },
): Promise<MailSummary[]> {
  const query = db('mail_outbox')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(filter.limit);
  if (filter.status) query.where('status', filter.status);
  if (filter.campaignId !== undefined) query.where('campaign_id', filter.campaignId);
  const rows = await query.select<MailOutboxRow[]>(
    'id',
    'campaign_id',
    'affiliate_id',
    'kind',
    'to_address',
    'status',
    'attempt_count',
    'last_error',
    'created_at',
    'sent_at',
    'next_attempt_at',
  );
  const iso = (value: MailOutboxRow['sent_at']) => (value === null ? null : toDate(value).toISOString());
  return rows.map((row) => ({
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    affiliateId: row.affiliate_id === null ? null : Number(row.affiliate_id),
    kind: row.kind,
    to: row.to_address,
    status: row.status,
    attempts: Number(row.attempt_count),
    lastError: row.last_error,
    createdAt: toDate(row.created_at).toISOString(),
    sentAt: iso(row.sent_at),
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
  }));
}

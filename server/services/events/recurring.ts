import { createHash } from 'node:crypto';
import type { Recurring } from '../../../shared/schemas/commission.js';
import type { TrackingEvent } from '../../../shared/schemas/event.js';
import type { Trx } from '../../db/knex.js';
import { countPayments, type CustomerPayments, readCustomers } from '../../repositories/customers.js';

/**
 * The recurring limit (spec §12.4, docs/commissions.md#recurring): which of a customer's payments
 * earn. A customer's first attributed payment in a campaign is a row its primary key decides.
 */

/**
 * Who paid, within the campaign: a billing provider's customer id when the caller knows one (the
 * billing integrations pass it), else the event's `customer_id`, else its `customer_email`
 * (trimmed, case ignored). Undefined: the payment names no customer, and earns as a one-off.
 */
export function customerKey(event: TrackingEvent, providerCustomer?: string): string | undefined {
  if (providerCustomer !== undefined && providerCustomer !== '') return `provider:${providerCustomer}`;
  const id: unknown = event.properties?.customer_id;
  if ((typeof id === 'string' && id.trim() !== '') || (typeof id === 'number' && Number.isFinite(id))) {
    return `id:${String(id).trim()}`;
  }
  const email: unknown = event.properties?.customer_email;
  if (typeof email === 'string' && email.trim() !== '') return `email:${email.trim().toLowerCase()}`;
  return undefined;
}

/** The database keeps a customer as this digest: fixed length, and no e-mail in another table. */
export const customerHash = (key: string) => createHash('sha256').update(key).digest('hex');

/** The same moment `months` calendar months later (UTC); the 31st becomes the month's last day. */
export function addMonths(date: Date, months: number): Date {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const moved = new Date(date.getTime());
  moved.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return moved;
}

/** Whether a payment earns: `first` only the first; `{ months }` those before the window closes. */
export function earnsUnder(recurring: Recurring, isFirst: boolean, firstAt: Date, at: Date): boolean {
  if (recurring === 'lifetime' || isFirst) return true;
  if (recurring === 'first') return false;
  return at.getTime() < addMonths(firstAt, recurring.months).getTime();
}

/** A sale that names a customer, in request order. */
export interface Payment {
  customerHash: string;
  occurredAt: Date;
  recurring: Recurring;
}

/** What the limit makes of a payment: whether it earns, and which of its customer's payments it is. */
export interface PaymentVerdict {
  earns: boolean;
  paymentNumber: number;
}

/**
 * Judges one request's payments (each earns or is skipped as `recurring_limit_reached`) and
 * counts those that earn on their customers, in the request's transaction: one upsert that
 * inserts new customers with this request's first payment and counts every payment, one locking
 * read, and, when some payment earns nothing, one upsert that takes those back. Whoever
 * inserted a customer's row made its first payment, whatever other daemons do at the same time.
 */
export async function judgePayments(
  trx: Trx,
  campaignId: number,
  intakeId: string,
  payments: readonly Payment[],
  now: Date,
): Promise<PaymentVerdict[]> {
  const byCustomer = new Map<string, number[]>();
  payments.forEach((payment, i) =>
    byCustomer.set(payment.customerHash, [...(byCustomer.get(payment.customerHash) ?? []), i]),
  );
  const counted: CustomerPayments[] = [...byCustomer].map(([hash, positions]) => ({
    customerHash: hash,
    firstOccurredAt: payments[positions[0] ?? 0]?.occurredAt ?? now,
    count: positions.length,
  }));
  await countPayments(trx, campaignId, intakeId, counted, now);
  const customers = await readCustomers(trx, campaignId, [...byCustomer.keys()]);

  const verdicts: PaymentVerdict[] = payments.map(() => ({ earns: true, paymentNumber: 0 }));
  const takeBack: CustomerPayments[] = [];
  for (const [hash, positions] of byCustomer) {
    const customer = customers.get(hash);
    if (!customer) throw new Error('a customer row this request wrote is missing');
    const madeFirst = customer.firstIntakeId === intakeId;
    const earning = positions.filter((position, i) => {
      const payment = payments[position];
      const earns =
        payment !== undefined &&
        earnsUnder(payment.recurring, madeFirst && i === 0, customer.firstOccurredAt, payment.occurredAt);
      const verdict = verdicts[position];
      if (verdict) verdict.earns = earns;
      return earns;
    });
    const skipped = positions.length - earning.length;
    if (skipped > 0) takeBack.push({ customerHash: hash, firstOccurredAt: customer.firstOccurredAt, count: -skipped });
    // Ours are the last payments counted on the customer: number them in request order.
    const total = customer.payments - skipped;
    earning.forEach((position, k) => {
      const verdict = verdicts[position];
      if (verdict) verdict.paymentNumber = total - earning.length + 1 + k;
    });
  }
  if (takeBack.length > 0) await countPayments(trx, campaignId, intakeId, takeBack, now);
  return verdicts;
}

import type { SkipReason, TrackingEvent } from '../../../shared/schemas/event.js';
import type { Trx } from '../../db/knex.js';
import { findConversionByOrder } from '../../repositories/conversions.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { storeFlush } from './flush.js';
import { type IntakeJob, type MonthlyLimit, MonthlyLimitReached } from './records.js';

/** A sale another service has learnt of (a billing provider's payment), to store as intake stores one. */
export interface SaleToRecord {
  /** The campaign whose month the sale reserves from, and its plan's monthly limit. */
  limit: MonthlyLimit;
  /** The sale as `POST /v1/events` would receive it: a conversion with its `order_id`. */
  event: TrackingEvent;
  /**
   * The provider's id of the customer, when it is known: the customer the recurring limit counts
   * before `customer_id` and `customer_email` (docs/commissions.md#recurring).
   */
  providerCustomerId: string | null;
  /** When it arrived: stamps its rows and picks the month it reserves from. */
  now: Date;
}

/** What became of a sale: stored as a conversion, skipped as intake skips an event, or refused by the month's limit. */
export type SaleRecorded =
  | { outcome: 'stored'; conversionId: number }
  | { outcome: 'skipped'; reason: SkipReason }
  | { outcome: 'monthly_limit_reached'; current: number };

/**
 * Stores one sale inside the caller's transaction, through the flush every event request goes
 * through (commission, recurring and monthly limits, report counters, `conversion.created`), in
 * a savepoint of its own: a sale the month's limit refuses leaves nothing, and the caller's
 * transaction goes on. Call `MonthlyUsage.prepare` for its campaign and month first.
 */
export type RecordSale = (trx: Trx, sale: SaleToRecord) => Promise<SaleRecorded>;

export function saleRecorder(outbox: WebhookOutbox, rollups: boolean): RecordSale {
  return async (trx, sale) => {
    const { limit, event, providerCustomerId, now } = sale;
    const orderId = event.properties?.order_id;
    if (event.event_type !== 'conversion' || orderId === undefined) {
      throw new Error('a sale is a conversion event with an order_id');
    }
    const job: IntakeJob = {
      events: [event],
      campaignIds: [limit.campaignId],
      limit,
      ...(providerCustomerId !== null && { providerCustomers: new Map([[0, providerCustomerId]]) }),
      now,
    };
    try {
      return await trx.transaction(async (savepoint): Promise<SaleRecorded> => {
        // A flush of one request throws what refuses it, so that this savepoint rolls it back.
        const [stored] = await storeFlush(savepoint, [job], outbox, rollups);
        if (!stored) throw new Error('the flush answered no outcome for its one request');
        if (!stored.ok) throw stored.error;
        const skip = stored.value.skipped[0];
        if (skip) return { outcome: 'skipped', reason: skip.reason };
        const conversion = await findConversionByOrder(savepoint, limit.campaignId, orderId);
        if (!conversion) throw new Error('the conversion intake stored is not there');
        return { outcome: 'stored', conversionId: conversion.id };
      });
    } catch (err) {
      if (err instanceof MonthlyLimitReached) return { outcome: 'monthly_limit_reached', current: err.current };
      throw err;
    }
  };
}

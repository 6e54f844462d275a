import { randomBytes } from 'node:crypto';
import type { CommissionRule } from '../../shared/schemas/commission.js';
import type { TrackingEvent } from '../../shared/schemas/event.js';
import { jsonText } from '../../shared/schemas/jsonShape.js';
import type { Db, Trx } from '../db/knex.js';
import { chunks, inChunks, insertRows } from '../db/bulk.js';
import type { AffiliateRow, ConversionRow, TrackingEventRow } from '../db/rows.js';
import type { Rate } from './ruleColumns.js';

/** A tracking event to store, as the intake knows it. */
export interface NewTrackingEvent {
  campaignId: number;
  affiliateId: number;
  event: TrackingEvent;
  /** Set for conversions: the order_id dedupe key. */
  orderId: string | undefined;
  intakeId: string;
  /** The click it was attributed through (docs/analytics.md); undefined: its code alone. */
  clickId: string | undefined;
  occurredAt: Date;
  createdAt: Date;
}

/** A pending conversion to store (spec §4.6.4), its commission already computed. */
export interface NewConversion {
  campaignId: number;
  affiliateId: number;
  /** A sale's tracking event; null for a second-tier conversion (its sale has the event). */
  trackingEventId: number | null;
  orderId: string;
  orderValueCents: number;
  commissionCents: number;
  /** Why it earns that (spec §12.8). */
  rule: CommissionRule;
  flags: readonly string[];
  /** A second-tier conversion's sale; undefined for a sale. */
  sourceConversionId?: number;
  /** The click the sale was attributed through; undefined: its code alone (and every second-tier conversion). */
  clickId?: string;
  properties: object | undefined;
  occurredAt: Date;
  createdAt: Date;
}

/**
 * The dedupe keys the unique indexes hold (spec §10.7): `=` and the id, or, for an event without
 * that id, `#` and a value no other row holds. Never NULL: Galera certifies a unique key's NULL
 * as one value, so rows without ids committed through two nodes at once would conflict
 * (docs/scaling.md, "Hot rows"). A filler is this process's random prefix and a counter; the
 * `.` keeps it apart from the `#` and row id the migration gave older rows.
 */
const FILLER_PREFIX = `#${randomBytes(9).toString('base64url')}.`;
let fillers = 0;
const dedupeKey = (id: string | undefined) =>
  id === undefined ? `${FILLER_PREFIX}${(fillers++).toString(36)}` : `=${id}`;

// The text validation already made when it measured the object (shared/schemas/jsonShape.ts).
const json = (value: object | undefined) => (value === undefined ? null : (jsonText(value) ?? null));

function trackingEventRow(e: NewTrackingEvent): TrackingEventInsert {
  return {
    campaign_id: e.campaignId,
    affiliate_id: e.affiliateId,
    event_type: e.event.event_type,
    event_id: e.event.event_id ?? null,
    order_id: e.orderId ?? null,
    event_key: dedupeKey(e.event.event_id),
    order_key: dedupeKey(e.orderId),
    session_id: e.event.session_id ?? null,
    properties: json(e.event.properties),
    device_info: json(e.event.device_info),
    click_id: e.clickId ?? null,
    intake_id: e.intakeId,
    occurred_at: e.occurredAt,
    created_at: e.createdAt,
  };
}

function conversionRow(c: NewConversion): ConversionInsert {
  return {
    campaign_id: c.campaignId,
    affiliate_id: c.affiliateId,
    tracking_event_id: c.trackingEventId,
    order_id: c.orderId,
    order_value_cents: c.orderValueCents,
    commission_cents: c.commissionCents,
    intake_commission_cents: c.commissionCents,
    refunded_value_cents: 0,
    // 0 for a sale: the unique (campaign_id, order_id, source_key) keeps one sale per order.
    source_key: c.sourceConversionId ?? 0,
    source_conversion_id: c.sourceConversionId ?? null,
    commission_rule: JSON.stringify(c.rule),
    flags: c.flags.length === 0 ? null : JSON.stringify(c.flags),
    status: 'pending',
    payout_id: null,
    click_id: c.clickId ?? null,
    properties: json(c.properties),
    occurred_at: c.occurredAt,
    created_at: c.createdAt,
    updated_at: c.createdAt,
  };
}

type TrackingEventInsert = Omit<TrackingEventRow, 'id'>;
/** A refund's columns keep their defaults (NULL) on a new conversion. */
type ConversionInsert = Omit<ConversionRow, 'id' | 'refunded_at' | 'refund_reason'>;

/** What a stored tracking event says about itself, enough to tell which request row it was. */
export interface StoredEventKey {
  id: number;
  campaignId: number;
  eventId: string | null;
  orderId: string | null;
}

/**
 * The affiliate behind a referral code, as attribution and the commission rules need it
 * (docs/commissions.md): its group, override, e-mail, and its parent's status and group.
 */
export interface ReferralTarget {
  id: number;
  campaignId: number;
  /** The code upper-cased: the form codes are unique and matched on. */
  referralKey: string;
  status: AffiliateRow['status'];
  email: string;
  groupId: number | null;
  override: Rate | null;
  parent: { id: number; status: AffiliateRow['status']; groupId: number | null } | null;
}

const TARGET_COLUMNS = [
  'a.id',
  'a.campaign_id',
  'a.referral_key',
  'a.status',
  'a.email',
  'a.group_id',
  'a.commission_override_type',
  'a.commission_override_value',
  'a.parent_affiliate_id',
  'p.status as parent_status',
  'p.group_id as parent_group_id',
];

type TargetRow = Pick<
  AffiliateRow,
  | 'id'
  | 'campaign_id'
  | 'referral_key'
  | 'status'
  | 'email'
  | 'group_id'
  | 'commission_override_type'
  | 'commission_override_value'
  | 'parent_affiliate_id'
> & { parent_status: AffiliateRow['status'] | null; parent_group_id: number | null };

/** The affiliates behind upper-cased referral codes (unique across campaigns, spec §10.3), with their parents: one read. */
export async function findAffiliatesByReferralKeys(
  db: Db | Trx,
  referralKeys: readonly string[],
): Promise<ReferralTarget[]> {
  const rows = await inChunks(referralKeys, (keys) =>
    db('affiliates as a')
      .leftJoin('affiliates as p', 'p.id', 'a.parent_affiliate_id')
      .whereIn('a.referral_key', keys)
      .select<TargetRow[]>(TARGET_COLUMNS),
  );
  return rows.map((row) => ({
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    referralKey: row.referral_key,
    status: row.status,
    email: row.email,
    groupId: row.group_id === null ? null : Number(row.group_id),
    override:
      row.commission_override_type === null
        ? null
        : { type: row.commission_override_type, hundredths: Number(row.commission_override_value ?? 0) },
    parent:
      row.parent_affiliate_id === null || row.parent_status === null
        ? null
        : {
            id: Number(row.parent_affiliate_id),
            status: row.parent_status,
            groupId: row.parent_group_id === null ? null : Number(row.parent_group_id),
          },
  }));
}

/**
 * Multi-row INSERT IGNORE (MySQL) / INSERT … ON CONFLICT DO NOTHING (SQLite): the unique
 * indexes on (campaign_id, event_key) and (campaign_id, order_key) drop duplicates, including
 * those a concurrent request or another daemon stores at the same moment (spec §10.7).
 */
export async function insertTrackingEventsIgnoringDuplicates(
  trx: Trx,
  events: readonly NewTrackingEvent[],
): Promise<void> {
  await insertRows(trx, 'tracking_events', TRACKING_EVENT_COLUMNS, events.map(trackingEventRow), { ignore: true });
}

const TRACKING_EVENT_COLUMNS = [
  'campaign_id',
  'affiliate_id',
  'event_type',
  'event_id',
  'order_id',
  'event_key',
  'order_key',
  'session_id',
  'properties',
  'device_info',
  'click_id',
  'intake_id',
  'occurred_at',
  'created_at',
] as const satisfies readonly (keyof TrackingEventInsert)[];

const CONVERSION_COLUMNS = [
  'campaign_id',
  'affiliate_id',
  'tracking_event_id',
  'order_id',
  'order_value_cents',
  'commission_cents',
  'intake_commission_cents',
  'refunded_value_cents',
  'source_key',
  'source_conversion_id',
  'commission_rule',
  'flags',
  'status',
  'payout_id',
  'click_id',
  'properties',
  'occurred_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ConversionInsert)[];

const KEY_COLUMNS = ['id', 'campaign_id', 'event_id', 'order_id'] as const;

/** The rows this request actually stored: the ones carrying its intake id. */
export async function trackingEventsOfIntake(trx: Trx, intakeId: string): Promise<StoredEventKey[]> {
  const rows = await trx('tracking_events')
    .where('intake_id', intakeId)
    .select<Pick<TrackingEventRow, (typeof KEY_COLUMNS)[number]>[]>(...KEY_COLUMNS);
  return rows.map((row) => ({
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    eventId: row.event_id,
    orderId: row.order_id,
  }));
}

/**
 * Which of these event ids (or order ids) the campaign holds, as the insert that ignored their
 * rows saw them: on MySQL a locking read (LOCK IN SHARE MODE), which reads the latest committed
 * rows rather than the transaction's snapshot, waits for a writer still deciding, and keeps
 * what it found until the commit. SQLite has one writer: a plain read sees the same.
 */
export async function heldDedupeKeys(
  trx: Trx,
  campaignId: number,
  key: 'event_id' | 'order_id',
  ids: readonly string[],
): Promise<Set<string>> {
  const column = key === 'event_id' ? 'event_key' : 'order_key';
  const rows = await inChunks(ids, (part) =>
    trx('tracking_events')
      .where('campaign_id', campaignId)
      .whereIn(
        column,
        part.map((id) => dedupeKey(id)),
      )
      .forShare()
      .select<Record<typeof key, string>[]>(key),
  );
  return new Set(rows.map((row) => row[key]));
}

export async function insertConversions(trx: Trx, conversions: readonly NewConversion[]): Promise<void> {
  await insertRows(trx, 'conversions', CONVERSION_COLUMNS, conversions.map(conversionRow));
}

/** Tracking events this intake stored and then dropped (a payment past its customer's recurring limit). */
export async function deleteTrackingEvents(trx: Trx, ids: readonly number[]): Promise<void> {
  for (const part of chunks(ids)) await trx('tracking_events').whereIn('id', part).delete();
}

/** The ids of the campaign's sales of these orders (to link their second-tier conversions). */
export async function saleIdsByOrder(
  trx: Trx,
  campaignId: number,
  orderIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await inChunks(orderIds, (part) =>
    trx('conversions')
      .where({ campaign_id: campaignId, source_key: 0 })
      .whereIn('order_id', part)
      .select<{ id: number; order_id: string }[]>('id', 'order_id'),
  );
  return new Map(rows.map((row) => [row.order_id, Number(row.id)]));
}

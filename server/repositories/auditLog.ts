import { fromCents } from '../../shared/money.js';
import type { AuditEntry, ListAuditLogQuery } from '../../shared/schemas/audit.js';
import type { Db, Trx } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import type { AuditLogRow } from '../db/auditRows.js';
import { toIso } from '../db/rows.js';

/** One change as a service records it; `money` holds amounts in hundredths, exact. */
export interface AuditRecord {
  campaignId: number | null;
  actor: { type: string; id: string | null; label: string | null };
  action: string;
  targetType: string;
  targetId: string | null;
  fields: readonly string[];
  figures: Readonly<Record<string, number>>;
  money: Readonly<Record<string, number>>;
  address: string | null;
  at: Date;
}

interface StoredDetails {
  fields?: string[];
  figures?: Record<string, number>;
  money?: Record<string, number>;
}

export async function insertAuditRecords(trx: Db | Trx, records: readonly AuditRecord[]): Promise<void> {
  if (records.length === 0) return;
  await trx('audit_log').insert(
    records.map((record) => ({
      campaign_id: record.campaignId,
      actor_type: record.actor.type,
      actor_id: record.actor.id,
      actor_label: record.actor.label,
      action: record.action,
      target_type: record.targetType,
      target_id: record.targetId,
      details: JSON.stringify({ fields: record.fields, figures: record.figures, money: record.money }),
      address: record.address,
      created_at: record.at,
    })),
  );
}

function toEntry(row: AuditLogRow): AuditEntry {
  const details = JSON.parse(row.details ?? '{}') as StoredDetails;
  const money = Object.fromEntries(
    Object.entries(details.money ?? {}).map(([name, cents]) => [name, fromCents(cents)]),
  );
  return {
    id: Number(row.id),
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label } as AuditEntry['actor'],
    action: row.action as AuditEntry['action'],
    target: { type: row.target_type as AuditEntry['target']['type'], id: row.target_id },
    details: { fields: details.fields ?? [], figures: { ...details.figures, ...money } },
    address: row.address,
    createdAt: toIso(row.created_at),
  };
}

export interface AuditFilter extends Omit<ListAuditLogQuery, 'from' | 'to'> {
  /** First instant included, first instant past the range. */
  start?: Date;
  end?: Date;
}

/** One campaign's changes, newest first, with the filtered total (the campaign-and-time index). */
export async function listAuditLog(
  db: Db,
  campaignId: number,
  filter: AuditFilter,
): Promise<{ changes: AuditEntry[]; total: number }> {
  const base = db('audit_log').where('campaign_id', campaignId);
  if (filter.action) base.andWhere('action', filter.action);
  if (filter.actorType) base.andWhere('actor_type', filter.actorType);
  if (filter.targetType) base.andWhere('target_type', filter.targetType);
  if (filter.targetId !== undefined) base.andWhere('target_id', filter.targetId);
  if (filter.start) base.andWhere('created_at', '>=', filter.start);
  if (filter.end) base.andWhere('created_at', '<', filter.end);
  const [total, rows] = await Promise.all([
    countRows(base.clone()),
    newestFirstPage(base.clone(), '', filter).select<AuditLogRow[]>('*'),
  ]);
  return { changes: rows.map(toEntry), total };
}

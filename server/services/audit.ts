import { AsyncLocalStorage } from 'node:async_hooks';
import { isReversed, rangeBounds } from '../../shared/dateRange.js';
import { MESSAGES } from '../../shared/errors.js';
import type { AuditAction, AuditActorType, AuditLog, ListAuditLogQuery } from '../../shared/schemas/audit.js';
import type { Trx } from '../db/knex.js';
import { ValidationError } from '../errors.js';
import { insertAuditRecords, listAuditLog } from '../repositories/auditLog.js';
import type { ServiceDeps } from './deps.js';
import { pageOf } from './pages.js';

/**
 * Who is making the changes of the work in hand (docs/architecture.md, "The audit log"): never a
 * key, a password or an e-mail; a key by its id and public prefix, a dashboard user by id.
 */
export interface Actor {
  type: AuditActorType;
  id: string | null;
  label: string | null;
  /** The client's IP address; null for the operator CLI. */
  address: string | null;
}

/** Set around a request or a command by whoever knows the actor; read where a change is recorded. */
const acting = new AsyncLocalStorage<Actor>();

/** Scheduled work (the hold period's approvals), and anything run outside `actingAs`. */
const SYSTEM: Actor = { type: 'system', id: null, label: null, address: null };

/** Runs `work` as `actor`: every change it records names that actor. */
export function actingAs<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
  return acting.run(actor, work);
}

/** Who is acting now: the actor `actingAs` set, or scheduled work. */
export function currentActor(): Actor {
  return acting.getStore() ?? SYSTEM;
}

/** An IPv4 client as IPv4, even when the daemon listens on IPv6 (`::ffff:203.0.113.5`). */
const plainAddress = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

export const keyActor = (key: { keyId: number; keyPrefix: string }, address: string): Actor => ({
  type: 'key',
  id: String(key.keyId),
  label: key.keyPrefix,
  address: plainAddress(address),
});

/** The operator CLI: its system user's name, the only "who" a shell gives. */
export const operatorActor = (name: string | undefined): Actor => ({
  type: 'operator',
  id: name || null,
  label: null,
  address: null,
});

export const userActor = (userId: number, address: string): Actor => ({
  type: 'user',
  id: String(userId),
  label: null,
  address: plainAddress(address),
});

/**
 * One change as a service records it. `fields` are names only (never values: a value may be an
 * e-mail or a password); `figures` are counts, `money` amounts in hundredths of the campaign's
 * currency: nothing that names a person.
 */
export interface AuditChange {
  campaignId: number | null;
  action: AuditAction;
  targetId: string | number | null;
  fields?: readonly string[];
  figures?: Readonly<Record<string, number>>;
  money?: Readonly<Record<string, number>>;
}

/**
 * Records changes in the transaction that makes them, so they commit or roll back together:
 * a 200 means the change and its row are on disk. Called by every service that changes
 * something an actor may change (docs/architecture.md, "The audit log").
 */
export async function recordAudit(trx: Trx, at: Date, changes: readonly AuditChange[]): Promise<void> {
  const { address, ...actor } = acting.getStore() ?? SYSTEM;
  await insertAuditRecords(
    trx,
    changes.map((change) => ({
      campaignId: change.campaignId,
      actor,
      action: change.action,
      targetType: change.action.slice(0, change.action.indexOf('.')),
      targetId: change.targetId === null ? null : String(change.targetId),
      fields: [...(change.fields ?? [])].sort(),
      figures: change.figures ?? {},
      money: change.money ?? {},
      address,
      at,
    })),
  );
}

/** The names of the fields a body sets (those present, `null` included). */
export function fieldsOf(input: object): string[] {
  return Object.entries(input)
    .filter(([, value]) => value !== undefined)
    .map(([name]) => name);
}

export interface AuditService {
  /** spec-style list of a campaign's changes, newest first. */
  list(campaignId: number, query: ListAuditLogQuery): Promise<AuditLog>;
  /** Runs `work` as `actor` (the dashboard passes `userActor(...)`): every change it records names it. */
  actingAs<T>(actor: Actor, work: () => Promise<T>): Promise<T>;
}

export function auditService({ db }: ServiceDeps): AuditService {
  return {
    async list(campaignId, query) {
      const { from, to, ...filters } = query;
      if (isReversed(from, to)) throw new ValidationError([MESSAGES.rangeReversed(from ?? '', to ?? '')]);
      const { start, end } = rangeBounds(from, to);
      const { changes, total } = await listAuditLog(db, campaignId, { ...filters, start, end });
      return { changes, ...pageOf(query, total) };
    },
    actingAs,
  };
}

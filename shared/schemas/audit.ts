import { z } from 'zod';
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES } from '../vocabulary.js';
import { isoDate, paginationFields, paginationQuery } from './common.js';
import { instant } from './conversion.js';

export const auditActorType = z.enum(AUDIT_ACTOR_TYPES);
export type AuditActorType = z.infer<typeof auditActorType>;
export const auditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof auditAction>;
export const auditTargetType = z.enum(AUDIT_TARGET_TYPES);
export type AuditTargetType = z.infer<typeof auditTargetType>;

/** Who made a change: never a key, a password or an e-mail, only ids and a key's public prefix. */
export const auditActorSchema = z.object({
  type: auditActorType,
  /** The key's id, the dashboard user's id, the operator's system user name; null for scheduled work. */
  id: z.string().nullable(),
  /** The key's prefix (as `keys list` shows it); null otherwise. */
  label: z.string().nullable(),
});
export type AuditActor = z.infer<typeof auditActorSchema>;

/** What changed: the names of the fields set, and figures that are not personal (counts, amounts). */
export const auditDetailsSchema = z.object({
  fields: z.array(z.string()),
  figures: z.record(z.string(), z.number()),
});
export type AuditDetails = z.infer<typeof auditDetailsSchema>;

/** One change of the audit log (docs/audit.md). */
export const auditEntrySchema = z.object({
  id: z.number().int(),
  actor: auditActorSchema,
  action: auditAction,
  target: z.object({ type: auditTargetType, id: z.string().nullable() }),
  details: auditDetailsSchema,
  /** The client's IP address; null for the operator CLI and scheduled work. */
  address: z.string().nullable(),
  createdAt: isoDate,
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const listAuditLogQuerySchema = z.strictObject({
  action: auditAction.optional(),
  actorType: auditActorType.optional(),
  targetType: auditTargetType.optional(),
  targetId: z.string().min(1).max(100).optional(),
  /** createdAt from, and up to, both included; a date is its whole UTC day (shared/dateRange.ts). */
  from: instant.optional(),
  to: instant.optional(),
  ...paginationQuery,
});
export type ListAuditLogQuery = z.infer<typeof listAuditLogQuerySchema>;

export const auditLogSchema = z.object({ changes: z.array(auditEntrySchema), ...paginationFields });
export type AuditLog = z.infer<typeof auditLogSchema>;

import type { Engine } from './knex.js';

/**
 * The backup file (docs/operations.md, "Backup and restore"): gzip'd lines of JSON. The first is
 * the header; then, per table, a line naming its columns, one line per row (an array of values
 * in that order), and a line closing the table with its row count; the last line closes the
 * file, so a file cut short is told from a complete one.
 */
export const BACKUP_FORMAT = 'affiliated-backup' as const;
export const BACKUP_VERSION = 1 as const;

/**
 * What a restore needs to open the secrets stored sealed: the generated key itself (the key
 * file beside a SQLite database; on MySQL it is a row of webhook_settings, so in the data), or,
 * with WEBHOOK_SECRET_KEY, only its fingerprint, checked against the restoring environment's.
 */
export type BackupKey =
  | { source: 'file'; key: string }
  | { source: 'variable'; fingerprint: string }
  | { source: 'database' }
  | { source: 'none' };

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  engine: Engine;
  /** The last migration applied: the schema version. */
  schema: string;
  migrations: string[];
  createdAt: string;
  key: BackupKey;
  tables: Array<{ name: string; rows: number }>;
}

export type BackupLine =
  | BackupHeader
  | { table: string; columns: string[] }
  | { end: string; rows: number }
  | { end: true; tables: number; rows: number }
  | unknown[];

/** Dates and bytes survive JSON tagged; every other value the drivers give is JSON as it is. */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Date) return { $d: value.toISOString() };
  if (Buffer.isBuffer(value)) return { $b: value.toString('base64') };
  return value;
}

export function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const tagged = value as { $d?: unknown; $b?: unknown };
  if (typeof tagged.$d === 'string') return new Date(tagged.$d);
  if (typeof tagged.$b === 'string') return Buffer.from(tagged.$b, 'base64');
  return value;
}

/** Knex's own tables: the restore's migrations write them. */
export const SKIPPED_TABLES = new Set(['knex_migrations', 'knex_migrations_lock']);

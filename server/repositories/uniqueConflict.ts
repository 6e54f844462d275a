import { isUniqueViolation, violatedIndex } from '../db/knex.js';

/** What a unique index keeps unique, in the words of the records (never the index's name). */
export type UniqueField =
  | 'email'
  | 'referralId'
  | 'publicId'
  | 'planName'
  | 'groupName'
  | 'refundId'
  | 'webhookSlot'
  | 'couponCode'
  | 'providerEventId'
  | 'credential';

/**
 * A write a unique index refused. Repositories throw it, named by the field, so a service picks
 * its answer (a 409, another generated code) without knowing how the schema enforces it.
 */
export class UniqueConflict extends Error {
  override name = 'UniqueConflict';

  constructor(readonly field: UniqueField) {
    super(`another record already has this ${field}`);
  }
}

/**
 * Runs a write; a unique violation of an index over one of `columns` becomes a UniqueConflict for
 * its field. Any other failure, or a violation of an index not listed, passes through unchanged.
 */
export async function conflictsAs<T>(
  columns: Readonly<Record<string, UniqueField>>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // The engine's own words name the index (MySQL) or its columns (SQLite); both hold the column.
    const index = violatedIndex(err);
    const hit = Object.entries(columns).find(([column]) => index.includes(column));
    throw hit ? new UniqueConflict(hit[1]) : err;
  }
}

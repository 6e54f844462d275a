import { isForeignKeyViolation } from '../db/knex.js';

/** What a row may name that must exist: an affiliate's group or parent. */
export type ReferenceField = 'groupId' | 'parentAffiliateId';

/**
 * A write that names a row which is gone (deleted by another request after the service checked
 * it): the foreign key refused it. Repositories throw it, named by the field.
 */
export class MissingReference extends Error {
  override name = 'MissingReference';

  constructor(readonly field: ReferenceField) {
    super(`the ${field} names a row that does not exist`);
  }
}

/**
 * Runs a write; a foreign-key violation on one of `columns` becomes a MissingReference. MySQL
 * names the constraint (its column is in the name); SQLite names none, so its violation is
 * given to the first column listed (SQLite runs one writer at a time, so a check made in the
 * same transaction cannot be overtaken there).
 */
export async function referencesAs<T>(
  columns: Readonly<Record<string, ReferenceField>>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isForeignKeyViolation(err)) throw err;
    const text = (err as { sqlMessage?: string }).sqlMessage ?? '';
    const entries = Object.entries(columns);
    const hit = entries.find(([column]) => text.includes(column)) ?? entries[0];
    throw hit ? new MissingReference(hit[1]) : err;
  }
}

/**
 * What command declarations need at start-up: the API's fixed words (no zod, no daemon), so
 * `affiliated --help` loads nothing heavy. Checks that need the schemas run in the actions.
 */
export * from '../shared/vocabulary.js';

/** `2026-11-01` or an ISO 8601 date-time with an offset, as the API's `instant` takes it. */
export const ISO_INSTANT =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d))?$/;

/**
 * One rule for every date range, in the API (`from` and `to` of `GET /v1/conversions` and of
 * `GET /v1/reports/affiliates`) and in the CLI (`--from` and `--to` of `conversions list` and
 * `report`): both ends are included. A date (`2026-11-30`) is its whole UTC day; a date-time
 * (`2026-11-30T12:00:00Z`) is that instant. So `--from 2026-11-01 --to 2026-11-30` is November.
 * A range whose start comes after its end is refused, never silently empty. Values are checked
 * for their form before they get here (ISO 8601, as the schemas take them).
 */
const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface Bounds {
  /** The first instant included. */
  start?: Date;
  /** The first instant past the range (exclusive): the next UTC midnight after a date. */
  end?: Date;
}

export function rangeBounds(from?: string, to?: string): Bounds {
  const end = to === undefined ? undefined : Date.parse(to) + (DATE_ONLY.test(to) ? DAY_MS : 1);
  return {
    ...(from !== undefined && { start: new Date(Date.parse(from)) }),
    ...(end !== undefined && { end: new Date(end) }),
  };
}

/** `from` comes after `to` (with the rule above: `2026-11-30` to `2026-11-30` is one whole day, not reversed). */
export function isReversed(from?: string, to?: string): boolean {
  const { start, end } = rangeBounds(from, to);
  return start !== undefined && end !== undefined && start.getTime() >= end.getTime();
}

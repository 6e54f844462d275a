import { ValidationError } from '../../errors.js';
import {
  addDays,
  type CalendarDate,
  dateAt,
  dateText,
  isTimeZone,
  offsetMinutes,
  parseDate,
  startOfDay,
} from './zone.js';

const HOUR_MS = 3_600_000;
/** Points one answer may hold, per interval: a month of hours, a year of days, ten years of months. */
const MAX_POINTS = { hour: 744, day: 366, month: 120 } as const;
const DEFAULT_DAYS = 30;

export type Interval = keyof typeof MAX_POINTS;

/** A range cut into points: the first UTC hour of each, and the hour after the last. */
export interface Buckets {
  from: string;
  to: string;
  timezone: string;
  /** UTC hours since 1970 where each point begins. */
  starts: number[];
  endHour: number;
}

/** The range as asked, checked: a known zone, from ≤ to, defaults from today in that zone. */
function rangeOf(query: { from?: string; to?: string; timezone?: string }, now: Date) {
  const timezone = query.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) {
    throw new ValidationError(
      `timezone must be an IANA time zone name such as America/Sao_Paulo or UTC (got "${timezone}")`,
    );
  }
  const to = query.to === undefined ? dateAt(timezone, now.getTime()) : parseDate(query.to);
  const from = query.from === undefined ? addDays(to, 1 - DEFAULT_DAYS) : parseDate(query.from);
  if (dateText(from) > dateText(to)) throw new ValidationError('from must not be after to');
  return { timezone, from, to };
}

function wholeHour(timezone: string, at: number): number {
  if (offsetMinutes(timezone, at) % 60 !== 0) {
    throw new ValidationError(
      `timezone ${timezone} is not a whole number of hours from UTC in this range: analytics count by UTC hour, so ask in a zone with whole-hour offsets (or UTC)`,
    );
  }
  return at / HOUR_MS;
}

/**
 * docs/analytics.md: hours, days and months as the zone's clock cuts them. A day is from one
 * local midnight to the next (23 or 25 hours across a DST change); an hour is a UTC hour (a
 * repeated local hour is two points); a month's first point begins at `from`.
 */
export function bucketsOf(
  query: { from?: string; to?: string; timezone?: string },
  interval: Interval,
  now: Date,
): Buckets {
  const { timezone, from, to } = rangeOf(query, now);
  const begin = startOfDay(timezone, from);
  const end = startOfDay(timezone, addDays(to, 1));
  const starts: number[] = [];
  const tooMany = () =>
    new ValidationError(
      `the range holds more than ${MAX_POINTS[interval]} ${interval}s: ask for a shorter range or a longer interval`,
    );
  if (interval === 'hour') {
    if ((end - begin) / HOUR_MS > MAX_POINTS.hour) throw tooMany();
    for (let at = begin; at < end; at += HOUR_MS) starts.push(wholeHour(timezone, at));
  } else {
    let day: CalendarDate = from;
    while (dateText(day) <= dateText(to)) {
      if (interval === 'day' || day.day === 1 || starts.length === 0) {
        starts.push(wholeHour(timezone, startOfDay(timezone, day)));
        if (starts.length > MAX_POINTS[interval]) throw tooMany();
      }
      day = addDays(day, 1);
    }
  }
  return { from: dateText(from), to: dateText(to), timezone, starts, endHour: wholeHour(timezone, end) };
}

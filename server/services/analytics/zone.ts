/**
 * Calendar arithmetic in an IANA time zone with Intl only (docs/analytics.md): where a local day,
 * month or hour begins as an instant, and how an instant reads on the zone's clock.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, format);
  }
  return format;
}

/** Whether Intl knows the zone by this name. */
export function isTimeZone(zone: string): boolean {
  try {
    formatOf(zone);
    return true;
  } catch {
    return false;
  }
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallOf(zone: string, at: number): Wall {
  const parts: Record<string, number> = {};
  for (const part of formatOf(zone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** The zone's offset from UTC at an instant, in minutes (-180 in São Paulo). */
export function offsetMinutes(zone: string, at: number): number {
  const wall = wallOf(zone, at);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return Math.round((asUtc - Math.floor(at / 1000) * 1000) / 60_000);
}

/** A calendar date, `YYYY-MM-DD`. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

export const dateText = (date: CalendarDate) =>
  `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;

export function parseDate(text: string): CalendarDate {
  const [year = 1970, month = 1, day = 1] = text.split('-').map(Number);
  return { year, month, day };
}

/** The next calendar day (or `days` later), whatever the zone. */
export function addDays(date: CalendarDate, days: number): CalendarDate {
  const at = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() };
}

/** The local date of an instant. */
export function dateAt(zone: string, at: number): CalendarDate {
  const wall = wallOf(zone, at);
  return { year: wall.year, month: wall.month, day: wall.day };
}

/**
 * The first instant of a local day. Where midnight does not exist (a clock moved forward at
 * 00:00, as São Paulo's did until 2019) the day begins at the first instant that has its date.
 */
export function startOfDay(zone: string, date: CalendarDate): number {
  const guess = Date.UTC(date.year, date.month - 1, date.day);
  const first = guess - offsetMinutes(zone, guess) * 60_000;
  const second = guess - offsetMinutes(zone, first) * 60_000;
  const same = (at: number) => dateText(dateAt(zone, at)) === dateText(date);
  const found = [first, second].filter(same);
  return found.length > 0 ? Math.min(...found) : Math.max(first, second);
}

/** An instant as the zone's clock reads it, with its offset: `2026-11-01T00:00:00-03:00`. */
export function localIso(zone: string, at: number): string {
  const wall = wallOf(zone, at);
  const offset = offsetMinutes(zone, at);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${dateText(wall)}T${two(wall.hour)}:${two(wall.minute)}:${two(wall.second)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

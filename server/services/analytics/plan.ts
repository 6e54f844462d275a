import type { RollupGrain } from '../../repositories/analytics.js';

const HOURS_A_DAY = 24;

/** Where a run of rows read goes: added to one point, taken from another (either may be none). */
export interface Move {
  to: number | undefined;
  from: number | undefined;
}

/** One read of a rollup: its units cut into runs, and where each run's sums go. */
export interface ReadPart {
  grain: RollupGrain;
  runStarts: number[];
  end: number;
  only?: number[];
  moves: Move[];
}

/** Consecutive units with the same move make one run. */
function partOf(grain: RollupGrain, units: readonly { unit: number; move: Move }[], contiguous: boolean): ReadPart {
  const part: ReadPart = { grain, runStarts: [], end: 0, moves: [] };
  let last: Move | undefined;
  for (const { unit, move } of units) {
    if (!last || last.to !== move.to || last.from !== move.from) {
      part.runStarts.push(unit);
      part.moves.push(move);
      last = move;
    }
    part.end = unit + 1;
  }
  if (!contiguous) part.only = units.map(({ unit }) => unit);
  return part;
}

/** The point an hour falls in (the last whose start is not after it), or none outside the range. */
function pointOf(starts: readonly number[], endHour: number, hour: number, from: number): number | undefined {
  if (hour < (starts[0] ?? endHour) || hour >= endHour) return undefined;
  let i = from;
  while (i + 1 < starts.length && (starts[i + 1] ?? endHour) <= hour) i++;
  return i;
}

/**
 * How to read points beginning at these UTC hours (docs/analytics.md, "How a series is read").
 * Hours: the hour rows, one run a point. Days and months: each UTC day the range touches is
 * read from its day row into the point holding most of its hours, and the day's other hours
 * are read from their hour rows and moved (taken from that point, added to their own). In UTC
 * no hour moves; a zone n hours off UTC moves min(n, 24 - n) hours a day.
 */
export function readPlan(starts: readonly number[], endHour: number, byHour: boolean): ReadPart[] {
  if (byHour) {
    return [
      {
        grain: 'hour',
        runStarts: [...starts],
        end: endHour,
        moves: starts.map((_, i) => ({ to: i, from: undefined })),
      },
    ];
  }
  const days: { unit: number; move: Move }[] = [];
  const hours: { unit: number; move: Move }[] = [];
  const first = starts[0];
  if (first === undefined) return [];
  let cursor = 0;
  for (let day = Math.floor(first / HOURS_A_DAY); day * HOURS_A_DAY < endHour; day++) {
    const points: (number | undefined)[] = [];
    for (let h = 0; h < HOURS_A_DAY; h++) {
      const point = pointOf(starts, endHour, day * HOURS_A_DAY + h, cursor);
      if (point !== undefined) cursor = point;
      points.push(point);
    }
    const most = majority(points);
    if (most !== undefined) days.push({ unit: day, move: { to: most, from: undefined } });
    points.forEach((point, h) => {
      if (point !== most) hours.push({ unit: day * HOURS_A_DAY + h, move: { to: point, from: most } });
    });
  }
  const parts = [partOf('day', days, true)];
  if (hours.length > 0) parts.push(partOf('hour', hours, false));
  return parts.filter((part) => part.runStarts.length > 0);
}

/** The value most of the day's hours share (none, outside the range, counts as a value too). */
function majority(points: readonly (number | undefined)[]): number | undefined {
  const counts = new Map<number | undefined, number>();
  for (const point of points) counts.set(point, (counts.get(point) ?? 0) + 1);
  let best: number | undefined;
  let bestCount = -1;
  for (const [point, count] of counts) {
    if (count > bestCount) {
      best = point;
      bestCount = count;
    }
  }
  return best;
}

import { expect } from 'chai';
import { bucketsOf } from '../../server/services/analytics/buckets.js';
import { readPlan } from '../../server/services/analytics/plan.js';

const HOURS_A_DAY = 24;

/** Points summed as the plan reads them from day and hour rows of these counts by hour. */
function planned(starts: readonly number[], endHour: number, byHour: boolean, counts: ReadonlyMap<number, number>) {
  const points = starts.map(() => 0);
  const inUnit = (grain: 'hour' | 'day', unit: number) =>
    grain === 'hour'
      ? (counts.get(unit) ?? 0)
      : Array.from({ length: HOURS_A_DAY }, (_, h) => counts.get(unit * HOURS_A_DAY + h) ?? 0).reduce((a, b) => a + b);
  let reads = 0;
  for (const part of readPlan(starts, endHour, byHour)) {
    const units =
      part.only ?? Array.from({ length: part.end - (part.runStarts[0] ?? 0) }, (_, i) => (part.runStarts[0] ?? 0) + i);
    for (const unit of units) {
      reads++;
      let run = 0;
      while (run + 1 < part.runStarts.length && (part.runStarts[run + 1] ?? Infinity) <= unit) run++;
      const move = part.moves[run];
      const value = inUnit(part.grain, unit);
      if (move?.to !== undefined) points[move.to] = (points[move.to] ?? 0) + value;
      if (move?.from !== undefined) points[move.from] = (points[move.from] ?? 0) - value;
    }
  }
  return { points, reads };
}

/** The same points counted hour by hour: what the plan must equal. */
function direct(starts: readonly number[], endHour: number, counts: ReadonlyMap<number, number>) {
  return starts.map((start, i) => {
    let sum = 0;
    for (let h = start; h < (starts[i + 1] ?? endHour); h++) sum += counts.get(h) ?? 0;
    return sum;
  });
}

describe('readPlan: how a series reads the rollup’s day and hour rows', () => {
  // Every hour of a wide range counts a different amount, so any misplaced hour shows.
  const counts = new Map<number, number>();
  const base = Date.UTC(2026, 8, 1) / 3_600_000;
  for (let h = 0; h < 200 * HOURS_A_DAY; h++) counts.set(base + h, (h * 7919) % 101);
  const now = new Date('2026-12-31T00:00:00Z');

  for (const timezone of ['UTC', 'America/Sao_Paulo', 'America/New_York', 'Asia/Tokyo', 'Pacific/Kiritimati']) {
    for (const interval of ['day', 'month', 'hour'] as const) {
      it(`sums exactly what the hours hold: ${interval}s in ${timezone}`, () => {
        const to = interval === 'hour' ? '2026-11-02' : '2026-12-15';
        const buckets = bucketsOf({ from: '2026-10-29', to, timezone }, interval, now);
        const { points } = planned(buckets.starts, buckets.endHour, interval === 'hour', counts);
        expect(points).to.deep.equal(direct(buckets.starts, buckets.endHour, counts));
      });
    }
  }

  it('reads a UTC month by day as 31 day rows and no hour', () => {
    const buckets = bucketsOf({ from: '2026-10-01', to: '2026-10-31' }, 'day', now);
    const parts = readPlan(buckets.starts, buckets.endHour, false);
    expect(parts.map((part) => part.grain)).to.deep.equal(['day']);
    expect(planned(buckets.starts, buckets.endHour, false, counts).reads).to.equal(31);
  });
});

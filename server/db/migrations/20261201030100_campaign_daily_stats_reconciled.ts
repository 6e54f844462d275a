import type { Knex } from 'knex';

/**
 * The contract step of 20261201030000 (docs/operations.md, "Upgrades"). Between that expand step
 * and the last daemon of the previous release stopping, those daemons stored events into the
 * affiliates' daily counters only, and deleted affiliates without taking their days out of the
 * campaign's: the overview would miss or keep them for good. Once no such daemon runs
 * (`affiliated db migrate --contract`), this adds each campaign day's difference.
 *
 * Every daemon of this release writes both tables in one transaction, so the difference between
 * them, read in one snapshot, is exactly what the previous release left out, and stays so while
 * daemons keep writing. It is added (never set) to shard 0, which daemons never write (theirs are
 * 1 to 1023; 0 holds what migrations folded): an addition commutes with the daemons' own, so
 * nothing is locked but that row, and a day is the sum of its shards. Days that agree are left
 * alone.
 */
export const contract = true;

const COUNTERS = ['page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents'] as const;
type Sums = { campaign_id: number; day: string } & Record<(typeof COUNTERS)[number], number | string>;

const sums = (table: string) =>
  `SELECT campaign_id, day, ${COUNTERS.map((c) => `SUM(${c}) AS ${c}`).join(', ')} FROM ${table} GROUP BY campaign_id, day`;

function rowsOf(result: unknown): Sums[] {
  // mysql2 answers [rows, fields]; better-sqlite3 the rows.
  const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
  return rows as Sums[];
}

export async function up(knex: Knex): Promise<void> {
  const [affiliates, campaign] = await knex.transaction(
    async (trx) => [
      rowsOf(await trx.raw(sums('affiliate_daily_stats'))),
      rowsOf(await trx.raw(sums('campaign_daily_stats'))),
    ],
    // One snapshot for both reads: InnoDB's consistent read (the daemons' own transactions may
    // run read committed); a SQLite transaction reads one snapshot as it is.
    knex.client.config.client === 'mysql2' ? { isolationLevel: 'repeatable read' } : {},
  );
  const key = (row: Sums) => `${row.campaign_id}\n${row.day}`;
  const held = new Map(campaign.map((row) => [key(row), row]));
  const seen = new Set<string>();
  const deltas: Array<{ campaign_id: number; day: string; counts: number[] }> = [];
  const add = (row: Sums, sign: 1 | -1, other: Sums | undefined) => {
    const counts = COUNTERS.map((c) => sign * (Number(row[c]) - Number(other?.[c] ?? 0)));
    if (counts.some((n) => n !== 0)) deltas.push({ campaign_id: Number(row.campaign_id), day: row.day, counts });
  };
  for (const row of affiliates) {
    seen.add(key(row));
    add(row, 1, held.get(key(row)));
  }
  // Days the campaign still counts whose affiliates are all gone.
  for (const row of campaign) if (!seen.has(key(row))) add(row, -1, undefined);
  for (const { campaign_id, day, counts } of deltas) {
    const values = { campaign_id, day, shard: 0, ...Object.fromEntries(COUNTERS.map((c, i) => [c, counts[i] ?? 0])) };
    const increments = Object.fromEntries(COUNTERS.map((c, i) => [c, knex.raw('?? + ?', [c, counts[i] ?? 0])]));
    await knex('campaign_daily_stats').insert(values).onConflict(['campaign_id', 'day', 'shard']).merge(increments);
  }
}

export async function down(): Promise<void> {
  // The differences added are the previous release's events: they stay counted.
}

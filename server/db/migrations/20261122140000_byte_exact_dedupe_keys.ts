import type { Knex } from 'knex';

/**
 * Dedupe keys (`event_id`, `order_id`) must compare byte for byte (spec §10.7). The initial
 * schema gave them `utf8mb4_bin`, which is a PAD SPACE collation on MariaDB and MySQL 8: its
 * unique indexes hold `e1` and `e1 ` for equal, so a different event was dropped as a duplicate.
 * A NO PAD binary collation compares every byte: `utf8mb4_nopad_bin` on MariaDB,
 * `utf8mb4_0900_bin` on MySQL 8. SQLite's default BINARY collation already does.
 */
const COLUMNS = [
  { table: 'tracking_events', column: 'event_id', length: 128, nullable: true },
  { table: 'tracking_events', column: 'order_id', length: 255, nullable: true },
  { table: 'conversions', column: 'order_id', length: 255, nullable: false },
] as const;

export async function noPadBinaryCollation(knex: Knex): Promise<string> {
  const [rows] = (await knex.raw(
    `SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS
      WHERE COLLATION_NAME IN ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')`,
  )) as [{ name: string }[]];
  const names = rows.map((row) => row.name);
  const found = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'].find((name) => names.includes(name));
  if (!found) throw new Error('this server has no NO PAD binary utf8mb4 collation (MariaDB 10.2+ or MySQL 8 needed)');
  return found;
}

async function collate(knex: Knex, collation: string): Promise<void> {
  for (const table of new Set(COLUMNS.map((c) => c.table))) {
    const changes = COLUMNS.filter((c) => c.table === table).map(
      (c) =>
        `MODIFY \`${c.column}\` VARCHAR(${c.length}) CHARACTER SET utf8mb4 COLLATE ${collation} ${c.nullable ? 'NULL' : 'NOT NULL'}`,
    );
    await knex.raw(`ALTER TABLE \`${table}\` ${changes.join(', ')}`);
  }
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  await collate(knex, await noPadBinaryCollation(knex));
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  // Rows that differ only by trailing spaces would collide again: refuse rather than lose one.
  await collate(knex, 'utf8mb4_bin');
}

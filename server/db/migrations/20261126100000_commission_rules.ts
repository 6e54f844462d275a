import type { Knex } from 'knex';

/**
 * Commission rules (docs/commissions.md): groups, affiliate overrides, product rules, recurring
 * limits, two tiers, fraud flags, the explanation kept on each conversion, and partial refunds.
 *
 * - affiliate_groups: a campaign's groups, each with its rule; the name is unique per campaign,
 *   trimmed and ignoring case (`name_key`). `recurring` and `second_tier_percent` are null when
 *   the group takes the campaign's. `products` is the group's product rules as JSON.
 * - campaigns: `recurring` (`lifetime`, `first`, `months` with `recurring_months`),
 *   `second_tier_percent` and `products`, the campaign-level parts of the rule.
 * - affiliates: `group_id` (deleting a group sets it to null: the campaign rule again), an
 *   override (`commission_override_type`, `commission_override_value`), `parent_affiliate_id`
 *   (deleting the parent clears it), and `lineage_version`, which a parent change increments on
 *   every ancestor it checked, so two changes that would close a cycle write one common row and
 *   cannot both commit, on one server or on a Galera cluster.
 * - conversions: `source_conversion_id` (a second-tier conversion's sale; cleared if the sale
 *   goes with its affiliate) and `source_key` (0 for a sale, the sale's id for a second-tier
 *   conversion, never cleared): the unique key becomes (campaign_id, order_id, source_key), so a
 *   second-tier conversion carries its sale's order id without colliding with any sale.
 *   `commission_rule` is the explanation (JSON), `flags` the fraud flags (JSON, null: none),
 *   `intake_commission_cents` the commission as computed at intake (partial refunds keep a
 *   proportion of it), `refunded_value_cents` the part of the order refunded so far.
 * - campaign_customers: a customer's first attributed payment per campaign, decided by the
 *   primary key (the request that inserts the row is the first), and the count of its payments
 *   that stored a conversion. The customer is kept as a SHA-256 of its key, never its e-mail.
 * - refunds: one row per refund (several per conversion), with the caller's optional
 *   `refund_key`, unique per campaign and compared byte for byte, which makes a retry a no-op.
 * - clawbacks: one per refund and conversion (unique), instead of one per conversion.
 *
 * Existing rows: a refunded conversion gets its refund row (the whole order) and its clawback is
 * linked to it; `intake_commission_cents` is the stored commission; `commission_rule` is the
 * campaign's rule as it stands now (until this migration every conversion earned by the
 * campaign's rule; one changed since cannot be recovered).
 */
const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

const datetime = (table: Knex.AlterTableBuilder | Knex.CreateTableBuilder, name: string) =>
  table.datetime(name, { precision: 3, useTz: false });

/** The NO PAD binary collation of this server (as 20261122140000 picks it): byte-for-byte keys. */
async function noPadBinary(knex: Knex): Promise<string> {
  const [rows] = (await knex.raw(
    `SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS
      WHERE COLLATION_NAME IN ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')`,
  )) as [{ name: string }[]];
  const names = rows.map((row) => row.name);
  const found = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'].find((name) => names.includes(name));
  if (!found) throw new Error('this server has no NO PAD binary utf8mb4 collation (MariaDB 10.2+ or MySQL 8 needed)');
  return found;
}

/** Index names within MySQL's 64 characters. */
const GROUP_LIST = 'affiliates_campaign_group_index';
const ORDER_UNIQUE = 'conversions_campaign_order_source_unique';
const TOTALS = 'conversions_affiliate_totals_index';
const CLAWBACK_UNIQUE = 'clawbacks_refund_conversion_unique';

/** Columns with a foreign key, added to an existing table: Knex would rebuild a SQLite table for them. */
interface ForeignColumn {
  table: string;
  column: string;
  references: string;
  onDelete: 'SET NULL' | 'CASCADE';
}

const FOREIGN_COLUMNS: ForeignColumn[] = [
  { table: 'affiliates', column: 'group_id', references: 'affiliate_groups', onDelete: 'SET NULL' },
  { table: 'affiliates', column: 'parent_affiliate_id', references: 'affiliates', onDelete: 'SET NULL' },
  { table: 'conversions', column: 'source_conversion_id', references: 'conversions', onDelete: 'SET NULL' },
  { table: 'clawbacks', column: 'refund_id', references: 'refunds', onDelete: 'CASCADE' },
];

async function addForeignColumn(knex: Knex, c: ForeignColumn): Promise<void> {
  if (isMysql(knex)) {
    await knex.schema.alterTable(c.table, (t) => {
      t.integer(c.column).unsigned().nullable().references('id').inTable(c.references).onDelete(c.onDelete);
    });
    return;
  }
  // SQLite adds a column with a REFERENCES clause in place when its default is NULL.
  await knex.raw(`ALTER TABLE ?? ADD COLUMN ?? INTEGER NULL REFERENCES ?? (id) ON DELETE ${c.onDelete}`, [
    c.table,
    c.column,
    c.references,
  ]);
}

async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('affiliate_groups', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('name_key', 100).notNullable();
    // percent: hundredths of a percent; fixed: centavos (as campaigns).
    t.string('commission_type', 16).notNullable();
    t.integer('commission_value').unsigned().notNullable();
    t.string('recurring', 16).nullable();
    t.integer('recurring_months').unsigned().nullable();
    t.integer('second_tier_percent').unsigned().nullable();
    t.text('products').nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.unique(['campaign_id', 'name_key']);
    t.index(['campaign_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('campaign_customers', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('customer_hash', 64).notNullable();
    datetime(t, 'first_occurred_at').notNullable();
    t.string('first_intake_id', 32).notNullable();
    t.integer('payments').notNullable().defaultTo(0);
    datetime(t, 'created_at').notNullable();
    t.primary(['campaign_id', 'customer_hash']);
  });

  await knex.schema.createTable('refunds', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('conversion_id').unsigned().notNullable().references('id').inTable('conversions').onDelete('CASCADE');
    t.string('refund_key', 128).nullable();
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('commission_removed_cents').notNullable();
    t.string('reason', 500).nullable();
    datetime(t, 'created_at').notNullable();
    t.unique(['campaign_id', 'refund_key']);
    t.index(['conversion_id']);
  });
  if (isMysql(knex)) {
    await knex.raw(
      `ALTER TABLE refunds MODIFY refund_key VARCHAR(128) CHARACTER SET utf8mb4 COLLATE ${await noPadBinary(knex)} NULL`,
    );
  }
}

async function alterTables(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaigns', (t) => {
    t.string('recurring', 16).notNullable().defaultTo('lifetime');
    t.integer('recurring_months').unsigned().nullable();
    t.integer('second_tier_percent').unsigned().notNullable().defaultTo(0);
    t.text('products').nullable();
  });
  await knex.schema.alterTable('affiliates', (t) => {
    t.string('commission_override_type', 16).nullable();
    t.integer('commission_override_value').unsigned().nullable();
    t.integer('lineage_version').unsigned().notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('conversions', (t) => {
    t.integer('source_key').unsigned().notNullable().defaultTo(0);
    t.text('commission_rule').nullable();
    t.string('flags', 255).nullable();
    t.bigInteger('intake_commission_cents').notNullable().defaultTo(0);
    t.bigInteger('refunded_value_cents').notNullable().defaultTo(0);
  });
  for (const column of FOREIGN_COLUMNS) await addForeignColumn(knex, column);

  // MySQL indexes a foreign key's column by itself; SQLite does not, and its cascades need one.
  if (!isMysql(knex)) {
    for (const { table, column } of FOREIGN_COLUMNS) await knex.schema.alterTable(table, (t) => t.index([column]));
  }
  // New indexes before the old ones go: on MySQL a foreign key keeps an index that starts with its column.
  await knex.schema.alterTable('affiliates', (t) =>
    t.index(['campaign_id', 'group_id', 'created_at', 'id'], GROUP_LIST),
  );
  await knex.schema.alterTable('conversions', (t) => {
    t.unique(['campaign_id', 'order_id', 'source_key'], { indexName: ORDER_UNIQUE });
    // The affiliate's totals: its sales counted, approved and paid commissions summed.
    t.index(['affiliate_id', 'status', 'source_key', 'commission_cents'], TOTALS);
  });
  await knex.schema.alterTable('conversions', (t) => {
    t.dropUnique(['campaign_id', 'order_id']);
    t.dropIndex(['affiliate_id', 'status', 'commission_cents']);
  });
  await knex.schema.alterTable('clawbacks', (t) => {
    t.index(['conversion_id']);
    t.unique(['refund_id', 'conversion_id'], { indexName: CLAWBACK_UNIQUE });
  });
  await knex.schema.alterTable('clawbacks', (t) => t.dropUnique(['conversion_id']));
}

/** Existing conversions: their commission at intake, their rule, their refunds. */
async function fillExisting(knex: Knex): Promise<void> {
  await knex('conversions').update({ intake_commission_cents: knex.raw<number>('??', ['commission_cents']) });
  const campaigns = await knex('campaigns').select<{ id: number; commission_type: string; commission_value: number }[]>(
    'id',
    'commission_type',
    'commission_value',
  );
  for (const campaign of campaigns) {
    const rule = {
      source: 'campaign',
      commissionType: campaign.commission_type,
      commissionValue: Number(campaign.commission_value) / 100,
    };
    await knex('conversions')
      .where('campaign_id', campaign.id)
      .update({ commission_rule: JSON.stringify(rule) });
  }
  await knex.raw(
    `INSERT INTO refunds (campaign_id, conversion_id, refund_key, amount_cents, commission_removed_cents, reason, created_at)
     SELECT campaign_id, id, NULL, order_value_cents, commission_cents, refund_reason, refunded_at
       FROM conversions WHERE refunded_at IS NOT NULL`,
  );
  await knex.raw(`UPDATE conversions SET refunded_value_cents = order_value_cents WHERE refunded_at IS NOT NULL`);
  await knex.raw(
    `UPDATE clawbacks SET refund_id = (SELECT r.id FROM refunds r WHERE r.conversion_id = clawbacks.conversion_id)`,
  );
}

export async function up(knex: Knex): Promise<void> {
  await createTables(knex);
  await alterTables(knex);
  await fillExisting(knex);
}

/**
 * Back to one clawback and one order id per conversion: refuses (a unique violation) when a
 * conversion has several clawbacks or a second-tier conversion shares its sale's order id, rather
 * than lose one. Columns are dropped in place (SQLite 3.35+, MySQL), their indexes first.
 */
export async function down(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  if (mysql) {
    for (const { table, column } of FOREIGN_COLUMNS)
      await knex.schema.alterTable(table, (t) => t.dropForeign([column]));
  }
  await knex.schema.alterTable('clawbacks', (t) => t.unique(['conversion_id']));
  await knex.schema.alterTable('clawbacks', (t) => {
    t.dropUnique(['refund_id', 'conversion_id'], CLAWBACK_UNIQUE);
    t.dropIndex(['conversion_id']);
  });
  await knex.schema.alterTable('conversions', (t) => {
    t.unique(['campaign_id', 'order_id']);
    t.index(['affiliate_id', 'status', 'commission_cents']);
  });
  await knex.schema.alterTable('conversions', (t) => {
    t.dropUnique(['campaign_id', 'order_id', 'source_key'], ORDER_UNIQUE);
    t.dropIndex(['affiliate_id', 'status', 'source_key', 'commission_cents'], TOTALS);
  });
  await knex.schema.alterTable('affiliates', (t) =>
    t.dropIndex(['campaign_id', 'group_id', 'created_at', 'id'], GROUP_LIST),
  );
  for (const { table, column } of FOREIGN_COLUMNS) {
    // MySQL drops a column's own index with it; SQLite refuses to drop an indexed column.
    if (!mysql) await knex.schema.alterTable(table, (t) => t.dropIndex([column]));
    await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
  }
  const added: Record<string, string[]> = {
    conversions: ['source_key', 'commission_rule', 'flags', 'intake_commission_cents', 'refunded_value_cents'],
    affiliates: ['commission_override_type', 'commission_override_value', 'lineage_version'],
    campaigns: ['recurring', 'recurring_months', 'second_tier_percent', 'products'],
  };
  for (const [table, columns] of Object.entries(added)) {
    for (const column of columns) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
  }
  await knex.schema.dropTableIfExists('refunds');
  await knex.schema.dropTableIfExists('campaign_customers');
  await knex.schema.dropTableIfExists('affiliate_groups');
}

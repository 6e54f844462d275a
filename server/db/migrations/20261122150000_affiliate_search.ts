import type { Knex } from 'knex';
import { SEARCH_WORDS_CHARS, searchWords } from '../../repositories/affiliateSearch.js';

/**
 * The list's `search` on each engine's text index (server/repositories/affiliateSearch.ts).
 *
 * SQLite: an external-content FTS5 table with the trigram tokenizer over `affiliates.search_key`,
 * kept by triggers (cascaded deletes fire them too), rebuilt from the existing rows.
 *
 * Both engines: `affiliates.search_words`, written by the repository with every row. MySQL /
 * MariaDB: a FULLTEXT index over it, created with stopwords off (InnoDB keeps that setting with
 * the index), so no suffix such as `com` or `the` is left out. Existing rows are filled here,
 * with the words as the repository builds them today.
 */
const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

const TRIGGERS = [
  `CREATE TRIGGER affiliates_fts_insert AFTER INSERT ON affiliates BEGIN
     INSERT INTO affiliates_fts (rowid, search_key) VALUES (new.id, new.search_key);
   END`,
  `CREATE TRIGGER affiliates_fts_delete AFTER DELETE ON affiliates BEGIN
     INSERT INTO affiliates_fts (affiliates_fts, rowid, search_key) VALUES ('delete', old.id, old.search_key);
   END`,
  `CREATE TRIGGER affiliates_fts_update AFTER UPDATE OF search_key ON affiliates BEGIN
     INSERT INTO affiliates_fts (affiliates_fts, rowid, search_key) VALUES ('delete', old.id, old.search_key);
     INSERT INTO affiliates_fts (rowid, search_key) VALUES (new.id, new.search_key);
   END`,
];

async function fillSearchWords(knex: Knex): Promise<void> {
  for (let after = 0; ;) {
    const rows = await knex('affiliates')
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .select<Array<{ id: number; search_key: string }>>('id', 'search_key');
    if (rows.length === 0) return;
    for (const row of rows) {
      await knex('affiliates')
        .where('id', row.id)
        .update({ search_words: searchWords(row.search_key) });
    }
    after = Number(rows[rows.length - 1]?.id);
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('affiliates', (t) => {
    t.string('search_words', SEARCH_WORDS_CHARS).notNullable().defaultTo('');
  });
  await fillSearchWords(knex);
  if (isMysql(knex)) {
    await knex.raw('SET SESSION innodb_ft_enable_stopword = OFF');
    await knex.raw('ALTER TABLE affiliates ADD FULLTEXT INDEX affiliates_search_words_fulltext (search_words)');
    return;
  }
  await knex.raw(
    `CREATE VIRTUAL TABLE affiliates_fts USING fts5(search_key, content='affiliates', content_rowid='id', tokenize='trigram')`,
  );
  for (const trigger of TRIGGERS) await knex.raw(trigger);
  await knex.raw(`INSERT INTO affiliates_fts (affiliates_fts) VALUES ('rebuild')`);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) {
    await knex.raw('ALTER TABLE affiliates DROP INDEX affiliates_search_words_fulltext, DROP COLUMN search_words');
    return;
  }
  for (const name of ['insert', 'delete', 'update']) await knex.raw(`DROP TRIGGER affiliates_fts_${name}`);
  await knex.raw('DROP TABLE affiliates_fts');
  // SQLite drops a column in place (3.35+); Knex's dropColumn would rebuild the table.
  await knex.raw('ALTER TABLE affiliates DROP COLUMN search_words');
}

import type { Knex } from 'knex';

/**
 * The list's `search` on each engine's text index (today's queries: server/repositories/affiliateSearch.ts).
 *
 * SQLite: an external-content FTS5 table with the trigram tokenizer over `affiliates.search_key`,
 * kept by triggers (cascaded deletes fire them too), rebuilt from the existing rows.
 *
 * Both engines: `affiliates.search_words`, written by the repository with every row. MySQL /
 * MariaDB: a FULLTEXT index over it, created with stopwords off (InnoDB keeps that setting with
 * the index), so no suffix such as `com` or `the` is left out. Existing rows are filled here,
 * with the words as the repository built them when this migration landed.
 */
const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

/*
 * The words as this migration fills them, fixed here: a landed migration imports no live code,
 * so it does the same on every database whatever the repository does later.
 */

/** Suffixes are cut here. */
const SUFFIX_CHARS = 12;
/** InnoDB's `innodb_ft_min_token_size` default. */
const MIN_WORD_CHARS = 3;
/** At most 541 letters and digits in `search_key`, each starting at most one suffix and a space. */
const SEARCH_WORDS_CHARS = 541 * (SUFFIX_CHARS + 1);

const WORD = /[\p{L}\p{Nd}]+/gu;

/** `search_words` for a row's `search_key` (already lower-cased): every suffix of 3 or more characters of each word, cut to 12. */
function searchWords(searchKey: string): string {
  const suffixes = new Set<string>();
  for (const chars of (searchKey.match(WORD) ?? []).map((word) => Array.from(word))) {
    for (let i = 0; i + MIN_WORD_CHARS <= chars.length; i++) {
      suffixes.add(chars.slice(i, i + SUFFIX_CHARS).join(''));
    }
  }
  return [...suffixes].join(' ');
}

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

/**
 * The list's `search` (spec §4.2: a case-insensitive partial match over name, e-mail and
 * referral code at once) on each engine's own text index. Both engines answer exactly what
 * `search_key LIKE '%term%'` answers; the index only narrows the rows that LIKE then checks:
 *
 * - SQLite: an FTS5 table with the trigram tokenizer over `search_key` (kept by triggers)
 *   finds every row holding a term of 3 or more characters anywhere.
 * - MariaDB has no n-gram parser for InnoDB FULLTEXT (MySQL's `ngram` is MySQL's alone), so
 *   `search_words` holds, for every word (run of letters and digits) of `search_key`, each of
 *   its suffixes of at least 3 characters, cut to SUFFIX_CHARS. A word prefix query
 *   (`+tok*`, boolean mode) over those suffixes finds every row where `tok` occurs anywhere
 *   inside a word. A term is looked up by one of its words of 3 or more characters.
 *
 * A term the index cannot narrow (SQLite: under 3 characters; MySQL: no word of 3 or more
 * letters or digits, e.g. `_` or `a.b`) is answered by LIKE alone, which reads the campaign's
 * affiliates: correct, slower at scale. docs/benchmarks.md has the figures.
 */

/** Suffixes are cut here: a longer query word is looked up by its first SUFFIX_CHARS characters. */
const SUFFIX_CHARS = 12;
/** InnoDB's `innodb_ft_min_token_size` default; the repository reads the server's own value. */
export const MIN_WORD_CHARS = 3;
/**
 * The column's size. Lower-casing makes at most 541 letters and digits of a name (255, `İ`
 * lower-cases to `i` and a combining mark), an e-mail (254) and a code (32); each starts at
 * most one suffix of SUFFIX_CHARS characters and a space.
 */
export const SEARCH_WORDS_CHARS = 541 * (SUFFIX_CHARS + 1);

const WORD = /[\p{L}\p{Nd}]+/gu;

function words(text: string): string[][] {
  return (text.match(WORD) ?? []).map((word) => Array.from(word));
}

/** `search_words` for a row's `search_key` (already lower-cased). */
export function searchWords(searchKey: string): string {
  const suffixes = new Set<string>();
  for (const chars of words(searchKey)) {
    for (let i = 0; i + MIN_WORD_CHARS <= chars.length; i++) {
      suffixes.add(chars.slice(i, i + SUFFIX_CHARS).join(''));
    }
  }
  return [...suffixes].join(' ');
}

/**
 * The boolean-mode FULLTEXT query for a (lower-cased) term: one of its words of at least
 * `minWordChars` characters as a required prefix; undefined when the term has none. InnoDB reads
 * every row holding each word it is asked for, and LIKE checks the rest anyway, so one word is
 * asked for, the one likely to be rarest: one with digits (codes, numbered addresses), else one
 * before an `@` (an e-mail's domain is shared by many affiliates), longest first. Words hold
 * letters and digits only, so nothing in the term reaches the query syntax.
 */
export function fulltextQuery(term: string, minWordChars: number): string | undefined {
  const at = term.indexOf('@');
  const candidates = [...term.matchAll(WORD)]
    .map((match) => ({ chars: Array.from(match[0]), domain: at >= 0 && (match.index ?? 0) > at }))
    .filter(({ chars }) => chars.length >= minWordChars);
  const score = ({ chars, domain }: { chars: string[]; domain: boolean }) =>
    (chars.some((c) => /\p{Nd}/u.test(c)) ? 1000 : 0) + (domain ? 0 : 500) + chars.length;
  const best = candidates.sort((a, b) => score(b) - score(a))[0];
  return best ? `+${best.chars.slice(0, SUFFIX_CHARS).join('')}*` : undefined;
}

/**
 * The FTS5 MATCH string for a term: one quoted phrase (quotes doubled), so `*`, `-`, `:`,
 * parentheses and keywords are plain text. undefined under 3 characters, which trigrams cannot serve.
 */
export function trigramQuery(term: string): string | undefined {
  if (Array.from(term).length < 3) return undefined;
  return `"${term.replaceAll('"', '""')}"`;
}

import { expect } from 'chai';
import {
  fulltextQuery,
  SEARCH_WORDS_CHARS,
  searchWords,
  trigramQuery,
} from '../../server/repositories/affiliateSearch.js';

describe('affiliate search text', () => {
  it('stores every suffix of 3 or more characters of every word, cut to 12', () => {
    expect(searchWords('ana\nzzana@shop.com\nab')).to.equal('ana zzana zana shop hop com');
    expect(searchWords('abcdefghijklmnop').split(' ')[0]).to.equal('abcdefghijkl');
  });

  it('fits the worst case in the column: a 255-letter name, a 254-character e-mail, a 32-letter code', () => {
    const key = [
      'İ'.repeat(255).toLowerCase(),
      `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.io`,
      'z'.repeat(32),
    ].join('\n');
    const distinct = ['x'.repeat(255), 'y'.repeat(254), 'w'.repeat(32)]
      .join('\n')
      .replace(/./g, (_, i) => String.fromCharCode(0x4e00 + (i % 5000)));
    expect(Array.from(searchWords(key)).length).to.be.at.most(SEARCH_WORDS_CHARS);
    expect(Array.from(searchWords(distinct)).length).to.be.at.most(SEARCH_WORDS_CHARS);
  });

  it('asks FULLTEXT for one word of the term, the likely rarest; nothing for terms without one', () => {
    expect(fulltextQuery('maria@gmail.com', 3)).to.equal('+maria*');
    expect(fulltextQuery('affiliate 1234', 3)).to.equal('+1234*');
    expect(fulltextQuery('"quoted" -x* (a) near', 3)).to.equal('+quoted*');
    expect(fulltextQuery('zz _ a.b', 3)).to.equal(undefined);
    expect(fulltextQuery('abcd', 4)).to.equal('+abcd*');
    expect(fulltextQuery('abc', 4)).to.equal(undefined);
  });

  it('quotes the whole term as one FTS5 phrase, and leaves terms under 3 characters to LIKE', () => {
    expect(trigramQuery('a"b*')).to.equal('"a""b*"');
    expect(trigramQuery('ab')).to.equal(undefined);
    expect(trigramQuery('山田')).to.equal(undefined);
  });
});

import { expect } from 'chai';
import { acceptsGzip } from '../../server/http/encoding.js';

describe('acceptsGzip (the tracking script’s precompressed answer)', () => {
  it('accepts gzip when listed or covered by *, unless its weight is 0', () => {
    const cases: Array<[string, boolean]> = [
      ['gzip, deflate, br', true],
      ['br;q=1.0, GZIP;q=0.5', true],
      ['x-gzip', true],
      ['*', true],
      ['identity', false],
      ['', false],
      ['gzip;q=0', false],
      ['gzip;q=0.000, *', false],
      ['*;q=0', false],
      ['deflate, *;q=0.1', true],
    ];
    for (const [header, expected] of cases) expect(acceptsGzip(header), header).to.equal(expected);
  });
});

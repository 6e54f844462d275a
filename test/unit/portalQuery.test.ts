import { expect } from 'chai';
import { parsePortalQuery } from '../../server/portal/query.js';

/** A portal page never refuses its address: what it cannot use of the query is no value. */
describe('the portal’s query, parsed by zod', () => {
  it('reads the dashboard’s page, a notice, a referral code and a reset token', () => {
    expect(parsePortalQuery({ page: '3', notice: 'saved', ref: 'MARIA10', token: 'abc' })).to.deep.equal({
      page: 3,
      notice: 'saved',
      ref: 'MARIA10',
      token: 'abc',
    });
  });

  it('drops what a page cannot use: a page that is no whole number from 1, an unknown notice, a repeated ref', () => {
    for (const page of ['abc', '0', '-2', '1.5', '', ['1', '2'], '1e400']) {
      expect(parsePortalQuery({ page }).page, String(page)).to.equal(undefined);
    }
    expect(parsePortalQuery({ notice: '<script>' }).notice).to.equal(undefined);
    expect(parsePortalQuery({ ref: ['A', 'B'] }).ref).to.equal(undefined);
  });

  it('keeps a repeated token as a link that is no link, and no token as none', () => {
    expect(parsePortalQuery({ token: ['a', 'b'] }).token).to.equal(null);
    expect(parsePortalQuery({}).token).to.equal(undefined);
  });
});

import { expect } from 'chai';
import { clientKey } from '../../server/clientAddress.js';

describe('clientKey: whom per-address limits count', () => {
  it('an IPv4 client is its address, also when it arrives mapped into IPv6', () => {
    expect(clientKey('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    expect(clientKey('::FFFF:127.0.0.1')).to.equal('127.0.0.1');
  });

  it('an IPv6 client is its /64, however it writes the rest', () => {
    const one = clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(one).to.equal('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002::1')).to.equal(one);
    expect(clientKey('2001:db8:1:2::ffff:1.2.3.4')).to.equal(one);
    expect(clientKey('2001:db8:1:2::1%eth0')).to.equal(one);
    expect(clientKey('2001:db8:1:3::1')).to.not.equal(one);
    expect(clientKey('::1')).to.equal('0:0:0:0::/64');
    expect(clientKey('2001:db8::')).to.equal('2001:db8:0:0::/64');
  });

  it('anything else is kept as it is', () => {
    expect(clientKey('')).to.equal('');
    expect(clientKey('not an address')).to.equal('not an address');
  });
});

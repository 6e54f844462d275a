import { expect } from 'chai';
import { isPrivateAddress } from '../../server/services/webhooks/address.js';

describe('webhook addresses a receiver may not have (SSRF)', () => {
  it('refuses private, loopback, link-local and reserved IPv4', () => {
    for (const address of [
      '0.0.0.0',
      '10.1.2.3',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.16.0.1',
      '192.168.1.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
  });

  it('refuses every IPv6 form that carries an IPv4 address, and the private IPv6 ranges', () => {
    for (const address of [
      '::',
      '::1',
      '::ffff:127.0.0.1', // IPv4-mapped
      '::7f00:1', // IPv4-compatible (::127.0.0.1)
      '::ffff:0:7f00:1', // IPv4-translated (::ffff:0:127.0.0.1)
      '64:ff9b::a00:1', // NAT64, well-known prefix
      '64:ff9b::808:808', // even of a public IPv4: the translator sits in someone's network
      '64:ff9b:1::a00:1', // NAT64, local-use prefix
      '2002:7f00:1::', // 6to4
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
    ]) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
  });

  it('accepts public addresses', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '::ffff:8.8.8.8',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
    ]) {
      expect(isPrivateAddress(address), address).to.equal(false);
    }
  });
});

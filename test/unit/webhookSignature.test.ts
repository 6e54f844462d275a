import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ConfigError, loadConfig } from '../../server/config.js';
import { isPrivateAddress } from '../../server/services/webhooks/address.js';
import { secretBox } from '../../server/services/webhooks/secretBox.js';
import { generateSecret, sign, signatureHeader, verifySignature } from '../../shared/webhooks/signature.js';

describe('webhook signatures (Standard Webhooks)', () => {
  const body = JSON.stringify({ type: 'conversion.created', timestamp: '2026-11-22T10:00:00.000Z', data: { id: 1 } });
  const id = 'msg_2b7a1a';

  it('a signature we make verifies with the standardwebhooks package, and theirs with ours', () => {
    const secret = generateSecret();
    const now = new Date();
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(secret, id, timestamp, body),
    };
    expect(new StandardWebhook(secret).verify(body, headers)).to.deep.equal(JSON.parse(body));
    const theirs = new StandardWebhook(secret).sign(id, now, body);
    expect(theirs).to.equal(headers['webhook-signature']);
    expect(verifySignature(secret, { id, timestamp: String(timestamp), signature: theirs }, body).ok).to.equal(true);
  });

  it('during a rotation the header carries both signatures; each secret alone verifies', () => {
    const [next, previous] = [generateSecret(), generateSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signatureHeader([next, previous], id, timestamp, body);
    expect(header.split(' ')).to.have.length(2);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': header };
    for (const secret of [next, previous]) expect(new StandardWebhook(secret).verify(body, headers)).to.be.an('object');
    expect(() => new StandardWebhook(generateSecret()).verify(body, headers)).to.throw();
  });

  it('refuses a changed body, a changed id, and (with a tolerance) an old timestamp', () => {
    const secret = generateSecret();
    const timestamp = Math.floor(Date.now() / 1000) - 600;
    const signature = sign(secret, id, timestamp, body);
    const headers = { id, timestamp: String(timestamp), signature };
    expect(verifySignature(secret, headers, body).ok).to.equal(true);
    expect(verifySignature(secret, headers, `${body} `).ok).to.equal(false);
    expect(verifySignature(secret, { ...headers, id: 'msg_other' }, body).ok).to.equal(false);
    expect(verifySignature(secret, headers, body, { toleranceSeconds: 300 })).to.deep.include({ ok: false });
  });
});

describe('webhook secrets at rest', () => {
  it('sealed under one key, opened by it only', () => {
    const box = secretBox(randomBytes(32));
    const secret = generateSecret();
    const sealed = box.seal(secret);
    expect(sealed).to.not.include(secret.slice(6));
    expect(box.open(sealed)).to.equal(secret);
    expect(secretBox(randomBytes(32)).open(sealed)).to.equal(undefined);
    const parts = sealed.split('.');
    const ciphertext = parts[4] ?? '';
    parts[4] = (ciphertext.startsWith('A') ? 'B' : 'A') + ciphertext.slice(1);
    expect(box.open(parts.join('.'))).to.equal(undefined);
  });
});

describe('webhook configuration and addresses', () => {
  it('WEBHOOK_RETRY_SCHEDULE is durations; a bad one stops the daemon with one line', () => {
    expect(loadConfig({}).webhooks.retryScheduleMs).to.deep.equal([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '250ms, 5s,2m,1h,1d' }).webhooks.retryScheduleMs).to.deep.equal([
      250, 5000, 120000, 3600000, 86400000,
    ]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).to.throw(
      ConfigError,
      'WEBHOOK_RETRY_SCHEDULE must be durations separated by commas, e.g. 5s,5m,30m,2h',
    );
  });

  it('WEBHOOK_SECRET_KEY must be 32 bytes, and a bad one is never echoed', () => {
    const hex = randomBytes(32).toString('hex');
    expect(loadConfig({ WEBHOOK_SECRET_KEY: hex }).webhooks.secretKey?.toString('hex')).to.equal(hex);
    try {
      loadConfig({ WEBHOOK_SECRET_KEY: 'tooshort-but-secret' });
      expect.fail('accepted');
    } catch (err) {
      expect((err as Error).message).to.equal('WEBHOOK_SECRET_KEY must be 32 bytes as 64 hex digits or base64');
    }
  });

  it('private, loopback, link-local and mapped forms are private; public addresses are not', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd12::1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
    ]) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).to.equal(false);
    }
  });
});

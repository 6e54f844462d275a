import { expect } from 'chai';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';

/**
 * What Schemathesis found where the document and the server disagreed (scripts/schemathesis.sh):
 * each value here is refused by the document, so the server refuses it too.
 */
describe(`document and server agree on what they refuse (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const api = (method: string, path: string, body?: unknown) =>
    call<any>(t.url, method, path, { key: t.merchant.key, body });

  it('an id filter is an integer in decimal digits: 0x10, 1e1 and " 1" are 400, as the document says', async () => {
    for (const path of [
      '/v1/payouts?affiliateId=0x10',
      '/v1/affiliates?groupId=1e1',
      '/v1/conversions?affiliateId=%201',
      '/v1/conversions?payoutId=0b1',
      '/v1/clawbacks?conversionId=0o7',
    ]) {
      const res = await api('GET', path);
      expect(res.status, path).to.equal(400);
      const name = (path.split('?')[1] ?? '').split('=')[0];
      expect(res.body.message, path).to.deep.equal([`${name} must be written in decimal digits (0-9)`]);
    }
    const plain = await api('GET', '/v1/payouts?affiliateId=16');
    expect(plain.status).to.equal(200);
  });

  it('a webhook url outside RFC 3986 (the document’s uri format) is 400 with what to do', async () => {
    for (const url of ['http://127.0.0.1:9/hooks/a b', 'http://127.0.0.1:9/hooks/ä', 'http://127.0.0.1:9/hooks/%zz']) {
      const res = await api('POST', '/v1/webhooks', { url, events: ['affiliate.created'] });
      expect(res.status, url).to.equal(400);
      expect(res.body.message, url).to.deep.equal([
        'url must be an http:// or https:// URL written with URL characters only: percent-encode spaces and anything else (a space is %20)',
      ]);
    }
    const encoded = await api('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/hooks/a%20b',
      events: ['affiliate.created'],
    });
    expect(encoded.status, encoded.text).to.equal(201);
  });

  it('an affiliate email whose domain label ends with a hyphen is 400, as the document’s email format says', async () => {
    const document = await api('GET', '/v1/openapi.json');
    const schema = document.body.paths['/v1/affiliates'].post.requestBody.content['application/json'].schema;
    const documented = new RegExp(schema.properties.email.pattern as string);
    const plain = await api('POST', '/v1/affiliates', {
      name: 'Ana',
      email: 'ana@shop-1.example.com',
      password: 'secret123',
    });
    expect(plain.status, plain.text).to.equal(201);
    for (const address of ['ana@shop-.example.com', 'ana@-shop.example.com', `ana@${'a'.repeat(64)}.example.com`]) {
      const res = await api('POST', '/v1/affiliates', { name: 'Bia', email: address, password: 'secret123' });
      expect(res.status, address).to.equal(400);
      expect(res.body.message, address).to.deep.equal(['email must be a valid email']);
      expect(documented.test(address), address).to.equal(false);
      const patched = await api('PATCH', `/v1/affiliates/${plain.body.id}`, { email: address });
      expect(patched.body.message, address).to.deep.equal(['email must be a valid email']);
    }
  });

  it('a payout rail credential is printable ASCII, as the document’s pattern says in any regex dialect', async () => {
    const document = await api('GET', '/v1/openapi.json');
    const schemas = document.body.paths['/v1/payout-rails/stripe'].put.requestBody.content['application/json'].schema;
    const documented = new RegExp(schemas.properties.secretKey.pattern as string);
    // U+00A0 is a space to JavaScript's \S and not to an ASCII-only reading of it: Schemathesis
    // generated it as valid and the daemon refused it.
    for (const key of ['sk_test_abc\u00a0defgh', 'sk_test_açaí12345', 'sk_test_\u2003abcdefgh', 'sk_test abcdefgh']) {
      const res = await api('PUT', '/v1/payout-rails/stripe', { secretKey: key });
      expect(res.status, JSON.stringify(key)).to.equal(400);
      expect(res.body.message).to.deep.equal([
        'secretKey must be 8 to 512 printable ASCII characters without spaces (paste it as the provider shows it)',
      ]);
      expect(documented.test(key), JSON.stringify(key)).to.equal(false);
    }
    const ascii = 'sk_test_!#$%&()*+,-./:;<=>?@[]^_`{|}~09AZaz';
    expect(documented.test(ascii)).to.equal(true);
    const taken = await api('PUT', '/v1/payout-rails/stripe', { secretKey: ascii });
    expect(taken.status, taken.text).to.equal(200);
  });
});

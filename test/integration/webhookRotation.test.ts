import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { type Received, Receiver, signedWith as verifies } from '../helpers/receiver.js';

const signatures = (request: Received | undefined) => String(request?.headers['webhook-signature']).split(' ');

describe(`webhook secret rotation (${ENGINE})`, () => {
  const t = useTestDaemon({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_MAX_RETIRED_SECRETS: '3',
  });
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(async () => receiver.stop());

  const api = (method: string, path: string) => call(t.url, method, path, { key: t.merchant.key });
  const register = async () => {
    const res = await call(t.url, 'POST', '/v1/webhooks', {
      key: t.merchant.key,
      body: { url: receiver.url, events: ['affiliate.created'] },
    });
    expect(res.status).to.equal(201);
    return res.body as { id: number; secret: string };
  };
  const rotate = async (id: number) => {
    const res = await api('POST', `/v1/webhooks/${id}/rotate-secret`);
    expect(res.status, res.text).to.equal(200);
    return res.body.secret as string;
  };
  /** The next test message, as the receiver got it. */
  const nextTest = async (id: number) => {
    const before = receiver.received.length;
    expect((await api('POST', `/v1/webhooks/${id}/test`)).status).to.equal(202);
    const requests = await receiver.waitFor(before + 1);
    return requests[before];
  };

  it('rotate-secret: a new secret; for 24 h both sign, then only the new one', async () => {
    const { id, secret: old } = await register();
    const rotated = await api('POST', `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).to.equal(200);
    expect(rotated.body).to.include({ id, status: 'enabled' });
    expect(rotated.body.secret)
      .to.match(/^whsec_/)
      .and.not.equal(old);
    const request = await nextTest(id);
    expect(signatures(request)).to.have.length(2);
    expect(verifies(rotated.body.secret, request)).to.equal(true);
    expect(verifies(old, request)).to.equal(true);

    // Past its 24 hours the old secret no longer signs.
    await t.db('webhook_retired_secrets').update({ expires_at: new Date(Date.now() - 1000) });
    const later = await nextTest(id);
    expect(signatures(later)).to.have.length(1);
    expect(verifies(rotated.body.secret, later)).to.equal(true);
    expect(verifies(old, later)).to.equal(false);
  });

  it('a second rotation within 24 h keeps the first secret signing until its own 24 h are over', async () => {
    const { id, secret: first } = await register();
    const second = await rotate(id);
    const third = await rotate(id);
    const request = await nextTest(id);
    expect(signatures(request)).to.have.length(3);
    for (const secret of [first, second, third]) expect(verifies(secret, request)).to.equal(true);

    // Each retired secret stops at its own time: the first one's 24 h end first.
    const retired = await t.db('webhook_retired_secrets').orderBy('expires_at').select('id', 'expires_at');
    expect(retired).to.have.length(2);
    await t
      .db('webhook_retired_secrets')
      .where('id', retired[0]?.id)
      .update({ expires_at: new Date(Date.now() - 1000) });
    const later = await nextTest(id);
    expect(verifies(first, later)).to.equal(false);
    expect(verifies(second, later)).to.equal(true);
    expect(verifies(third, later)).to.equal(true);
  });

  it('rotations at once lose no secret; past WEBHOOK_MAX_RETIRED_SECRETS still signing, 409', async () => {
    const { id, secret: original } = await register();
    const answers = await Promise.all(Array.from({ length: 3 }, () => api('POST', `/v1/webhooks/${id}/rotate-secret`)));
    for (const res of answers) expect(res.status, res.text).to.equal(200);
    const request = await nextTest(id);
    expect(signatures(request)).to.have.length(4);
    for (const secret of [original, ...answers.map((res) => res.body.secret as string)]) {
      expect(verifies(secret, request)).to.equal(true);
    }

    const refused = await api('POST', `/v1/webhooks/${id}/rotate-secret`);
    expect(refused.status).to.equal(409);
    expect(refused.body.message).to.match(
      new RegExp(`^${MESSAGES.webhookRotationLimit(3, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\d{4}-`),
    );
    // Nothing changed: the same four secrets sign.
    const after = await nextTest(id);
    expect(signatures(after)).to.have.length(4);
  });
});

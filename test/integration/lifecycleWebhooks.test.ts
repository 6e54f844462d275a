import { expect } from 'chai';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { lifecycleApi } from '../helpers/lifecycleApi.js';
import { Receiver, sleep } from '../helpers/receiver.js';

/** Each lifecycle change is written to the webhook outbox in its own transaction. */
describe(`webhooks of the conversion and payout lifecycle (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' });
  const { api, arrive, refund, payout, settle, approve } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(async () => receiver.stop());

  it('sends conversion.approved|rejected|paid and payout.created|paid|failed with the API’s objects; a refused change sends nothing', async () => {
    const registered = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      events: [
        'conversion.approved',
        'conversion.rejected',
        'conversion.paid',
        'payout.created',
        'payout.paid',
        'payout.failed',
      ],
    });
    expect(registered.status, registered.text).to.equal(201);
    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const [a, b, c] = await arrive(code, [
      ['a', 100],
      ['b', 200],
      ['c', 300],
    ]);
    await approve(a ?? 0, b ?? 0);
    expect((await api('PATCH', `/v1/conversions/${a}`, { status: 'approved' })).status).to.equal(200);
    const first = await payout(affiliateId);
    // Refused (409): nothing is recorded.
    expect((await payout(affiliateId)).status).to.equal(409);
    const paid = await settle(first.body.id, 'paid');
    await refund('b');
    await approve(c ?? 0);
    const second = await payout(affiliateId);
    const failed = await settle(second.body.id, 'failed');

    const expected = [
      'conversion.approved',
      'conversion.approved',
      'payout.created',
      'payout.paid',
      'conversion.paid',
      'conversion.paid',
      'conversion.rejected',
      'conversion.approved',
      'payout.created',
      'payout.failed',
    ];
    const requests = await receiver.waitFor(expected.length);
    await sleep(300);
    expect(receiver.received).to.have.length(expected.length);
    const payloads = requests.map((r) => JSON.parse(r.body) as { type: string; data: { id: number } });
    expect(payloads.map((p) => p.type).sort()).to.deep.equal([...expected].sort());
    const of = (type: string) => payloads.filter((p) => p.type === type).map((p) => p.data);
    expect(of('payout.paid')).to.deep.equal([paid.body]);
    expect(of('payout.failed')).to.deep.equal([failed.body]);
    expect(
      of('conversion.paid')
        .map((c) => c.id)
        .sort(),
    ).to.deep.equal([a, b].sort());
    expect(of('conversion.rejected')).to.deep.equal([(await api('GET', `/v1/conversions/${b}`)).body]);
  });
});

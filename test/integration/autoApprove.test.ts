import { expect } from 'chai';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { addConversion } from '../helpers/lifecycle.js';
import { call } from '../helpers/http.js';

const DAY = 86_400_000;

/** The daemon runs the hold-period job itself, every AUTO_APPROVE_INTERVAL_MS. */
describe(`the daemon approves conversions past the hold period on its schedule (${ENGINE})`, () => {
  const t = useTestDaemon({ AUTO_APPROVE_INTERVAL_MS: '50' });

  const statusOf = async (id: number) =>
    (await call(t.url, 'GET', `/v1/conversions/${id}`, { key: t.merchant.key })).body.status;

  async function eventually(check: () => Promise<boolean>, ms = 5000) {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('not within time');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('approves what is older than autoApproveDays, leaves the rest pending, and never a rejected one', async () => {
    const { id: affiliateId } = await addAffiliate(t.db, t.merchant.campaignId);
    const old = await addConversion(t.db, t.merchant.campaignId, affiliateId, {
      createdAt: new Date(Date.now() - 3 * DAY),
    });
    const rejected = await addConversion(t.db, t.merchant.campaignId, affiliateId, {
      createdAt: new Date(Date.now() - 3 * DAY),
      status: 'rejected',
    });
    const young = await addConversion(t.db, t.merchant.campaignId, affiliateId, {
      createdAt: new Date(Date.now() - DAY),
    });
    // Without a hold period nothing moves, however often the job runs.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusOf(old.id)).to.equal('pending');

    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { autoApproveDays: 2 });
    await eventually(async () => (await statusOf(old.id)) === 'approved');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusOf(young.id)).to.equal('pending');
    expect(await statusOf(rejected.id)).to.equal('rejected');
  });
});

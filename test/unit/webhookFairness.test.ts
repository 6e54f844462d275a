import { expect } from 'chai';
import { shareSlots } from '../../server/services/webhooks/fairness.js';

const head = (campaignId: number, endpointId: number, deliveryId: number) => ({ campaignId, endpointId, deliveryId });
const shares = { room: 4, campaignInFlight: 8, endpointInFlight: 4 };
const none = { campaigns: new Map<number, number>(), endpoints: new Map<number, number>() };

describe('webhook slots shared across campaigns', () => {
  it('gives a free slot to the campaign with the fewest in flight, whatever the age of its deliveries', () => {
    // Campaign 1 has 8 older deliveries waiting and 3 in flight; campaign 2 one newer delivery.
    const heads = [...Array.from({ length: 8 }, (_, i) => head(1, 10 + i, i + 1)), head(2, 20, 100)];
    const inFlight = { campaigns: new Map([[1, 3]]), endpoints: new Map([[10, 3]]) };
    const plan = shareSlots(heads, { ...shares, room: 1 }, inFlight);
    expect([...plan]).to.deep.equal([[20, 1]]);
  });

  it('never gives a campaign or an endpoint more than its share', () => {
    const heads = [head(1, 10, 1), head(1, 11, 2), head(1, 12, 3)];
    const plan = shareSlots(heads, { room: 32, campaignInFlight: 5, endpointInFlight: 2 }, none);
    expect([...plan.values()].reduce((a, b) => a + b, 0)).to.equal(5);
    for (const count of plan.values()) expect(count).to.be.at.most(2);
  });

  it('spreads slots over campaigns, then over their endpoints, oldest delivery first', () => {
    const heads = [head(1, 10, 5), head(1, 11, 1), head(2, 20, 9)];
    const plan = shareSlots(heads, { ...shares, room: 3 }, none);
    expect(Object.fromEntries(plan)).to.deep.equal({ 10: 1, 11: 1, 20: 1 });
    const two = shareSlots(heads, { ...shares, room: 2 }, none);
    expect(Object.fromEntries(two)).to.deep.equal({ 11: 1, 20: 1 });
  });

  it('leaves the slots empty when every campaign is at its share', () => {
    const inFlight = { campaigns: new Map([[1, 8]]), endpoints: new Map<number, number>() };
    expect(shareSlots([head(1, 10, 1)], shares, inFlight).size).to.equal(0);
  });
});

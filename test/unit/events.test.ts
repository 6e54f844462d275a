import { expect } from 'chai';
import { rateCents } from '../../server/services/events/commission.js';
import { eventsRequestSchema, MAX_ORDER_VALUE } from '../../shared/schemas/event.js';
import { parseWith } from '../../shared/schemas/validation.js';

describe('event intake rules', () => {
  const percent = (hundredths: number) => ({ type: 'percent' as const, hundredths });
  const commissionCents = (orderValueCents: number, rate: { type: 'percent' | 'fixed'; hundredths: number }) =>
    rateCents(rate, orderValueCents);

  it('computes percent commissions in exact centavos, half up', () => {
    expect(commissionCents(19999, percent(1000))).to.equal(2000); // 10 % of 199.99 = 19.999
    expect(commissionCents(5, percent(1000))).to.equal(1); // 0.5 centavo rounds up
    expect(commissionCents(4, percent(1000))).to.equal(0);
    expect(commissionCents(12345, percent(1250))).to.equal(1543); // 12.5 % of 123.45 = 15.43125
    // Past 2^53 once multiplied: still exact.
    expect(commissionCents(MAX_ORDER_VALUE * 100, percent(9999))).to.equal(999_900_000_000);
  });

  it('uses a fixed commission as is, whatever the order value', () => {
    expect(commissionCents(1, { type: 'fixed', hundredths: 750 })).to.equal(750);
  });

  it('rounds order values to centavos before requiring a positive amount', () => {
    const event = (value: unknown) => ({
      events: [
        {
          event_type: 'conversion',
          campaign_id: 'c',
          affiliate_id: 'A',
          properties: { order_id: 'o', order_value: value },
        },
      ],
    });
    expect(parseWith(eventsRequestSchema, event(0.005)).ok).to.equal(true);
    expect(parseWith(eventsRequestSchema, event(0.004))).to.deep.equal({
      ok: false,
      messages: ['events.0.properties.order_value must be at least one centavo (0.01; 0.005 and above round up to it)'],
    });
    expect(parseWith(eventsRequestSchema, event(Number.POSITIVE_INFINITY)).ok).to.equal(false);
  });
});

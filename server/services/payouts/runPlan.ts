import { MESSAGES } from '../../../shared/errors.js';
import { formatMoney, fromCents, moneyOfAmount } from '../../../shared/money.js';
import type { PayoutRailName } from '../../../shared/schemas/payoutRail.js';
import type { PayoutRunLeftOut } from '../../../shared/schemas/payoutRun.js';
import type { PayableBalance } from '../../repositories/payoutRuns.js';
import { planSend } from './plan.js';

/** An affiliate a run pays: its balance in hundredths and the rail it is paid on. */
export interface RunPayee {
  balance: PayableBalance;
  rail: PayoutRailName;
  cents: number;
}

export interface RunPlan {
  pay: RunPayee[];
  leftOut: PayoutRunLeftOut[];
}

/**
 * Who a run pays and who it leaves out, and why (docs/payouts.md#payout-runs). Pure: a dry run
 * and a run answer the same. The minimum first (a balance that does not reach it is not due,
 * whatever the details), then the details and the rail as a send checks them (`planSend`). With
 * `rail`, only affiliates whose payout details name that rail are looked at.
 */
export function planRun(
  balances: readonly PayableBalance[],
  campaign: { minimumCents: number; currency: string; connected: ReadonlySet<PayoutRailName> },
  rail: PayoutRailName | undefined,
): RunPlan {
  const plan: RunPlan = { pay: [], leftOut: [] };
  for (const balance of balances) {
    if (rail !== undefined && balance.payoutMethod !== rail) continue;
    const cents = balance.commissionCents - balance.clawbackCents;
    const who = {
      affiliateId: balance.affiliateId,
      affiliateName: balance.affiliateName,
      affiliateEmail: balance.affiliateEmail,
      amount: fromCents(cents),
    };
    // A clawback larger than what is approved carries forward whole: no payout of nothing.
    if (cents <= 0 || cents < campaign.minimumCents) {
      const text = (hundredths: number) =>
        formatMoney(moneyOfAmount(fromCents(hundredths), campaign.currency), 'en-US', 'code');
      const message = MESSAGES.payoutRunBelowMinimum(text(cents), text(campaign.minimumCents));
      plan.leftOut.push({ ...who, reason: 'below_minimum', message });
      continue;
    }
    const send = planSend({ ...balance, amount: who.amount, currency: campaign.currency }, campaign.connected);
    if (send.ok) plan.pay.push({ balance, rail: send.rail, cents });
    else plan.leftOut.push({ ...who, reason: send.reason, message: send.message });
  }
  return plan;
}

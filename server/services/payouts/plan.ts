import { MESSAGES } from '../../../shared/errors.js';
import type { Payout } from '../../../shared/schemas/payout.js';
import type { PayoutRailName } from '../../../shared/schemas/payoutRail.js';
import { toCents } from '../../../shared/money.js';
import { hundredthsToMinor, type MinorAmount, type Payee } from './providers/index.js';

/** Why a payout is not sent on a rail (docs/payouts.md): the reason codes runs list affiliates by. */
export type SendRefusal = 'no_payout_details' | 'rail_not_connected' | 'currency_not_supported' | 'amount_not_payable';

export type SendPlan =
  | { ok: true; rail: PayoutRailName; amount: MinorAmount; payee: Payee }
  | { ok: false; reason: SendRefusal; message: string };

/** The rails whose currencies are limited before any call: Pix pays reais only (Asaas). */
const ONLY_CURRENCY: Partial<Record<PayoutRailName, string>> = { pix: 'BRL' };

/**
 * Where and what a payout would be sent: the rail of the affiliate's payout details, if the
 * campaign connected it, and the amount in the currency's minor units. Pure: the send and a
 * run's dry run answer the same.
 */
export function planSend(
  payout: Pick<Payout, 'affiliateId' | 'payoutMethod' | 'pixKeyType' | 'payoutAccount' | 'amount' | 'currency'>,
  connected: ReadonlySet<PayoutRailName>,
): SendPlan {
  const rail = payout.payoutMethod;
  const account = payout.payoutAccount;
  if (rail === null || account === null) {
    return { ok: false, reason: 'no_payout_details', message: MESSAGES.payoutNoDetails(payout.affiliateId) };
  }
  if (!connected.has(rail))
    return { ok: false, reason: 'rail_not_connected', message: MESSAGES.payoutRailNotConnected(rail) };
  const only = ONLY_CURRENCY[rail];
  if (only !== undefined && payout.currency.toUpperCase() !== only) {
    return {
      ok: false,
      reason: 'currency_not_supported',
      message: MESSAGES.payoutCurrencyNotSupported(rail, payout.currency),
    };
  }
  const amount = hundredthsToMinor(toCents(payout.amount), payout.currency);
  if (!amount)
    return { ok: false, reason: 'amount_not_payable', message: MESSAGES.payoutAmountNotPayable(payout.currency) };
  let payee: Payee;
  if (rail === 'pix') payee = { rail, pixKey: account, pixKeyType: payout.pixKeyType ?? 'random' };
  else if (rail === 'paypal') payee = { rail, email: account };
  else payee = { rail, account };
  return { ok: true, rail, amount, payee };
}

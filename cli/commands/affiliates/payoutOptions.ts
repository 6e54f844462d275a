import type { Command } from 'commander';
import type { PayoutDetailsInput } from '../../../shared/schemas/affiliatePayout.js';
import { UsageError } from '../../errors.js';
import { choice } from '../../options.js';
import { PIX_KEY_TYPES } from '../../vocabulary.js';

/** The payout options of create and update, as the portal's settings form has them (docs/payouts.md). */
export interface PayoutFlags {
  pixKey?: string;
  pixKeyType?: (typeof PIX_KEY_TYPES)[number];
  paypalEmail?: string;
  stripeAccount?: string;
  /** commander: false for --no-payout-details (update only), else true. */
  payoutDetails?: boolean;
}

export function payoutOptions<C extends Command>(command: C): C {
  return command
    .option('--pix-key <key>', 'paid by Pix (BRL) to this key: a CPF, CNPJ, e-mail, phone (+55…) or random key')
    .addOption(choice('--pix-key-type <type>', 'the kind of key --pix-key is', PIX_KEY_TYPES))
    .option('--paypal-email <email>', 'paid by PayPal to this account')
    .option('--stripe-account <id>', 'paid by Stripe to this connected account (acct_…)');
}

/** The body's `payoutDetails` from the flags: undefined when none is given, null for --no-payout-details. */
export function payoutDetailsOfFlags(flags: PayoutFlags): PayoutDetailsInput | null | undefined {
  const { pixKey, pixKeyType, paypalEmail, stripeAccount } = flags;
  const given = [pixKey, paypalEmail, stripeAccount].filter((value) => value !== undefined).length;
  if (given > 1) throw new UsageError('give one of --pix-key, --paypal-email and --stripe-account, not two');
  if (flags.payoutDetails === false) {
    if (given > 0 || pixKeyType !== undefined) {
      throw new UsageError(
        '--no-payout-details clears the payout details: give no --pix-key, --paypal-email or --stripe-account with it',
      );
    }
    return null;
  }
  if (pixKeyType !== undefined && pixKey === undefined) throw new UsageError('--pix-key-type goes with --pix-key');
  if (pixKey !== undefined) {
    if (pixKeyType === undefined) {
      throw new UsageError(`--pix-key needs --pix-key-type: one of ${PIX_KEY_TYPES.join(', ')}`);
    }
    return { method: 'pix', pixKeyType, account: pixKey };
  }
  if (paypalEmail !== undefined) return { method: 'paypal', account: paypalEmail };
  if (stripeAccount !== undefined) return { method: 'stripe', account: stripeAccount };
  return undefined;
}

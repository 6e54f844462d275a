/**
 * The words of the one-affiliate page's forms and of sending a payout in English
 * (docs/dashboard.md#pages); pt-BR has the same keys.
 */
export const dashboardChangesEn = {
  affiliateEdit: {
    edit: 'Edit affiliate',
    phone: 'Phone',
    parent: 'Parent affiliate (id)',
    override: 'Own commission',
    noOverride: 'none: the group’s or campaign’s rule',
    overrideValue: 'Own commission value',
    password: 'New portal password',
    passwordHint: 'Leave it empty to keep the affiliate’s password. A new one ends their portal sessions.',
    save: 'Save affiliate',
    couponCode: 'Coupon code',
    addCoupon: 'Add coupon',
    removeCoupon: 'Remove',
    couponHint:
      'The Stripe coupon or promotion-code id, or the Paddle discount id, exactly as the provider shows it: a payment that used it counts for this affiliate.',
  },
  payoutSend: {
    send: 'Send',
    sent: (id: string) => `Payout ${id} sent on its rail: it is paid when the provider confirms.`,
  },
};

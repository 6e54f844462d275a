/**
 * A conversion as a merchant's export holds it, the one shape of every generated replay file (the
 * bench's, the memory test's, the crash tests'): a file where lines repeat a few values hides what
 * `events replay` keeps per line (issue 36 §10), so each line has its own order id, session,
 * customer, page and value, of one of EXPORT_PRODUCTS products.
 */

/** Products of the shop the sales are of: enough that product rules' look-ups vary. */
export const EXPORT_PRODUCTS = 500;

/** 1.00 to 999.99, varying from line to line: whole cents over 100, so JSON writes two decimals at most. */
export const exportOrderValue = (n: number) => (((n * 7919) % 99_900) + 100) / 100;

export interface ExportLine {
  campaign: string;
  affiliate: string;
  /** Tells files apart: order ids, event ids, sessions and customers are unique to it. */
  tag: string;
  /** The line's number in the file. */
  n: number;
  /** Another line's order id, for the repeats exports hold; `${tag}-${n}` by default. */
  orderId?: string;
  /** Whether the line carries its own event_id (true by default); without one the replay derives it from the line. */
  eventId?: boolean;
}

export function exportedConversion({ campaign, affiliate, tag, n, orderId, eventId = true }: ExportLine) {
  return {
    event_type: 'conversion',
    campaign_id: campaign,
    affiliate_id: affiliate,
    properties: {
      order_id: orderId ?? `${tag}-${n}`,
      order_value: exportOrderValue(n),
      product: `Plano ${n % EXPORT_PRODUCTS}`,
      customer_email: `c${n}@${tag}.example`,
      url: `https://shop.example/checkout/${tag}-${n}?utm_source=${affiliate}`,
    },
    ...(eventId ? { event_id: `${tag}-e${n}` } : {}),
    session_id: `s-${tag}-${n}`,
  };
}

import { exportedConversion } from '../../helpers/exportLine.js';
import { writeLines } from '../../helpers/replay.js';
import { seededRandom } from './seed.js';

export interface ReplayFile {
  lines: number;
  /** Distinct order ids among the conversion lines: what the database must hold, exactly. */
  conversions: number;
  /** Tracking events the database must hold: page views, leads and the distinct conversions. */
  events: number;
}

/**
 * An NDJSON file of `lines` events for the campaign, over its affiliates `codes`: half
 * conversions as an export holds them (test/helpers/exportLine.ts: each its own session,
 * customer, page, product and value; one in twenty repeats an earlier order id on another line,
 * as exports do), the rest page views and leads. Lines carry no event_id: the replay derives one
 * from each line, which is what makes its retries safe. Order ids start with `orderPrefix`, so
 * that several files for one campaign hold distinct orders.
 */
export async function writeReplayFile(
  file: string,
  lines: number,
  campaign: string,
  codes: readonly string[],
  seed: number,
  orderPrefix = 'order-',
): Promise<ReplayFile> {
  const random = seededRandom(seed);
  const orders = new Set<string>();
  let pageViewsAndLeads = 0;
  let nextOrder = 0;
  // Sessions, customers and pages unique to the file, as its orders are.
  const tag = orderPrefix.replace(/-+$/, '') || 'order';
  await writeLines(file, lines, (n) => {
    const affiliate = codes[Math.floor(random() * codes.length)] ?? '';
    const kind = random();
    if (kind < 0.5) {
      const repeat = nextOrder > 0 && random() < 0.05;
      const orderId = `${orderPrefix}${repeat ? Math.floor(random() * nextOrder) : nextOrder++}`;
      orders.add(orderId);
      return JSON.stringify(exportedConversion({ campaign, affiliate, tag, n, orderId, eventId: false }));
    }
    pageViewsAndLeads++;
    return JSON.stringify({
      event_type: kind < 0.8 ? 'page_view' : 'lead',
      campaign_id: campaign,
      affiliate_id: affiliate,
      session_id: `s-${Math.floor(random() * 1e9)}`,
      properties: { url: `https://shop.example/p/${n}` },
    });
  });
  return { lines, conversions: orders.size, events: pageViewsAndLeads + orders.size };
}

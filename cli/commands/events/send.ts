import type { ApiClient } from '../../../shared/client/index.js';
import { contract } from '../../../shared/contract/index.js';
import { type EventType, trackingEventSchema } from '../../../shared/schemas/event.js';
import { parseWith } from '../../../shared/schemas/validation.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { type GlobalOptions, note, printJson, printLine } from '../../output.js';

export interface SendFlags {
  type: EventType;
  campaign?: string;
  affiliate: string;
  orderId?: string;
  orderValue?: number;
  product?: string;
  customerEmail?: string;
  timestamp?: string;
  eventId?: string;
  session?: string;
}

/** Each property a flag sets, and the flag a validation message about it should name. */
const PROPERTY_FLAGS = [
  ['order_id', 'orderId', '--order-id'],
  ['order_value', 'orderValue', '--order-value'],
  ['product', 'product', '--product'],
  ['customer_email', 'customerEmail', '--customer-email'],
  ['timestamp', 'timestamp', '--timestamp'],
] as const;

/** `events send`: one event from flags, checked with the server's own schema before it goes. */
export async function send(io: Io, client: ApiClient, options: GlobalOptions, flags: SendFlags): Promise<void> {
  // The key names its campaign: ask the daemon, and say which id is right when --campaign differs.
  const own = await client.campaign.get();
  const campaign = flags.campaign ?? own.publicId;
  if (campaign !== own.publicId) {
    throw new UsageError(
      `--campaign ${campaign} is not the API key's campaign: the key belongs to campaign ` +
        `"${own.publicId}" (${own.name}); leave --campaign out to use it`,
    );
  }
  const properties: Record<string, unknown> = {};
  for (const [property, flag] of PROPERTY_FLAGS) {
    if (flags[flag] !== undefined) properties[property] = flags[flag];
  }
  const event = {
    event_type: flags.type,
    campaign_id: campaign,
    affiliate_id: flags.affiliate,
    event_id: flags.eventId,
    session_id: flags.session,
    properties: Object.keys(properties).length > 0 ? properties : undefined,
  };
  const checked = parseWith(trackingEventSchema, event);
  if (!checked.ok) {
    // Name the flags, not the JSON fields, since flags are what the user typed.
    const flagged = checked.messages.map((m) =>
      PROPERTY_FLAGS.reduce(
        (text, [property, , flag]) => text.replace(`properties.${property}`, flag),
        m.replace(/^event_id\b/, '--event-id'),
      ),
    );
    throw new UsageError(`the event is not valid: ${flagged.join('; ')}`);
  }
  const { body } = await client.request(contract.events.send, { body: { events: [event] } });
  if (options.json) return printJson(io, body);
  const skip = body.skipped[0];
  if (skip) {
    printLine(io, `Not stored: ${skip.reason.replaceAll('_', ' ')}.`);
    note(io, 'Skipped events are not errors: a duplicate was stored before, or the code is unknown or inactive.');
    return;
  }
  printLine(io, `Accepted ${flags.type} for ${flags.affiliate}.`);
}

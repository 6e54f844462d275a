import type { ApiClient } from '../../../shared/client/index.js';
import type {
  Delivery,
  DeliveryStatus,
  UpdateWebhookInput,
  Webhook,
  WebhookEventType,
  WebhookStatus,
  WebhookWithSecret,
} from '../../../shared/schemas/webhook.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import {
  type GlobalOptions,
  type ListFormat,
  note,
  pageNote,
  plural,
  printJson,
  printLine,
  printRecord,
  printTable,
} from '../../output.js';
import { confirmOrDecline } from '../../prompts.js';

function record(io: Io, webhook: Webhook): void {
  printRecord(io, {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events.join(', '),
    description: webhook.description,
    status: webhook.status,
    'disabled because': webhook.disabledReason,
    created: webhook.createdAt,
    updated: webhook.updatedAt,
  });
}

/** The secret goes to stdout alone, once; everything else about it to stderr (as `keys create`). */
function withSecret(io: Io, options: GlobalOptions, webhook: WebhookWithSecret, what: string): void {
  if (options.json) return printJson(io, webhook);
  note(io, `${what} It is shown once: store it now.`);
  printLine(io, webhook.secret);
}

function lastOutcome(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return '-';
  return last.statusCode === null ? (last.error ?? 'error') : `HTTP ${last.statusCode}`;
}

export async function add(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  url: string,
  flags: { events: WebhookEventType[]; description?: string },
): Promise<void> {
  const webhook = await client.webhooks.create({ body: { url, events: flags.events, description: flags.description } });
  withSecret(
    io,
    options,
    webhook,
    `Webhook ${webhook.id} sends ${webhook.events.join(', ')} to ${webhook.url}. Its signing secret follows.`,
  );
}

export async function list(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: { page?: number; limit?: number; output?: ListFormat },
) {
  const { output, ...query } = flags;
  const page = await client.webhooks.list({ query });
  if (options.json) return printJson(io, page);
  printTable(
    io,
    ['id', 'url', 'events', 'status', 'created'],
    page.webhooks.map((w) => [w.id, w.url, w.events.join(','), w.status, w.createdAt]),
    output,
  );
  pageNote(io, page, plural(page.total, 'endpoint'));
}

export async function get(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const webhook = await client.webhooks.get({ params: { id } });
  if (options.json) return printJson(io, webhook);
  record(io, webhook);
}

export async function update(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  flags: { url?: string; events?: WebhookEventType[]; description?: string; status?: WebhookStatus },
): Promise<void> {
  const changes: UpdateWebhookInput = {
    url: flags.url,
    events: flags.events,
    description:
      flags.description === undefined ? undefined : flags.description.trim() === '' ? null : flags.description,
    status: flags.status,
  };
  if (Object.values(changes).every((value) => value === undefined)) {
    throw new UsageError('nothing to update: give at least one of --url --events --description --status');
  }
  const webhook = await client.webhooks.update({ params: { id }, body: changes });
  if (options.json) return printJson(io, webhook);
  note(io, `Updated webhook ${webhook.id}.`);
  record(io, webhook);
}

export async function remove(io: Io, client: ApiClient, options: GlobalOptions, id: number, flags: { yes?: boolean }) {
  await confirmOrDecline(io, flags, `Delete webhook ${id} and its delivery history? Nothing more is sent to it.`);
  const result = await client.webhooks.remove({ params: { id } });
  if (options.json) return printJson(io, result);
  printLine(io, `Webhook ${id} deleted.`);
}

export async function rotateSecret(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const webhook = await client.webhooks.rotateSecret({ params: { id } });
  withSecret(io, options, webhook, `New signing secret for webhook ${id}; the old one keeps signing for 24 hours.`);
}

export async function test(io: Io, client: ApiClient, options: GlobalOptions, id: number): Promise<void> {
  const delivery = await client.webhooks.test({ params: { id } });
  if (options.json) return printJson(io, delivery);
  printLine(io, `Sent webhook.test as delivery ${delivery.id} (webhook-id ${delivery.messageId}).`);
  note(io, `See how it went: affiliated webhooks deliveries ${id}`);
}

export async function deliveries(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  flags: { status?: DeliveryStatus; page?: number; limit?: number; output?: ListFormat },
): Promise<void> {
  const { output, ...query } = flags;
  const page = await client.webhooks.deliveries({ params: { id }, query });
  if (options.json) return printJson(io, page);
  printTable(
    io,
    ['id', 'event', 'webhook-id', 'status', 'attempts', 'last', 'next attempt', 'created'],
    page.deliveries.map((d) => [
      d.id,
      d.eventType,
      d.messageId,
      d.status,
      d.attempts.length,
      lastOutcome(d),
      d.nextAttemptAt,
      d.createdAt,
    ]),
    output,
  );
  pageNote(io, page, plural(page.total, 'delivery', 'deliveries'));
}

export async function retry(io: Io, client: ApiClient, options: GlobalOptions, id: number, deliveryId: number) {
  const delivery = await client.webhooks.retry({ params: { id, deliveryId } });
  if (options.json) return printJson(io, delivery);
  printLine(io, `Delivery ${delivery.id} is due now (attempts so far: ${delivery.attempts.length}).`);
}

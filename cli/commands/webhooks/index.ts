import { type Command, InvalidArgumentError } from 'commander';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES } from '../../vocabulary.js';
import type { Io } from '../../io.js';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import { choice, outputOption, pagingOptions, wholeNumber } from '../../options.js';

/** `--events a,b`: known event types, each once. */
function eventList(value: string): string[] {
  const events = value
    .split(',')
    .map((event) => event.trim())
    .filter(Boolean);
  const unknown = events.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
  if (events.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`It must be a comma-separated list of: ${WEBHOOK_EVENT_TYPES.join(', ')}.`);
  }
  return [...new Set(events)];
}

/** `--header 'webhook-id: msg_…'`, repeatable. */
function headerLine(value: string, previous: string[] = []): string[] {
  if (!value.includes(':')) throw new InvalidArgumentError('It must look like "name: value".');
  return [...previous, value];
}

/** Client commands for signed webhooks (docs/webhooks.md); `verify` works offline. */
export function registerWebhooks(program: Command, io: Io): void {
  const webhooks = withExamples(
    program.command('webhooks').description('webhook endpoints, their secrets and deliveries'),
    [
      'webhooks add https://crm.example.com/hooks --events conversion.created',
      'webhooks list',
      'webhooks deliveries 3 --status failed',
    ],
  );
  const run = clientCommand(program, io, () => import('./actions.js'));
  const id = (name: string) => [name, 'webhook endpoint id', wholeNumber(1)] as const;

  withExamples(
    webhooks
      .command('add')
      .description('register an endpoint; its signing secret is printed once')
      .argument('<url>', 'the http(s) URL that receives the events')
      .requiredOption('--events <types>', `comma-separated: ${WEBHOOK_EVENT_TYPES.join(', ')}`, eventList)
      .option('--description <text>', 'what the endpoint is for'),
    ['webhooks add https://crm.example.com/hooks --events conversion.created,payout.paid'],
  ).action((url: string, flags) => run((a, client, globals) => a.add(io, client, globals, url, flags)));
  withExamples(outputOption(pagingOptions(webhooks.command('list').description('list endpoints, newest first'))), [
    'webhooks list',
    'webhooks list --output csv',
  ]).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  withExamples(
    webhooks
      .command('get')
      .description('show one endpoint')
      .argument(...id('<id>')),
    ['webhooks get 3'],
  ).action((webhookId: number) => run((a, client, globals) => a.get(io, client, globals, webhookId)));
  withExamples(
    webhooks
      .command('update')
      .description('change an endpoint, or disable or enable it')
      .argument(...id('<id>'))
      .option('--url <url>', 'new URL')
      .option('--events <types>', 'new comma-separated event types (replaces the list)', eventList)
      .option('--description <text>', 'new description ("" clears it)')
      .addOption(choice('--status <status>', 'enable or disable it', WEBHOOK_STATUSES)),
    ['webhooks update 3 --status enabled', 'webhooks update 3 --events conversion.created,conversion.approved'],
  ).action((webhookId: number, flags) => run((a, client, globals) => a.update(io, client, globals, webhookId, flags)));
  withExamples(
    webhooks
      .command('remove')
      .description('delete an endpoint and its delivery history')
      .argument(...id('<id>'))
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['webhooks remove 3', 'webhooks remove 3 --yes'],
  ).action((webhookId: number, flags) => run((a, client, globals) => a.remove(io, client, globals, webhookId, flags)));
  withExamples(
    webhooks
      .command('rotate-secret')
      .description('replace the signing secret (printed once); the old one keeps signing for 24 hours')
      .argument(...id('<id>')),
    ['webhooks rotate-secret 3'],
  ).action((webhookId: number) => run((a, client, globals) => a.rotateSecret(io, client, globals, webhookId)));
  withExamples(
    webhooks
      .command('test')
      .description('send a webhook.test event to the endpoint')
      .argument(...id('<id>')),
    ['webhooks test 3', 'webhooks deliveries 3   # then see how it went'],
  ).action((webhookId: number) => run((a, client, globals) => a.test(io, client, globals, webhookId)));
  withExamples(
    outputOption(
      pagingOptions(
        webhooks
          .command('deliveries')
          .description('list deliveries to an endpoint with their attempts, newest first')
          .argument(...id('<id>'))
          .addOption(choice('--status <status>', 'only this status', DELIVERY_STATUSES)),
      ),
    ),
    ['webhooks deliveries 3 --status failed', 'webhooks deliveries 3 --output csv'],
  ).action((webhookId: number, flags) =>
    run((a, client, globals) => a.deliveries(io, client, globals, webhookId, flags)),
  );
  withExamples(
    webhooks
      .command('retry')
      .description('send a delivery again now')
      .argument(...id('<id>'))
      .argument('<deliveryId>', 'delivery id (see `webhooks deliveries`)', wholeNumber(1)),
    ['webhooks retry 3 17'],
  ).action((webhookId: number, deliveryId: number) =>
    run((a, client, globals) => a.retry(io, client, globals, webhookId, deliveryId)),
  );
  withExamples(
    webhooks
      .command('verify')
      .description('check the signature of a captured webhook request (offline)')
      .requiredOption('--secret <secret>', 'the endpoint’s signing secret (whsec_…)')
      .requiredOption(
        '--header <line>',
        'a request header, "name: value"; give webhook-id, webhook-timestamp and webhook-signature',
        headerLine,
      )
      .requiredOption('--body <file>', 'the raw request body, byte for byte')
      .option('--max-age <seconds>', 'also refuse a timestamp older (or newer) than this', wholeNumber(1)),
    [
      'webhooks verify --secret whsec_… --body body.json \\\n' +
        "      --header 'webhook-id: msg_…' --header 'webhook-timestamp: 1700000000' --header 'webhook-signature: v1,…'",
    ],
  ).action(async (flags) => (await import('./verify.js')).verify(io, program.opts(), flags));
}

import type { ApiClient } from '../../../shared/client/index.js';
import {
  type BillingOutcome,
  type BillingProviderName,
  billingProvider,
  type Integration,
} from '../../../shared/schemas/integration.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import {
  type GlobalOptions,
  type ListFormat,
  note,
  noteIfLoopback,
  pageNote,
  plural,
  printJson,
  printLine,
  printRecord,
  printTable,
} from '../../output.js';
import { askSecret, confirmOrDecline } from '../../prompts.js';

function providerOf(name: string): BillingProviderName {
  const parsed = billingProvider.safeParse(name);
  if (!parsed.success) throw new UsageError(`provider must be stripe or paddle, not "${name}"`);
  return parsed.data;
}

const DASHBOARD: Record<BillingProviderName, string> = {
  stripe: 'Stripe Dashboard → Developers → Webhooks → Add endpoint',
  paddle: 'Paddle → Developer tools → Notifications → New destination',
};

const outcomesText = (integration: Integration) =>
  Object.entries(integration.outcomes)
    .map(([outcome, count]) => `${outcome} ${count}`)
    .join(', ') || 'none yet';

export async function set(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  name: string,
  flags: { signingSecret?: string; publicUrl?: string },
): Promise<void> {
  const provider = providerOf(name);
  const signingSecret =
    flags.signingSecret ??
    (io.env.AFFILIATED_SIGNING_SECRET || undefined) ??
    (await askSecret(io, '--signing-secret', `The ${provider} endpoint’s signing secret`));
  const integration = await client.integrations.put({ params: { provider }, body: { signingSecret } });
  const url = `${(flags.publicUrl ?? client.baseUrl).replace(/\/+$/, '')}${integration.receivePath}`;
  if (options.json) return printJson(io, { ...integration, url });
  const rotated = integration.previousSecretExpiresAt !== null && integration.createdAt !== integration.updatedAt;
  printRecord(io, {
    provider,
    url,
    'event types': integration.eventTypes.join(', '),
    'previous secret verifies until': rotated ? integration.previousSecretExpiresAt : null,
  });
  note(io, `Give ${provider} this URL (${DASHBOARD[provider]}) and enable: ${integration.eventTypes.join(', ')}.`);
  noteIfLoopback(io, url);
}

export async function list(io: Io, client: ApiClient, options: GlobalOptions, flags: { output?: ListFormat }) {
  const { integrations } = await client.integrations.list();
  if (options.json) return printJson(io, integrations);
  printTable(
    io,
    ['provider', 'path', 'last event', 'outcomes', 'created'],
    integrations.map((i) => [i.provider, i.receivePath, i.lastEventAt ?? '-', outcomesText(i), i.createdAt]),
    flags.output,
  );
}

export async function remove(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  name: string,
  flags: { yes?: boolean },
) {
  const provider = providerOf(name);
  await confirmOrDecline(
    io,
    flags,
    `Disconnect ${provider}? Its events will be answered 404 from now on.`,
    'Not removed.',
  );
  const result = await client.integrations.remove({ params: { provider } });
  if (options.json) return printJson(io, result);
  printLine(io, `Integration ${provider} removed.`);
}

export async function events(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: {
    provider?: BillingProviderName;
    outcome?: BillingOutcome;
    page?: number;
    limit?: number;
    output?: ListFormat;
  },
) {
  const { output, ...query } = flags;
  const page = await client.integrations.events({ query });
  if (options.json) return printJson(io, page);
  printTable(
    io,
    ['received', 'provider', 'event', 'type', 'outcome', 'reason', 'conversion', 'order'],
    page.events.map((e) => [
      e.receivedAt,
      e.provider,
      e.eventId,
      e.type,
      e.outcome,
      e.reason ?? '',
      e.conversionId ?? '',
      e.orderId ?? '',
    ]),
    output,
  );
  pageNote(io, page, plural(page.total, 'event'));
}

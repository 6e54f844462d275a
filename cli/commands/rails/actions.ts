import type { ApiClient } from '../../../shared/client/index.js';
import { type PayoutRail, type PayoutRailName, payoutRailName } from '../../../shared/schemas/payoutRail.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import {
  type GlobalOptions,
  type ListFormat,
  note,
  noteIfLoopback,
  printJson,
  printLine,
  printRecord,
  printTable,
} from '../../output.js';
import { askSecret, askText, confirmOrDecline } from '../../prompts.js';

interface SetFlags {
  asaasApiKey?: string;
  clientId?: string;
  clientSecret?: string;
  secretKey?: string;
  webhookToken?: string;
  publicUrl?: string;
}

function railOf(name: string): PayoutRailName {
  const parsed = payoutRailName.safeParse(name);
  if (!parsed.success) throw new UsageError(`rail must be pix, paypal or stripe, not "${name}"`);
  return parsed.data;
}

/** Each rail's credential flags: a flag of another rail is a mistake worth naming, not ignoring. */
const FLAGS: Record<PayoutRailName, ReadonlyArray<keyof SetFlags>> = {
  pix: ['asaasApiKey', 'webhookToken'],
  paypal: ['clientId', 'clientSecret', 'webhookToken'],
  stripe: ['secretKey'],
};
const FLAG_NAMES: Record<Exclude<keyof SetFlags, 'publicUrl'>, string> = {
  asaasApiKey: '--asaas-api-key',
  clientId: '--client-id',
  clientSecret: '--client-secret',
  secretKey: '--secret-key',
  webhookToken: '--webhook-token',
};

const PROVIDER: Record<PayoutRailName, string> = { pix: 'Asaas', paypal: 'PayPal', stripe: 'Stripe' };

const WEBHOOK_SETUP: Record<PayoutRailName, string | null> = {
  pix: 'Asaas → Integrations → Webhooks: this URL, the transfer events, and the token given as --webhook-token',
  paypal:
    'PayPal Developer → your app → Webhooks: this URL and the PAYMENT.PAYOUTS-ITEM.* events; its id is --webhook-token',
  stripe: null,
};

/** What the flags gave; on a terminal, each missing credential asked (secrets hidden); never printed back. */
async function bodyFor(io: Io, rail: PayoutRailName, flags: SetFlags) {
  for (const [key, flag] of Object.entries(FLAG_NAMES) as Array<[keyof typeof FLAG_NAMES, string]>) {
    if (flags[key] !== undefined && !FLAGS[rail].includes(key)) {
      throw new UsageError(
        `${flag} is not a credential of the ${rail} rail (it takes ${FLAGS[rail].map((k) => FLAG_NAMES[k as keyof typeof FLAG_NAMES]).join(', ')})`,
      );
    }
  }
  const webhookToken = flags.webhookToken;
  if (rail === 'pix') {
    const apiKey = flags.asaasApiKey ?? (await askSecret(io, '--asaas-api-key', 'The Asaas API key ($aact_…)'));
    return { rail, body: { apiKey, webhookToken } } as const;
  }
  if (rail === 'paypal') {
    const clientId = flags.clientId ?? (await askText(io, '--client-id', 'The PayPal REST app’s client id'));
    const clientSecret = flags.clientSecret ?? (await askSecret(io, '--client-secret', 'The PayPal REST app’s secret'));
    return { rail, body: { clientId, clientSecret, webhookToken } } as const;
  }
  const secretKey =
    flags.secretKey ?? (await askSecret(io, '--secret-key', 'The Stripe secret key (sk_live_…, sk_test_…)'));
  return { rail, body: { secretKey } } as const;
}

async function put(client: ApiClient, request: Awaited<ReturnType<typeof bodyFor>>): Promise<PayoutRail> {
  if (request.rail === 'pix') return client.payoutRails.putPix({ body: request.body });
  if (request.rail === 'paypal') return client.payoutRails.putPayPal({ body: request.body });
  return client.payoutRails.putStripe({ body: request.body });
}

export async function set(io: Io, client: ApiClient, options: GlobalOptions, name: string, flags: SetFlags) {
  const rail = railOf(name);
  const saved = await put(client, await bodyFor(io, rail, flags));
  const base = (flags.publicUrl ?? client.baseUrl).replace(/\/+$/, '');
  const url = saved.callbackPath === null ? null : `${base}${saved.callbackPath}`;
  if (options.json) return printJson(io, { ...saved, url });
  printRecord(io, {
    rail,
    provider: PROVIDER[rail],
    'callback URL': url,
    'webhook token': saved.hasWebhookToken ? 'set' : null,
  });
  note(io, `Connected the ${rail} rail: its credentials are stored encrypted and are never shown again.`);
  const setup = WEBHOOK_SETUP[rail];
  if (url !== null && setup !== null) {
    note(io, `Give ${PROVIDER[rail]} the callback URL (${setup}).`);
    if (!saved.hasWebhookToken)
      note(
        io,
        'Without --webhook-token its callbacks are refused: the daemon learns outcomes by polling, more slowly.',
      );
    noteIfLoopback(io, url);
  }
}

export async function list(io: Io, client: ApiClient, options: GlobalOptions, flags: { output?: ListFormat }) {
  const { rails } = await client.payoutRails.list();
  if (options.json) return printJson(io, rails);
  printTable(
    io,
    ['rail', 'provider', 'callback path', 'webhook token', 'created', 'updated'],
    rails.map((r) => [
      r.rail,
      PROVIDER[r.rail],
      r.callbackPath ?? '-',
      r.hasWebhookToken ? 'set' : '-',
      r.createdAt,
      r.updatedAt,
    ]),
    flags.output,
  );
  if (rails.length === 0)
    note(io, 'No rail connected: payouts are paid by hand (payouts mark-paid). Connect one with `rails set`.');
}

const REMOVE = {
  pix: (client: ApiClient) => client.payoutRails.removePix(),
  paypal: (client: ApiClient) => client.payoutRails.removePayPal(),
  stripe: (client: ApiClient) => client.payoutRails.removeStripe(),
} as const;

export async function remove(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  name: string,
  flags: { yes?: boolean },
) {
  const rail = railOf(name);
  await confirmOrDecline(
    io,
    flags,
    `Disconnect the ${rail} rail? Its payouts still processing wait until it is connected again.`,
    'Not removed.',
  );
  const result = await REMOVE[rail](client);
  if (options.json) return printJson(io, result);
  printLine(io, `Payout rail ${rail} removed.`);
}

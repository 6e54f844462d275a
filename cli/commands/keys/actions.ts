import type { ApiKeyInfo } from '../../../shared/schemas/campaign.js';
import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, note, printJson, printLine, printTable } from '../../output.js';

const masked = (k: ApiKeyInfo) => `${k.prefix}…${k.lastFour}`;

export async function create(
  io: Io,
  options: GlobalOptions & { campaign: string; name?: string },
): Promise<void> {
  const key = await withServices(({ apiKeys }) =>
    apiKeys.create({ campaign: options.campaign, name: options.name }),
  );
  if (options.json) return printJson(io, key);
  note(io, `API key ${key.id} for campaign ${key.campaignId}. It is shown once: store it now.`);
  printLine(io, key.key);
}

export async function list(io: Io, options: GlobalOptions & { campaign?: string }): Promise<void> {
  const keys = await withServices(({ apiKeys }) => apiKeys.list(options.campaign));
  if (options.json) return printJson(io, keys);
  printTable(
    io,
    ['id', 'campaign', 'name', 'key', 'status', 'created', 'last used'],
    keys.map((k) => [k.id, k.campaignId, k.name, masked(k), k.status, k.createdAt, k.lastUsedAt]),
  );
}

export async function revoke(io: Io, options: GlobalOptions, keyId: number): Promise<void> {
  const key = await withServices(({ apiKeys }) => apiKeys.revoke(keyId));
  if (options.json) return printJson(io, key);
  printLine(io, `Key ${key.id} (${masked(key)}) is revoked.`);
}

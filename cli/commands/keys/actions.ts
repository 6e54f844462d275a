import type { ApiKeyInfo } from '../../../shared/schemas/campaign.js';
import { Declined, UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, type ListFormat, note, printJson, printLine, printTable } from '../../output.js';
import { confirm } from '../../prompts.js';

const masked = (k: ApiKeyInfo) => `${k.prefix}…${k.lastFour}`;

export async function create(io: Io, options: GlobalOptions & { campaign: string; name?: string }): Promise<void> {
  const key = await withServices(io, options, ({ apiKeys }) =>
    apiKeys.create({ campaign: options.campaign, name: options.name }),
  );
  if (options.json) return printJson(io, key);
  note(io, `API key ${key.id} for campaign ${key.campaignId}. It is shown once: store it now.`);
  printLine(io, key.key);
}

export async function list(io: Io, options: GlobalOptions & { campaign?: string; output?: ListFormat }): Promise<void> {
  const keys = await withServices(io, options, ({ apiKeys }) => apiKeys.list(options.campaign));
  if (options.json) return printJson(io, { keys, total: keys.length });
  printTable(
    io,
    ['id', 'campaign', 'name', 'key', 'status', 'created', 'last used'],
    keys.map((k) => [k.id, k.campaignId, k.name, masked(k), k.status, k.createdAt, k.lastUsedAt]),
    options.output,
  );
}

/** A revoked key stops a live integration, so a person confirms, seeing which key; scripts say --yes. */
export async function revoke(io: Io, options: GlobalOptions & { yes?: boolean }, keyId: number): Promise<void> {
  if (!options.yes && !io.interactive) throw new UsageError('--yes is required when not running interactively');
  const key = await withServices(io, options, async ({ apiKeys }) => {
    if (!options.yes) {
      const found = (await apiKeys.list()).find((k) => k.id === keyId);
      // An unknown id fails before any question: revoke() names it.
      if (found) {
        const label = `${masked(found)}${found.name ? ` "${found.name}"` : ''}, campaign ${found.campaignId}`;
        const sure = await confirm(io, '--yes', `Revoke key ${keyId} (${label})? Clients using it stop working.`);
        if (!sure) throw new Declined('Not revoked.');
      }
    }
    return apiKeys.revoke(keyId);
  });
  if (options.json) return printJson(io, key);
  printLine(io, `Key ${key.id} (${masked(key)}) is revoked.`);
}

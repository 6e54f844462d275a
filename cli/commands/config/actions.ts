import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { type GlobalOptions, note, printJson, printLine, printTable } from '../../output.js';
import {
  activeProfile,
  configPath,
  maskKey,
  readConfigFile,
  resolveConnection,
  saveProfile,
  writeConfigFile,
} from '../../profiles.js';
import { askSecret, confirmOrDecline } from '../../prompts.js';
import type { Setting } from './settings.js';

function checkBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`base-url "${value}" is not a URL (e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`base-url "${value}" must start with http:// or https://`);
  }
  return value.replace(/\/+$/, '');
}

export async function set(io: Io, options: GlobalOptions, setting: Setting, value?: string): Promise<void> {
  const profile = await activeProfile(io, options);
  let shown: string;
  let file: string;
  if (setting === 'base-url') {
    if (value === undefined) throw new UsageError('config set base-url needs a value, e.g. http://127.0.0.1:3000');
    const baseUrl = checkBaseUrl(value);
    file = await saveProfile(io.env, profile, { baseUrl });
    shown = baseUrl;
  } else {
    // A key typed at the hidden prompt stays out of the shell history.
    const apiKey =
      value ?? (await askSecret(io, 'the api-key value', 'API key', (v) => (v.trim() ? true : 'Paste the key')));
    if (apiKey.trim() === '') throw new UsageError('the api-key value must not be empty');
    file = await saveProfile(io.env, profile, { apiKey: apiKey.trim() });
    shown = maskKey(apiKey.trim());
  }
  if (options.json) return printJson(io, { profile, setting, value: shown, file });
  printLine(io, `Saved ${setting} ${shown} in profile "${profile}" (${file}).`);
}

export async function get(io: Io, options: GlobalOptions, setting: Setting): Promise<void> {
  const connection = await resolveConnection(io, options);
  const [raw, source] =
    setting === 'base-url'
      ? [connection.baseUrl, connection.sources.baseUrl]
      : [connection.apiKey, connection.sources.apiKey];
  const value = raw === undefined ? null : setting === 'api-key' ? maskKey(raw) : raw;
  if (options.json) return printJson(io, { profile: connection.profile, setting, value, source });
  if (value === null) {
    note(io, `${setting} is not set (profile "${connection.profile}").`);
    return;
  }
  printLine(io, value);
  note(io, `(from ${source === 'profile' ? `profile "${connection.profile}"` : source})`);
}

export async function list(io: Io, options: GlobalOptions): Promise<void> {
  const config = await readConfigFile(io.env);
  const connection = await resolveConnection(io, options);
  const profiles = Object.entries(config.profiles).map(([name, p]) => ({
    name,
    active: name === connection.profile,
    baseUrl: p.baseUrl ?? null,
    apiKey: p.apiKey === undefined ? null : maskKey(p.apiKey),
  }));
  const effective = {
    profile: connection.profile,
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey === undefined ? null : maskKey(connection.apiKey),
    sources: connection.sources,
  };
  const file = configPath(io.env);
  if (options.json) return printJson(io, { file, profiles, effective });
  printTable(
    io,
    ['', 'profile', 'base-url', 'api-key'],
    profiles.map((p) => [p.active ? '*' : '', p.name, p.baseUrl, p.apiKey]),
  );
  note(io, `\nConfig file: ${file}`);
  note(
    io,
    `In effect: base-url ${effective.baseUrl} (${effective.sources.baseUrl}), ` +
      `api-key ${effective.apiKey ?? 'not set'} (${effective.sources.apiKey})`,
  );
}

/** `config use NAME`: client commands use this profile when no --profile or AFFILIATED_PROFILE names one. */
export async function use(io: Io, options: GlobalOptions, name: string): Promise<void> {
  const config = await readConfigFile(io.env);
  if (!config.profiles[name]) throw new UsageError(noSuchProfile(name, config.profiles));
  const file = await writeConfigFile(io.env, { ...config, current: name });
  if (options.json) return printJson(io, { profile: name, file });
  printLine(io, `Client commands now use profile "${name}" (${file}).`);
  if (io.env.AFFILIATED_PROFILE && io.env.AFFILIATED_PROFILE !== name) {
    note(io, `AFFILIATED_PROFILE=${io.env.AFFILIATED_PROFILE} is set in this shell and wins over it.`);
  }
}

/** `config delete NAME`: the profile and its key leave the file; asked on a terminal, --yes otherwise. */
export async function remove(io: Io, options: GlobalOptions & { yes?: boolean }, name: string): Promise<void> {
  const config = await readConfigFile(io.env);
  const profile = config.profiles[name];
  if (!profile) throw new UsageError(noSuchProfile(name, config.profiles));
  const what = `${profile.baseUrl ?? 'no base-url'}, api-key ${profile.apiKey ? maskKey(profile.apiKey) : 'not set'}`;
  await confirmOrDecline(io, options, `Delete profile "${name}" (${what})?`);
  const { [name]: _gone, ...profiles } = config.profiles;
  const next = { profiles, ...(config.current && config.current !== name && { current: config.current }) };
  const file = await writeConfigFile(io.env, next);
  if (options.json) return printJson(io, { deleted: name, file });
  printLine(io, `Deleted profile "${name}" (${file}).`);
}

function noSuchProfile(name: string, profiles: Record<string, unknown>): string {
  const names = Object.keys(profiles);
  return `no profile named "${name}"${names.length ? ` (saved: ${names.join(', ')})` : ''}: see \`affiliated config list\``;
}

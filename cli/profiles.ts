import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Io } from './io.js';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
  /** The profile used when neither --profile nor AFFILIATED_PROFILE names one (`config use`). */
  current?: string;
}

export const DEFAULT_PROFILE = 'default';
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

/** `AFFILIATED_CONFIG`, else `$XDG_CONFIG_HOME/affiliated/config.json`, else `~/.config/affiliated/config.json`. */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.AFFILIATED_CONFIG) return path.resolve(env.AFFILIATED_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'affiliated', 'config.json');
}

export async function readConfigFile(env: NodeJS.ProcessEnv): Promise<ConfigFile> {
  try {
    const parsed = JSON.parse(await fs.readFile(configPath(env), 'utf8')) as Partial<ConfigFile>;
    return { profiles: parsed.profiles ?? {}, ...(parsed.current && { current: parsed.current }) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw err;
  }
}

/** Written with mode 0600 (it holds API keys), through a temporary file so a crash never truncates it. */
export async function writeConfigFile(env: NodeJS.ProcessEnv, config: ConfigFile): Promise<string> {
  const file = configPath(env);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await fs.chmod(temp, 0o600);
  await fs.rename(temp, file);
  return file;
}

export async function saveProfile(env: NodeJS.ProcessEnv, name: string, changes: Profile): Promise<string> {
  const config = await readConfigFile(env);
  config.profiles[name] = { ...config.profiles[name], ...changes };
  return writeConfigFile(env, config);
}

/** The profile a command uses: --profile, else AFFILIATED_PROFILE, else the one `config use` chose. */
export async function activeProfile(io: Io, options: { profile?: string }): Promise<string> {
  if (options.profile) return options.profile;
  if (io.env.AFFILIATED_PROFILE) return io.env.AFFILIATED_PROFILE;
  return (await readConfigFile(io.env)).current ?? DEFAULT_PROFILE;
}

/** Keys are never printed whole: prefix and last four only. */
export function maskKey(key: string): string {
  if (key.length <= 12) return '****';
  return `${key.slice(0, 8)}…${key.slice(-4)}`;
}

/** Where a connection setting came from, so `config get|list` can say which one wins. */
export type Source = 'flag' | 'env' | 'profile' | 'default' | 'none';

export interface Connection {
  baseUrl: string;
  apiKey: string | undefined;
  profile: string;
  sources: { baseUrl: Source; apiKey: Source };
}

function pick<T>(flag: T | undefined, env: T | undefined, profile: T | undefined): [T | undefined, Source] {
  if (flag !== undefined) return [flag, 'flag'];
  if (env !== undefined && env !== '') return [env, 'env'];
  if (profile !== undefined) return [profile, 'profile'];
  return [undefined, 'none'];
}

/** Precedence (docs/cli.md): `--base-url`/`--api-key`, then `AFFILIATED_*` variables, then the profile. */
export async function resolveConnection(
  io: Io,
  options: { profile?: string; baseUrl?: string; apiKey?: string },
): Promise<Connection> {
  const config = await readConfigFile(io.env);
  const name = options.profile ?? (io.env.AFFILIATED_PROFILE || config.current || DEFAULT_PROFILE);
  const profile = config.profiles[name] ?? {};
  const [baseUrl, baseUrlSource] = pick(options.baseUrl, io.env.AFFILIATED_BASE_URL, profile.baseUrl);
  const [apiKey, apiKeySource] = pick(options.apiKey, io.env.AFFILIATED_API_KEY, profile.apiKey);
  return {
    profile: name,
    baseUrl: baseUrl ?? DEFAULT_BASE_URL,
    apiKey,
    sources: { baseUrl: baseUrl === undefined ? 'default' : baseUrlSource, apiKey: apiKeySource },
  };
}

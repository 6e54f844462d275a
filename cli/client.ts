import v8 from 'node:v8';
import type { ApiClient } from '../shared/client/index.js';
import { UsageError } from './errors.js';
import { VERSION } from './version.js';
import type { Io } from './io.js';
import { DEFAULT_PROFILE, resolveConnection } from './profiles.js';

export interface ClientConnectOptions {
  profile?: string;
  baseUrl?: string;
  apiKey?: string;
}

/**
 * The API client for client commands, from flags > environment > profile.
 * A missing key names the ways to set one (docs/cli.md: a usage error says what to do).
 */
export async function connect(io: Io, options: ClientConnectOptions): Promise<ApiClient> {
  const connection = await resolveConnection(io, options);
  if (connection.apiKey === undefined || connection.apiKey === '') {
    const profileFlag = connection.profile === DEFAULT_PROFILE ? '' : ` --profile ${connection.profile}`;
    throw new UsageError(
      `no API key for profile "${connection.profile}": run \`affiliated config set api-key KEY${profileFlag}\`, ` +
        'or set AFFILIATED_API_KEY, or pass --api-key',
    );
  }
  let url: URL;
  try {
    url = new URL(connection.baseUrl);
  } catch {
    throw new UsageError(`base URL "${connection.baseUrl}" is not a URL (e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`base URL "${connection.baseUrl}" must start with http:// or https://`);
  }
  liftoffOnly();
  const { createApiClient } = await import('../shared/client/index.js');
  const client = createApiClient({
    baseUrl: baseUrlOf(url),
    apiKey: connection.apiKey,
    userAgent: `affiliated-cli/${VERSION}`,
  });
  clients.set(io, client);
  return client;
}

/**
 * undici parses answers with llhttp compiled to WebAssembly, and V8 compiles that parser again
 * with its optimising compiler (TurboFan) once it runs hot: about 35 MB of peak memory and a
 * tenth of a second of CPU, in a process that otherwise peaks near 65 MB (`events replay`
 * measured with `/usr/bin/time -v`). A command's answers are few and small, so V8's baseline
 * WebAssembly compiler (Liftoff) is enough. Set before the first request compiles the parser;
 * it concerns WebAssembly only, and only this process (a client command, never the daemon).
 */
function liftoffOnly(): void {
  v8.setFlagsFromString('--liftoff-only');
}

/** The client a command of this run connected with, if any (for follow-up advice on an error). */
const clients = new WeakMap<Io, ApiClient>();
export const clientOf = (io: Io): ApiClient | undefined => clients.get(io);

/**
 * The daemon's root: routes carry their own `/v1`, so a base URL that ends in `/v1` (as the
 * API reference writes them) is taken as the root it names rather than calling `/v1/v1/...`.
 */
export function baseUrlOf(url: URL): string {
  const text = url.toString().replace(/\/+$/, '');
  return text.replace(/\/v1$/, '');
}

import { createServer } from 'node:net';
import { request } from 'undici';

/** A loopback port nobody listens on now (for a server a test or the bench starts and tells it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One real HTTP request over loopback. `body` is sent as JSON unless `raw` is given. */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    raw?: string | Buffer;
    contentType?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let payload: string | Buffer | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const res = await request(`${baseUrl}${path}`, { method: method as 'GET', headers, body: payload });
  const text = await res.body.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.statusCode, body: body as T, headers: res.headers, text };
}

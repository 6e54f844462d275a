import { type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import { statusName } from '../errors.js';
import { parseWith } from '../schemas/validation.js';
import { ApiError, ConnectionError, type RateLimitInfo, UnexpectedResponseError } from './errors.js';

export interface ClientOptions {
  /** Daemon address, e.g. `http://127.0.0.1:3000` (a trailing slash is fine). */
  baseUrl: string;
  apiKey: string;
  userAgent?: string;
  /** undici dispatcher (tests, proxies); the global one otherwise. */
  dispatcher?: Dispatcher;
}

/**
 * A request body already written as JSON (text, or its UTF-8 bytes), sent as it is rather than
 * through `JSON.stringify`: for callers that hold JSON the server parses anyway (the replay
 * sends an NDJSON file's own lines).
 */
export class RawJsonBody {
  constructor(readonly content: string | Uint8Array) {}
}

export interface Reply<T> {
  statusCode: number;
  body: T;
  rateLimit: RateLimitInfo;
}

type Query = Record<string, string | number | boolean | undefined>;
type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function headerNumber(headers: Headers, name: string): number | undefined {
  const value = header(headers, name);
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

export function rateLimitOf(headers: Headers): RateLimitInfo {
  return {
    limit: headerNumber(headers, 'x-ratelimit-limit'),
    remaining: headerNumber(headers, 'x-ratelimit-remaining'),
    resetSeconds: headerNumber(headers, 'x-ratelimit-reset'),
  };
}

/** The spec's error body gives `message` as a string or a list; anything else still yields a line. */
export function messagesOf(statusCode: number, text: string): string[] {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (Array.isArray(body.message)) return body.message.map(String);
    if (typeof body.message === 'string') return [body.message];
  } catch {
    // not JSON: fall through
  }
  const snippet = text.trim().slice(0, 200);
  return [snippet === '' ? statusName(statusCode) : snippet];
}

export function buildUrl(baseUrl: string, path: string, query: Query = {}): string {
  const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

/**
 * One request: JSON in, JSON out, parsed with the shared schema. Non-2xx answers become
 * `ApiError`; transport failures become `ConnectionError`.
 */
export async function callApi<S extends z.ZodType>(
  options: ClientOptions,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  schema: S,
  extra: { query?: Query; body?: unknown } = {},
): Promise<Reply<z.output<S>>> {
  const url = buildUrl(options.baseUrl, path, extra.query);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-api-key': options.apiKey,
    'user-agent': options.userAgent ?? 'affiliated-client',
  };
  let payload: string | Uint8Array | undefined;
  if (extra.body !== undefined) {
    payload = extra.body instanceof RawJsonBody ? extra.body.content : JSON.stringify(extra.body);
    headers['content-type'] = 'application/json';
  }
  let statusCode: number;
  let responseHeaders: Headers;
  let text: string;
  try {
    const res = await request(url, { method, headers, body: payload, dispatcher: options.dispatcher });
    statusCode = res.statusCode;
    responseHeaders = res.headers;
    text = await res.body.text();
  } catch (err) {
    const code = (err as { code?: string }).code;
    const reason = (err as Error).message || code || 'network error';
    throw new ConnectionError(
      `cannot reach the daemon at ${options.baseUrl}: ${reason}`,
      code,
      options.baseUrl,
      reason,
    );
  }
  const rateLimit = rateLimitOf(responseHeaders);
  if (statusCode < 200 || statusCode > 299) {
    throw new ApiError(
      statusCode,
      messagesOf(statusCode, text),
      rateLimit,
      headerNumber(responseHeaders, 'retry-after'),
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UnexpectedResponseError(`${method} ${url} answered ${statusCode} without JSON`);
  }
  const parsed = parseWith(schema, json);
  if (!parsed.ok) {
    throw new UnexpectedResponseError(`${method} ${url} answered in an unexpected shape`, parsed.messages);
  }
  return { statusCode, body: parsed.data, rateLimit };
}

import { request } from 'undici';

/** One HTTP call to a provider: an answer (any status), or none within the time allowed. */
export type CallResult =
  | { answered: true; status: number; json: unknown; headers: Record<string, string> }
  | { answered: false; reason: string };

export interface Call {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** The exact bytes sent (amounts are written into it as decimal text, never re-encoded). */
  body?: string;
  timeoutMs: number;
}

function reasonOf(err: unknown, timeoutMs: number): string {
  let cause: unknown = err;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++) {
    const code = (cause as { code?: string }).code;
    if (cause.name === 'TimeoutError' || cause.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT') {
      return `no answer within ${timeoutMs / 1000} s`;
    }
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed by the provider';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name does not resolve';
    if (cause.cause === undefined) return code ? `network error (${code})` : 'network error';
    cause = cause.cause;
  }
  return 'network error';
}

/** JSON when the answer is JSON; the text otherwise (an HTML error page from a proxy). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The whole call, connection to the answer's last byte, ends after `timeoutMs`: a provider that
 * holds the request gives no answer, and the caller treats that as ambiguous (docs/payouts-providers.md).
 */
export async function call({ method, url, headers, body, timeoutMs }: Call): Promise<CallResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const answer = await request(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await answer.body.text();
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (typeof value === 'string') flat[name] = value;
    }
    return { answered: true, status: answer.statusCode, json: parsed(text), headers: flat };
  } catch (err) {
    return { answered: false, reason: reasonOf(err, timeoutMs) };
  }
}

/** Where a provider's base URL ends and a path begins, whatever the operator wrote. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

import { errors, request } from 'undici';
import { recorder } from './recorder.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * One request exactly as given (method, raw path and query, headers, raw body), recorded for
 * the secrets scan. `unsendable` when undici itself refuses to send it (a header value it
 * considers invalid, a path with a raw space): the daemon never saw it. `reset` when the
 * connection was cut while the request was still being written.
 */
export async function send(
  baseUrl: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Answer | 'unsendable' | 'reset'> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(`${baseUrl}${options.path}`, {
      method: options.method as 'GET',
      headers: options.headers,
      body: options.body,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
  } catch (err) {
    if (err instanceof errors.InvalidArgumentError || err instanceof TypeError) return 'unsendable';
    // The daemon answered and closed while the client was still sending (a refused upload).
    const code = (err as { code?: string }).code;
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'reset';
    throw err;
  }
  const text = await res.body.text();
  recorder.answer(res.statusCode, res.headers, text);
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** `send` for requests that must get an answer (fixtures, health checks). */
export async function ask(
  baseUrl: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Answer> {
  const answer = await send(baseUrl, options);
  if (answer === 'unsendable' || answer === 'reset') throw new Error(`${options.method} ${options.path}: ${answer}`);
  return answer;
}

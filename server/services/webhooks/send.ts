import net from 'node:net';
import { Agent, request } from 'undici';
import { signatureHeader } from '../../../shared/webhooks/signature.js';
import { guardedLookup, hostOf, isPrivateAddress, PrivateAddressError } from './address.js';

/** docs/webhooks.md: a 2xx within 10 s is success; anything else is a failed attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** The first 1 KB of an answer is kept with the attempt. */
const RESPONSE_BYTES = 1024;

export interface Outgoing {
  url: string;
  messageId: string;
  payload: string;
  /** The secrets that sign now: the current one, and the previous one during a rotation. */
  secrets: readonly string[];
}

export interface AttemptResult {
  at: Date;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  response: string | null;
}

export interface Sender {
  send(outgoing: Outgoing, signal: AbortSignal): Promise<AttemptResult>;
  close(): Promise<void>;
}

function reasonOf(err: unknown): string {
  let cause: unknown = err;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++) {
    if (cause instanceof PrivateAddressError) return `refused: ${cause.message}`;
    const code = (cause as { code?: string }).code;
    if (cause.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
    }
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name does not resolve';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed by the receiver';
    if (cause.cause === undefined) return code ? `${cause.message} (${code})` : cause.message;
    cause = cause.cause;
  }
  return 'network error';
}

/** Reads at most the first KB of a body and drops the rest. */
async function firstKilobyte(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8');
}

/**
 * One signed POST, no redirects followed (undici's request never follows them). Unless private
 * networks are allowed, the resolved address is checked as the socket connects.
 */
export function createSender(options: { allowPrivateNetworks: boolean }): Sender {
  const agent = new Agent({
    headersTimeout: ATTEMPT_TIMEOUT_MS,
    bodyTimeout: ATTEMPT_TIMEOUT_MS,
    connect: options.allowPrivateNetworks ? {} : { lookup: guardedLookup },
  });

  async function send(outgoing: Outgoing, signal: AbortSignal): Promise<AttemptResult> {
    const at = new Date();
    const started = performance.now();
    const finish = (result: Omit<AttemptResult, 'at' | 'durationMs'>): AttemptResult => ({
      at,
      durationMs: Math.round(performance.now() - started),
      ...result,
    });
    try {
      const url = new URL(outgoing.url);
      const host = hostOf(url);
      // An IP literal connects without a lookup, so it is judged here.
      if (!options.allowPrivateNetworks && net.isIP(host) && isPrivateAddress(host)) {
        throw new PrivateAddressError(host, host);
      }
      const timestamp = Math.floor(at.getTime() / 1000);
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal: AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'affiliated-webhooks/0.1.0',
          'webhook-id': outgoing.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(outgoing.secrets, outgoing.messageId, timestamp, outgoing.payload),
        },
        body: outgoing.payload,
      });
      const ok = res.statusCode >= 200 && res.statusCode <= 299;
      const response = await firstKilobyte(res.body).catch(() => '');
      return finish({ ok, statusCode: res.statusCode, error: null, response });
    } catch (err) {
      return finish({ ok: false, statusCode: null, error: reasonOf(err).slice(0, 500), response: null });
    }
  }

  return { send, close: () => agent.close() };
}

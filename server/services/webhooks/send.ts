import net from 'node:net';
import { Agent, request } from 'undici';
import { signatureHeader } from '../../../shared/webhooks/signature.js';
import { guardedLookup, hostOf, isPrivateAddress, PrivateAddressError } from './address.js';

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

/** `10 s`, `2.5 s`: how docs/webhooks.md and the attempts say a timeout. */
function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** A URL the daemon never sends to, whatever its address: said as the attempt's error. */
class RefusedUrlError extends Error {}

/** Checked at every attempt, also for endpoints stored before registration refused these. */
function refusedUrl(url: URL): string | undefined {
  if (url.username !== '' || url.password !== '')
    return 'the URL holds a user name or password, which webhooks never send';
  if (url.port === '0') return 'port 0 cannot be connected to';
  return undefined;
}

function reasonOf(err: unknown, timeoutMs: number): string {
  let cause: unknown = err;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++) {
    if (cause instanceof PrivateAddressError || cause instanceof RefusedUrlError) return `refused: ${cause.message}`;
    const code = (cause as { code?: string }).code;
    if (cause.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return `no answer within ${seconds(timeoutMs)}`;
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

/** Reads at most the first KB of a body (to its end, if shorter) and drops the rest. */
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
 * networks are allowed, the resolved address is checked as the socket connects. The whole
 * exchange (connection, request, status and the answer's first KB or its end) has one deadline,
 * `attemptTimeoutMs`: a receiver that answers and then trickles its body is cut there, and the
 * attempt has failed (docs/webhooks.md: the lease always outlasts an attempt).
 */
export function createSender(options: { allowPrivateNetworks: boolean; attemptTimeoutMs: number }): Sender {
  const timeoutMs = options.attemptTimeoutMs;
  const agent = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs, ...(options.allowPrivateNetworks ? {} : { lookup: guardedLookup }) },
  });

  async function send(outgoing: Outgoing, signal: AbortSignal): Promise<AttemptResult> {
    const at = new Date();
    const started = performance.now();
    const finish = (result: Omit<AttemptResult, 'at' | 'durationMs'>): AttemptResult => ({
      at,
      durationMs: Math.round(performance.now() - started),
      ...result,
    });
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      const url = new URL(outgoing.url);
      const refused = refusedUrl(url);
      if (refused) throw new RefusedUrlError(refused);
      const host = hostOf(url);
      // An IP literal connects without a lookup, so it is judged here.
      if (!options.allowPrivateNetworks && net.isIP(host) && isPrivateAddress(host)) {
        throw new PrivateAddressError(host, host);
      }
      const timestamp = Math.floor(at.getTime() / 1000);
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal: AbortSignal.any([signal, deadline]),
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
      try {
        const response = await firstKilobyte(res.body);
        return finish({ ok, statusCode: res.statusCode, error: null, response });
      } catch {
        // The status came, the body did not (in time, or at all): the exchange did not complete.
        const error = deadline.aborted
          ? `the answer’s body did not arrive within ${seconds(timeoutMs)}`
          : 'the connection closed before the answer’s body was read';
        return finish({ ok: false, statusCode: res.statusCode, error, response: null });
      }
    } catch (err) {
      return finish({ ok: false, statusCode: null, error: reasonOf(err, timeoutMs).slice(0, 500), response: null });
    }
  }

  return { send, close: () => agent.close() };
}

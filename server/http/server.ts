import { createServer, type IncomingMessage, maxHeaderSize, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, MESSAGES, statusName } from '../../shared/errors.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Node checks its request and header timeouts on this beat (its default, 30 s, would stretch them). */
const TIMEOUT_CHECK_MS = 250;

/**
 * The HTTP server of the daemon, with the timeouts of `config.http` (Node's own defaults let a
 * body that never arrives hold a connection for 300 s) and an answer in the spec's error shape
 * for every request Node's parser refuses before Koa sees it.
 */
export function createHttpServer(handler: Handler, config: Readonly<Config>, logger: Logger): Server {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = config.http;
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeoutMs),
    },
    handler,
  );
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    answerClientError(err, socket, config, logger);
  });
  return server;
}

interface PendingResponse {
  _httpMessage?: { headersSent?: boolean } | null;
}

function refusal(code: string | undefined, config: Readonly<Config>): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: MESSAGES.headersTooLarge(maxHeaderSize) };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      message: MESSAGES.requestTimeout(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
    };
  }
  return { status: 400, message: MESSAGES.malformedRequest };
}

/**
 * Node's own answer to these is a bare status line. Ours has the spec's body and closes the
 * connection, as Node does: after a parse error nothing else on it can be trusted. Only the
 * error code is logged; the raw bytes may hold a key.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, config: Readonly<Config>, logger: Logger): void {
  const pending = (socket as Duplex & PendingResponse)._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, message } = refusal(err.code, config);
  logger.info('request refused by the HTTP parser', { status, code: err.code });
  const body = JSON.stringify(errorBody(status, message));
  socket.end(
    `HTTP/1.1 ${status} ${statusName(status)}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

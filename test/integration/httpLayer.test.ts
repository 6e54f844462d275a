import net from 'node:net';
import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import type { Daemon } from '../../server/main.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';

interface RawReply {
  status: number;
  headers: string;
  body: unknown;
  /** Milliseconds from the first byte sent to the end of the connection. */
  ms: number;
}

/**
 * Writes bytes to the daemon over a plain socket (for what an HTTP client library refuses to
 * send) and reads until the server closes the connection or `waitMs` passes.
 */
function rawRequest(url: string, chunks: string[], waitMs = 8000): Promise<RawReply | 'still open'> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('still open');
    }, waitMs);
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    socket.on('data', (data) => {
      received += data.toString('utf8');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const [head = '', text = ''] = received.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      if (!received) reject(new Error('connection closed without an answer'));
      else resolve({ status, headers: head, body, ms: Date.now() - started });
    });
  });
}

describe(`the HTTP layer answers every refusal in the spec's shape (${ENGINE})`, () => {
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  const logLines: string[] = [];

  before(async () => {
    database = await createTestDatabase();
    daemon = await startTestDaemon(
      database.url,
      { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1500' },
      { logger: createLogger('debug', (line) => logLines.push(line)) },
    );
    merchant = await createMerchant(database.db);
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });
  beforeEach(() => {
    logLines.length = 0;
  });

  describe('methods no route has', () => {
    for (const method of ['PROPFIND', 'PURGE', 'SEARCH', 'QUERY', 'TRACE', 'MKCOL']) {
      it(`${method} is 501 on every path, without a key, and is no error in the log`, async () => {
        for (const path of ['/v1/affiliates', '/v1/affiliates/1', '/v1/events', '/nope']) {
          const reply = await call(daemon.url, method, path);
          expect(reply.status, `${method} ${path}`).to.equal(501);
          expect(reply.body).to.deep.equal({
            statusCode: 501,
            message: `${method} is not supported: the API answers GET, POST, PUT, PATCH, DELETE and OPTIONS`,
            error: 'Not Implemented',
          });
        }
        const levels = logLines.map((line) => JSON.parse(line).level);
        expect(levels).to.not.include('error');
        expect(logLines.join('\n')).to.not.match(/stack|at \w+ \(/);
      });
    }

    it('a method the path does not have is 405 naming the methods it has', async () => {
      const reply = await call(daemon.url, 'PUT', '/v1/affiliates/1', { key: merchant.key, body: {} });
      expect(reply.status).to.equal(405);
      expect(reply.headers.allow).to.equal('HEAD, GET, PATCH, DELETE');
      expect(reply.body).to.deep.equal({
        statusCode: 405,
        message: 'PUT is not allowed on /v1/affiliates/1: use HEAD, GET, PATCH, DELETE',
        error: 'Method Not Allowed',
      });
    });
  });

  describe("requests Node's HTTP parser refuses", () => {
    it('a 100 KB header is 431 with the spec’s body', async () => {
      const reply = await rawRequest(daemon.url, [
        `GET /v1/affiliates HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(100 * 1024)}\r\n\r\n`,
      ]);
      expect(reply).to.not.equal('still open');
      if (reply === 'still open') return;
      expect(reply.status).to.equal(431);
      expect(reply.headers).to.match(/content-type: application\/json/i);
      expect(reply.body).to.deep.equal({
        statusCode: 431,
        message: 'Request headers must not be larger than 16384 bytes in all',
        error: 'Request Header Fields Too Large',
      });
    });

    for (const [name, line] of [
      ['a raw space in the target', 'GET /v1/a b HTTP/1.1'],
      ['a lower-case method', 'get /v1/affiliates HTTP/1.1'],
      ['a header without a colon', 'GET /v1/affiliates HTTP/1.1\r\nBroken header'],
    ] as const) {
      it(`${name} is 400 with the spec’s body`, async () => {
        const reply = await rawRequest(daemon.url, [`${line}\r\nHost: x\r\n\r\n`]);
        expect(reply).to.not.equal('still open');
        if (reply === 'still open') return;
        expect(reply.status).to.equal(400);
        expect(reply.body).to.deep.equal({
          statusCode: 400,
          message: 'Malformed HTTP request: check the request line and the headers',
          error: 'Bad Request',
        });
      });
    }
  });

  describe('timeouts a slow client cannot stretch', () => {
    const timedOut = {
      statusCode: 408,
      message: 'Request timed out: send the headers within 1000 ms and the whole request within 1500 ms',
      error: 'Request Timeout',
    };

    it('a body that promises more bytes than it sends is cut at REQUEST_TIMEOUT_MS with a 408', async () => {
      const reply = await rawRequest(daemon.url, [
        `POST /v1/events HTTP/1.1\r\nHost: x\r\nX-API-Key: ${merchant.key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"events":',
      ]);
      expect(reply).to.not.equal('still open');
      if (reply === 'still open') return;
      expect(reply.status).to.equal(408);
      expect(reply.body).to.deep.equal(timedOut);
      expect(reply.ms).to.be.within(1400, 4000);
    });

    it('headers that never end are cut at HEADERS_TIMEOUT_MS with a 408', async () => {
      const reply = await rawRequest(daemon.url, ['GET /v1/affiliates HTTP/1.1\r\nHost: x\r\n']);
      expect(reply).to.not.equal('still open');
      if (reply === 'still open') return;
      expect(reply.status).to.equal(408);
      expect(reply.body).to.deep.equal(timedOut);
      expect(reply.ms).to.be.within(900, 3500);
    });

    it('the defaults bound every phase of a request', async () => {
      const plain = await startTestDaemon(database.url);
      try {
        expect(plain.server.headersTimeout).to.equal(10_000);
        expect(plain.server.requestTimeout).to.equal(30_000);
        expect(plain.server.keepAliveTimeout).to.equal(5_000);
      } finally {
        await plain.close();
      }
    });
  });
});

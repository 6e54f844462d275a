import net from 'node:net';
import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';

const HUNDRED_MB = 100 * 1024 * 1024;

interface Upload {
  /** The status line and body of the answer, if one came. */
  status: number | undefined;
  body: string;
  /** Bytes of the body written before the answer arrived, and in all before the connection ended. */
  sentBeforeAnswer: number;
  sentInAll: number;
}

/**
 * Announces a 100 MB body and sends it as fast as the socket takes it, until the daemon answers
 * and closes the connection, or until 10 s have passed.
 */
function upload(base: string, path: string, key: string): Promise<Upload> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    let sentBeforeAnswer: number | undefined;
    let answer = '';
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve({
        status: status === undefined ? undefined : Number(status),
        body: answer.slice(answer.indexOf('\r\n\r\n') + 4),
        sentBeforeAnswer: sentBeforeAnswer ?? sent,
        sentInAll: sent,
      });
    };
    const timer = setTimeout(finish, 10_000);
    const pump = () => {
      while (!finished && sent < HUNDRED_MB) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-API-Key: ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${HUNDRED_MB}\r\n\r\n`,
      );
      pump();
    });
    socket.on('data', (data) => {
      sentBeforeAnswer ??= sent;
      answer += data.toString('utf8');
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

describe(`routes that take no body refuse one before acting (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '600000' });

  const register = async () => {
    const res = await call(t.url, 'POST', '/v1/webhooks', {
      key: t.merchant.key,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['affiliate.created'] },
    });
    expect(res.status).to.equal(201);
    return res.body as { id: number };
  };
  const secretOf = async (id: number) =>
    (await t.db('webhook_endpoints').where('id', id).first<{ secret_enc: string }>('secret_enc')).secret_enc;

  it('rotate-secret, test and retry answer 413 to a 100 MB body without reading it, and do nothing', async () => {
    const { id } = await register();
    await call(t.url, 'POST', `/v1/webhooks/${id}/test`, { key: t.merchant.key });
    const [delivery] = await t.db('webhook_deliveries').select('id');
    const secret = await secretOf(id);
    const messages = await t.db('webhook_messages').count({ n: '*' }).first();

    for (const path of [
      `/v1/webhooks/${id}/rotate-secret`,
      `/v1/webhooks/${id}/test`,
      `/v1/webhooks/${id}/deliveries/${delivery?.id}/retry`,
    ]) {
      const sent = await upload(t.url, path, t.merchant.key);
      expect(sent.status, path).to.equal(413);
      expect(JSON.parse(sent.body), path).to.deep.equal({
        statusCode: 413,
        message: MESSAGES.bodyNotAccepted,
        error: 'Payload Too Large',
      });
      // Answered at once, and the connection closed rather than drained.
      expect(sent.sentBeforeAnswer, path).to.be.below(4 * 1024 * 1024);
      expect(sent.sentInAll, path).to.be.below(16 * 1024 * 1024);
    }
    expect(await secretOf(id)).to.equal(secret);
    expect(await t.db('webhook_messages').count({ n: '*' }).first()).to.deep.equal(messages);
  });

  it('an empty body (Content-Length: 0) is no body: the route acts as usual', async () => {
    const { id } = await register();
    const res = await call(t.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, {
      key: t.merchant.key,
      headers: { 'content-length': '0' },
    });
    expect(res.status).to.equal(200);
    const withJson = await call(t.url, 'POST', `/v1/webhooks/${id}/test`, { key: t.merchant.key, body: {} });
    expect(withJson.status).to.equal(413);
    expect(withJson.body.message).to.equal(MESSAGES.bodyNotAccepted);
  });
});

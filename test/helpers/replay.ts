import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../../server/db/knex.js';

import { call } from './http.js';

/** A temp folder for files a test writes (config, NDJSON, rejects, checkpoints). */
export function tempDir(): { dir: string; file: (name: string) => string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-cli-'));
  return {
    dir,
    file: (name) => path.join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Writes lines through a stream, so a large generated file never sits in the test's memory. */
export async function writeLines(file: string, count: number, line: (n: number) => string): Promise<void> {
  const out = createWriteStream(file);
  for (let n = 1; n <= count; n++) {
    if (!out.write(`${line(n)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** An affiliate made through the API, as a merchant would. */
export async function makeAffiliate(
  baseUrl: string,
  key: string,
  fields: { email: string; referralId?: string; status?: string; name?: string },
): Promise<{ id: number; referralId: string }> {
  const reply = await call(baseUrl, 'POST', '/v1/affiliates', {
    key,
    body: { password: 'secret123', ...fields },
  });
  if (reply.status !== 201) throw new Error(`affiliate not created: ${reply.status} ${reply.text}`);
  return reply.body;
}

export async function countRows(db: Db, table: string, campaignId: number): Promise<number> {
  const [row] = await db(table).where('campaign_id', campaignId).count<{ n: number | string }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}

/**
 * A pass-through HTTP proxy in front of one daemon, or a load balancer in front of several
 * (round robin), that counts the `POST /v1/events` requests it forwards: what the daemons were
 * asked, whatever the client reports about itself. Like a load balancer's passive health check,
 * a daemon that answered 503 (its database is down) or could not be reached gets no request
 * for the next second, while another one can take it.
 */
export async function countingProxy(targets: string | readonly string[]): Promise<{
  url: string;
  eventPosts: () => number;
  /** Requests each target answered, by index. */
  answered: () => number[];
  /** Of those, the ones answered 5xx. */
  failed: () => number[];
  close: () => Promise<void>;
}> {
  const http = await import('node:http');
  const upstreams = (typeof targets === 'string' ? [targets] : targets).map((target) => new URL(target));
  const resting = upstreams.map(() => 0);
  const answered = upstreams.map(() => 0);
  const failed = upstreams.map(() => 0);
  let next = 0;
  let posts = 0;
  const pick = () => {
    const now = Date.now();
    for (let tried = 0; tried < upstreams.length; tried++) {
      const i = next++ % upstreams.length;
      if ((resting[i] ?? 0) <= now) return i;
    }
    return next++ % upstreams.length;
  };
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/v1/events')) posts++;
    const i = pick();
    const upstream = upstreams[i] as URL;
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        answered[i] = (answered[i] ?? 0) + 1;
        if ((answer.statusCode ?? 502) >= 500) failed[i] = (failed[i] ?? 0) + 1;
        if (answer.statusCode === 503) resting[i] = Date.now() + 1000;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      resting[i] = Date.now() + 1000;
      res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    eventPosts: () => posts,
    answered: () => [...answered],
    failed: () => [...failed],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls a checkpoint file until its line reaches `line` (or the run ends first). */
export async function waitForCheckpoint(file: string, line: number, running: () => boolean): Promise<void> {
  const { existsSync, readFileSync } = await import('node:fs');
  for (;;) {
    if (!running()) return;
    if (existsSync(file)) {
      try {
        if (JSON.parse(readFileSync(file, 'utf8')).line >= line) return;
      } catch {
        // Mid-rename: read again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The baseline server, run as a child process by bench/lib/bareKoa.ts: Koa and nothing else, on
 * a loopback port. POST reads and parses the JSON body, as any JSON API must, and answers what
 * the daemon answers a batch it stored whole (`{"success":true,"received":n,"accepted":n,
 * "skipped":[]}`); GET answers, by path, the JSON the daemon answered for it (a file named by
 * BARE_KOA_GET_BODIES, written by the part), else a fixed object the size of an affiliate. Koa
 * serialises it on every request, as the daemon does. What the daemon does beyond this (keys,
 * rate limit, validation, the database, the request log) is what the ratio measures. With
 * BARE_KOA_REDIRECT, every GET is a 302 to that address (the referral link's baseline).
 *
 * Prints `{"url":"http://127.0.0.1:PORT"}` on stdout once it listens; stops on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import getRawBody from 'raw-body';

const AFFILIATE = {
  id: 12345,
  name: 'Affiliate 12345',
  email: 'aff12345@example.com',
  referralId: 'MARIA10',
  phone: null,
  status: 'active',
  totalConversions: 12,
  totalCommissions: 120.5,
  totalPaid: 50,
  createdAt: '2026-11-01T12:00:00.000Z',
  updatedAt: '2026-11-01T12:00:00.000Z',
};

const bodiesFile = process.env.BARE_KOA_GET_BODIES;
const bodies = new Map<string, unknown>(
  Object.entries(bodiesFile ? (JSON.parse(readFileSync(bodiesFile, 'utf8')) as Record<string, unknown>) : {}),
);

const redirectTo = process.env.BARE_KOA_REDIRECT;

const app = new Koa();
app.use(async (ctx) => {
  if (redirectTo) {
    ctx.redirect(redirectTo);
  } else if (ctx.method === 'POST') {
    const text = await getRawBody(ctx.req, { limit: '2mb', encoding: 'utf8' });
    const { events } = JSON.parse(text) as { events?: unknown[] };
    const received = Array.isArray(events) ? events.length : 0;
    ctx.body = { success: true, received, accepted: received, skipped: [] };
  } else {
    ctx.body = bodies.size > 0 ? bodies.get(ctx.path) : AFFILIATE;
  }
});

const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

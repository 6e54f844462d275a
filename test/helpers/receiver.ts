import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';

export interface Received {
  /** The request's path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers its n-th request (from 1): a status, or `hang` to never answer. */
export type Answer = number | 'hang';

/**
 * A real webhook receiver on loopback: records every request as it came (headers and raw
 * body) and answers as the test says, so signatures are checked on the exact bytes sent.
 */
export class Receiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  private waiters: Array<() => void> = [];
  private hung: Array<() => void> = [];
  /** Requests being answered now, and the most there ever were at once. */
  open = 0;
  maxOpen = 0;
  url = '';

  constructor(private answer: (n: number, body: string) => Answer = () => 200) {}

  respond(answer: (n: number, body: string) => Answer): void {
    this.answer = answer;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ url: req.url ?? '', headers: req.headers, body, at: Date.now() });
        this.open++;
        this.maxOpen = Math.max(this.maxOpen, this.open);
        for (const wake of this.waiters.splice(0)) wake();
        const reply = (status: number) => {
          this.open--;
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
        };
        const answer = this.answer(this.received.length, body);
        if (answer === 'hang') this.hung.push(() => reply(200));
        else reply(answer);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/hooks`;
    return this;
  }

  /** Resolves once `count` requests came (matching `filter`), or fails after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 15_000, filter: (r: Received) => boolean = () => true): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = this.received.filter(filter);
      if (matching.length >= count) return matching;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the receiver got ${matching.length} of ${count} requests in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Answers 200 to every request left hanging so far. */
  releaseHung(): void {
    for (const answer of this.hung.splice(0)) answer();
  }

  payloads(): Array<{ type: string; timestamp: string; data: Record<string, unknown> }> {
    return this.received.map((r) => JSON.parse(r.body));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Whether the independent Standard Webhooks library accepts the request as signed with this secret. */
export function signedWith(secret: string, request: Received | undefined): boolean {
  if (!request) throw new Error('no request');
  try {
    new StandardWebhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** A request as the fake received it. */
export interface FakeRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A fault for the next request that matches: `hang` holds it until the fake closes; `status`
 * answers that status with the provider's error body. `processed`: the provider did the work
 * first (the transfer exists, its answer is what got lost) or not at all.
 */
export interface Fault {
  kind: 'hang' | 'status';
  status?: number;
  processed: boolean;
  matches?: (req: FakeRequest) => boolean;
}

/**
 * The loopback HTTP server under each provider fake: records requests, applies delays and
 * faults, and leaves the provider's rules to the subclass's `handle`.
 */
export abstract class FakeProvider {
  readonly requests: FakeRequest[] = [];
  url = '';
  /** Every answer waits this long (a provider that answers in 50 ms). */
  delayMs = 0;
  private faults: Fault[] = [];
  private server: Server | undefined;
  private held: ServerResponse[] = [];

  protected abstract handle(req: FakeRequest): FakeReply | Promise<FakeReply>;
  /** The body of a 5xx in the provider's own error shape. */
  protected abstract serverError(status: number): unknown;

  fault(fault: Fault): this {
    this.faults.push(fault);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.receive(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  /** Ends held requests by closing their connections, then stops listening. */
  async close(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const incoming: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(incoming);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const index = this.faults.findIndex((fault) => fault.matches?.(incoming) ?? true);
    const fault = index >= 0 ? this.faults.splice(index, 1)[0] : undefined;
    let reply: FakeReply | undefined;
    if (!fault || fault.processed) reply = await this.handle(incoming);
    if (fault?.kind === 'hang') {
      this.held.push(res);
      return;
    }
    if (fault?.kind === 'status') reply = { status: fault.status ?? 500, body: this.serverError(fault.status ?? 500) };
    const answer = reply ?? { status: 500, body: this.serverError(500) };
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status, {
      'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json',
      ...answer.headers,
    });
    res.end(text);
  }
}

/** POSTs a provider's callback to the daemon, as the provider would. */
export async function postCallback(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const answer = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  await answer.body.dump();
  return answer.statusCode;
}

/** Ids in a provider's style, unique within a run. */
let counter = 0;
export function fakeId(prefix: string, length = 16): string {
  counter++;
  const tail = `${Date.now().toString(36)}${counter.toString(36)}`.toUpperCase().padStart(length, '0');
  return `${prefix}${tail.slice(-length)}`;
}

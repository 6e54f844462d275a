import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { call } from './http.js';

/** A throwaway self-signed certificate for `shop.test`, for the https shop only (never trusted). */
const TLS = {
  cert: readFileSync(new URL('../fixtures/shop.test.crt', import.meta.url)),
  key: readFileSync(new URL('../fixtures/shop.test.key', import.meta.url)),
};

export interface ShopOptions {
  /** Where the page loads the script from: the daemon's origin; by default the shop's `/affiliated` proxy. */
  scriptBase?: string;
  /** The daemon, for the proxy and for the backend's conversion call. */
  daemonUrl: string;
  apiKey: string;
  campaign: string;
  https?: boolean;
}

export interface Shop {
  url: string;
  /** `data-*` attributes of the script tag on the next page served (besides data-campaign). */
  attributes: Record<string, string>;
  /** What the backend's conversion calls sent and got, in order. */
  conversions: { code: string | null; formCode: string | null; status: number; body: unknown }[];
  close(): Promise<void>;
}

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

/** The merchant's backend as docs/tracking.md shows it for a plain HTTP server: read the cookie. */
function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return null;
}

/**
 * A merchant's site on its own loopback origin: `/shop/` (a page with the tracking script and a
 * checkout form), `/checkout` (the backend: reads `affiliated_ref` and reports the conversion
 * with its API key, server to server), and `/affiliated/*` (a reverse proxy to the daemon, as a
 * merchant may mount it under their own domain).
 */
export async function startShop(options: ShopOptions): Promise<Shop> {
  const shop: Shop = { url: '', attributes: {}, conversions: [], close: async () => undefined };

  function page(res: ServerResponse): void {
    const attributes = Object.entries(shop.attributes)
      .map(([name, value]) => ` data-${name}="${escape(value)}"`)
      .join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html>
<html><head><title>Shop</title>
<script src="${escape(options.scriptBase ?? `${shop.url}/affiliated`)}/v1/sdk/tracker.js" data-campaign="${escape(options.campaign)}"${attributes} defer></script>
</head><body>
<h1>Shop</h1>
<form id="checkout" method="post" action="/checkout">
  <input type="hidden" name="affiliated_ref">
  <input name="order_id" value="">
  <input name="order_value" value="">
  <button type="submit">Buy</button>
</form>
<p><a id="payment-link" href="https://buy.stripe.com/test_8wM5kF3aB">Subscribe with Stripe</a>
<a id="own-reference" href="https://buy.stripe.com/test_4gA9cR?client_reference_id=CART7">Pay cart 7</a></p>
<stripe-buy-button id="buy-button" buy-button-id="buy_btn_1Qc" publishable-key="pk_test_51Qc"></stripe-buy-button>
</body></html>`);
  }

  async function checkout(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const code = cookie(req, 'affiliated_ref');
    const entry: Shop['conversions'][number] = {
      code,
      formCode: form.get('affiliated_ref'),
      status: 0,
      body: null,
    };
    if (code) {
      const reply = await call(options.daemonUrl, 'POST', '/v1/events', {
        key: options.apiKey,
        body: {
          events: [
            {
              event_type: 'conversion',
              campaign_id: options.campaign,
              affiliate_id: code,
              properties: { order_id: form.get('order_id'), order_value: Number(form.get('order_value')) },
            },
          ],
        },
      });
      entry.status = reply.status;
      entry.body = reply.body;
    }
    shop.conversions.push(entry);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><p id="thanks">Thank you</p>');
  }

  function proxy(req: IncomingMessage, res: ServerResponse): void {
    const target = new URL(options.daemonUrl);
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: (req.url ?? '/').replace(/^\/affiliated/, ''),
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/affiliated/')) return proxy(req, res);
    if (path === '/checkout' && req.method === 'POST') {
      checkout(req, res).catch(() => {
        res.writeHead(500);
        res.end();
      });
      return;
    }
    if (path === '/shop/' || path === '/shop/cart') return page(res);
    res.writeHead(404);
    res.end();
  };
  const server: Server = options.https ? createHttpsServer(TLS, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  shop.url = `${options.https ? 'https' : 'http'}://shop.test:${port}`;
  shop.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return shop;
}

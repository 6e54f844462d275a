import { expect } from 'chai';
import type { Merchant } from './daemon.js';
import { conversion } from './events.js';
import { call } from './http.js';

/** The lifecycle API of one merchant over HTTP, as a merchant's backend calls it. */
export function lifecycleApi(url: () => string, merchant: () => Merchant) {
  const api = (method: string, path: string, body?: unknown, key = merchant().key) =>
    call(url(), method, path, { key, body });

  /** Conversions arrive the way they do in production: POST /v1/events, up to 1,000 a request. */
  async function send(code: string, orders: ReadonlyArray<readonly [string, number]>): Promise<void> {
    for (let start = 0; start < orders.length; start += 1000) {
      const events = orders
        .slice(start, start + 1000)
        .map(([orderId, value]) => conversion(merchant().publicId, code, orderId, value));
      const reply = await api('POST', '/v1/events', { events });
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.body.accepted, reply.text).to.equal(events.length);
    }
  }

  /** A few conversions sent, and their ids, in the order given. */
  async function arrive(code: string, orders: ReadonlyArray<readonly [string, number]>): Promise<number[]> {
    await send(code, orders);
    const ids: number[] = [];
    for (const [orderId] of orders) {
      const found = await api('GET', `/v1/conversions?orderId=${encodeURIComponent(orderId)}`);
      expect(found.body.conversions, orderId).to.have.length(1);
      ids.push(found.body.conversions[0].id);
    }
    return ids;
  }

  const setStatus = (id: number, status: string) => api('PATCH', `/v1/conversions/${id}`, { status });
  const refund = (orderId: string, reason?: string) =>
    api('POST', '/v1/refunds', reason === undefined ? { order_id: orderId } : { order_id: orderId, reason });
  const payout = (affiliateId: number) => api('POST', '/v1/payouts', { affiliateId });
  const settle = (id: number, status: 'paid' | 'failed') => api('PATCH', `/v1/payouts/${id}`, { status });
  const affiliate = async (id: number) => (await api('GET', `/v1/affiliates/${id}`)).body;

  /** Approves by id and checks each was approved. */
  async function approve(...ids: number[]) {
    const reply = await api('POST', '/v1/conversions/bulk', { status: 'approved', ids });
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.body.updated, reply.text).to.equal(ids.length);
  }

  return { api, send, arrive, setStatus, refund, payout, settle, affiliate, approve };
}

export const conflict = (message: string) => ({ statusCode: 409, message, error: 'Conflict' });
export const notFound = (message: string) => ({ statusCode: 404, message, error: 'Not Found' });
export const badRequest = (message: string | string[]) => ({ statusCode: 400, message, error: 'Bad Request' });

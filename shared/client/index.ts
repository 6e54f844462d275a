import {
  type Affiliate,
  type AffiliateList,
  type AffiliateStatus,
  affiliateListSchema,
  affiliateSchema,
  type CreateAffiliateInput,
  type UpdateAffiliateInput,
} from '../schemas/affiliate.js';
import { deleteResponseSchema } from '../schemas/common.js';
import { type EventsResponse, eventsResponseSchema } from '../schemas/event.js';
import { type ClientOptions, callApi, type Reply } from './http.js';

export { ApiError, ConnectionError, type RateLimitInfo, UnexpectedResponseError } from './errors.js';
export type { ClientOptions, Reply } from './http.js';

export interface ListAffiliatesParams {
  status?: AffiliateStatus;
  search?: string;
  page?: number;
  limit?: number;
}

/**
 * The typed `/v1` client shared by the CLI and anyone scripting against the daemon. Answers are
 * parsed with the same zod schemas the server validates with (style.md: one contract, three uses).
 */
export interface ApiClient {
  readonly baseUrl: string;
  affiliates: {
    list(params?: ListAffiliatesParams): Promise<AffiliateList>;
    get(id: number): Promise<Affiliate>;
    create(input: CreateAffiliateInput): Promise<Affiliate>;
    update(id: number, input: UpdateAffiliateInput): Promise<Affiliate>;
    remove(id: number): Promise<{ success: boolean; message: string }>;
  };
  events: {
    /**
     * spec 4.6. Events go as given (not re-serialised through the schema) so the server judges
     * exactly what the caller has; the whole reply is returned for its rate-limit headers.
     */
    send(events: readonly object[], options?: { batch?: boolean }): Promise<Reply<EventsResponse>>;
  };
}

export function createApiClient(options: ClientOptions): ApiClient {
  const body = async <T>(reply: Promise<Reply<T>>): Promise<T> => (await reply).body;
  return {
    baseUrl: options.baseUrl,
    affiliates: {
      list: (params = {}) =>
        body(callApi(options, 'GET', '/v1/affiliates', affiliateListSchema, { query: { ...params } })),
      get: (id) => body(callApi(options, 'GET', `/v1/affiliates/${id}`, affiliateSchema)),
      create: (input) => body(callApi(options, 'POST', '/v1/affiliates', affiliateSchema, { body: input })),
      update: (id, input) =>
        body(callApi(options, 'PATCH', `/v1/affiliates/${id}`, affiliateSchema, { body: input })),
      remove: (id) => body(callApi(options, 'DELETE', `/v1/affiliates/${id}`, deleteResponseSchema)),
    },
    events: {
      send: (events, { batch } = {}) =>
        callApi(options, 'POST', '/v1/events', eventsResponseSchema, {
          body: batch === undefined ? { events } : { batch, events },
        }),
    },
  };
}

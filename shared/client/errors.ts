/**
 * What the API client throws. `ApiError` carries the spec's error body (spec §7) already
 * split into messages, plus the rate-limit headers so a caller can pace itself or wait.
 * cli/main.ts prints it as `error <status>: <messages>`.
 */

/** `X-RateLimit-*` of an answer (spec §10.10: `resetSeconds` is whole seconds until the window resets). */
export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
  resetSeconds?: number;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly statusCode: number,
    readonly messages: string[],
    readonly rateLimit: RateLimitInfo = {},
    /** `Retry-After` in seconds, when the answer carried one (429). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${statusCode}: ${messages.join('; ')}`);
  }
}

/** The daemon could not be reached or the connection broke: worth retrying. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  constructor(
    message: string,
    readonly code?: string,
    /** The address that was called and the transport's own words, for a caller's own message. */
    readonly baseUrl?: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** A 2xx answer that does not match the contract: probably not an affiliated daemon at that address. */
export class UnexpectedResponseError extends Error {
  override name = 'UnexpectedResponseError';
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

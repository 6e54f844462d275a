import { MESSAGES } from '../shared/errors.js';

/** Every error a user can cause. The error middleware maps `status` to the spec's body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string | string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(Array.isArray(messages) ? messages.join('; ') : messages);
    this.name = new.target.name;
  }
}

export class ValidationError extends HttpError {
  constructor(messages: string | string[]) {
    super(400, messages);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message: string) {
    super(401, message);
  }
}

export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

/** The connection is closed after the answer: what is left of the body is never read. */
export class PayloadTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super(413, MESSAGES.bodyTooLarge(limitBytes), { Connection: 'close' });
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor() {
    super(415, MESSAGES.unsupportedMediaType);
  }
}

/** The daemon cannot start (database, Redis or port): one line for the operator, exit 1. */
export class StartupError extends Error {
  override name = 'StartupError';
}

export class ServiceUnavailableError extends HttpError {
  constructor(message: string) {
    super(503, message);
  }
}

/** Too many attempts (the portal's log-in throttling): answered with `Retry-After`. */
export class TooManyRequestsError extends HttpError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message, { 'Retry-After': String(retryAfterSeconds) });
  }
}

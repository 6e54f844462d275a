import { type ApiClient, ApiError, ConnectionError, RawJsonBody } from '../../../../shared/client/index.js';
import { contract } from '../../../../shared/contract/index.js';
import type { EventsResponse } from '../../../../shared/schemas/event.js';
import type { Clock } from './clock.js';
import type { Pacer } from './pacer.js';
import { backoffMs, MAX_RATE_LIMITED_RETRIES, sendPaced } from '../../../rateLimit.js';
import { StopRun } from './stop.js';

export { backoffMs, MAX_RATE_LIMITED_RETRIES } from '../../../rateLimit.js';
/** Retries of one request after 5xx or network failures before the run stops. */
export const MAX_FAILURE_RETRIES = 5;

export interface RetryStats {
  requests: number;
  rateLimited: number;
  serverErrors: number;
  networkErrors: number;
}

export interface Transport {
  /**
   * One batch, its request body already written (body.ts), retried until it gets an answer; 400
   * and 413 are thrown for the caller to split. `signal` cuts a wait for the rate limit short
   * (AbortError): the batch was then not sent.
   */
  post(body: Uint8Array, signal?: AbortSignal): Promise<EventsResponse>;
  readonly stats: RetryStats;
}

/**
 * Sending is safe to repeat (every event carries an `event_id`, spec §10.7), so transient
 * failures are retried; 401/403 and anything else unexpected stop the run at once.
 */
export function retryingTransport(
  client: ApiClient,
  pacer: Pacer,
  clock: Clock,
  say: (text: string) => void,
): Transport {
  const stats: RetryStats = { requests: 0, rateLimited: 0, serverErrors: 0, networkErrors: 0 };
  async function post(bytes: Uint8Array, signal?: AbortSignal): Promise<EventsResponse> {
    const body = new RawJsonBody(bytes);
    let failures = 0;
    const waits = {
      say,
      signal,
      onSend: () => stats.requests++,
      onLimited: () => stats.rateLimited++,
    };
    for (;;) {
      try {
        const reply = await sendPaced(pacer, () => client.request(contract.events.send, { body }), waits);
        return reply.body;
      } catch (err) {
        // Ctrl-C cut a wait for the rate limit short: the batch was not sent.
        if ((err as Error).name === 'AbortError') throw err;
        if (err instanceof ApiError) {
          const { statusCode, messages } = err;
          if (statusCode === 400 || statusCode === 413) throw err;
          if (statusCode === 429) {
            throw new StopRun(
              'rate_limited',
              `still rate limited after ${MAX_RATE_LIMITED_RETRIES} waits`,
              429,
              messages,
            );
          }
          if (statusCode === 401) throw new StopRun('unauthorized', messages.join('; '), statusCode, messages);
          if (statusCode === 403) throw new StopRun('forbidden', messages.join('; '), statusCode, messages);
          if (statusCode >= 500) {
            stats.serverErrors++;
            if (++failures > MAX_FAILURE_RETRIES) {
              throw new StopRun(
                'server_error',
                `the daemon kept failing: ${messages.join('; ')}`,
                statusCode,
                messages,
              );
            }
            const waitMs = backoffMs(failures - 1);
            say(
              `server error ${statusCode}; retrying in ${waitMs / 1000} s (attempt ${failures} of ${MAX_FAILURE_RETRIES})`,
            );
            await clock.sleep(waitMs);
            continue;
          }
          throw new StopRun('api_error', messages.join('; '), statusCode, messages);
        }
        if (err instanceof ConnectionError) {
          stats.networkErrors++;
          if (++failures > MAX_FAILURE_RETRIES) throw new StopRun('network', err.message);
          const waitMs = backoffMs(failures - 1);
          say(`${err.message}; retrying in ${waitMs / 1000} s (attempt ${failures} of ${MAX_FAILURE_RETRIES})`);
          await clock.sleep(waitMs);
          continue;
        }
        const details = (err as { details?: string[] }).details ?? [];
        throw new StopRun('unexpected_response', (err as Error).message, undefined, details);
      }
    }
  }
  return { post, stats };
}

/** What to check when the daemon does not answer at all. */
export const daemonDownHint = (baseUrl: string) =>
  `no daemon answers at ${baseUrl}. Is it running (\`affiliated serve\`)? Check the address: ` +
  '--base-url, AFFILIATED_BASE_URL, or the profile (`affiliated config get base-url`).';

/**
 * One request before the first batch: `GET /v1/campaign` names the key's campaign, so a line for
 * another campaign is rejected here instead of getting its whole batch refused (400) and the
 * rest sent again. It also finds a daemon that is down at once, rather than after a batch's
 * retries. Any answer other than the campaign (an old daemon, a revoked key) leaves the check to
 * the server: the first batch then meets the same answer and reports it.
 */
export async function preflight(client: ApiClient): Promise<{ campaign?: string }> {
  try {
    const campaign = await client.campaign.get();
    return { campaign: campaign.publicId };
  } catch (err) {
    if (err instanceof ConnectionError) {
      throw new StopRun('network', `${err.message}. ${daemonDownHint(client.baseUrl)}`);
    }
    return {};
  }
}

import type { Delivery } from './deliver.js';

/** Why a replay ended before the end of the file. */
export type StopReason =
  | 'interrupted'
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limited'
  | 'server_error'
  | 'network'
  | 'api_error'
  | 'unexpected_response';

/** What a batch sent of itself before its stop: its first `events` events, and their answers. */
export interface SentPart {
  events: number;
  delivery: Delivery;
}

/** Thrown by the transport when going on would be pointless or harmful; the run saves and ends. */
export class StopRun extends Error {
  override name = 'StopRun';
  /** Set when the batch's first events were sent before it stopped (limit.ts): they are recorded. */
  partial: SentPart | undefined;
  constructor(
    readonly reason: StopReason,
    message: string,
    readonly statusCode?: number,
    readonly messages: string[] = [],
  ) {
    super(message);
  }
}

/** How a run that ended early reports it (the summary's `stopped`). */
export interface Stopped {
  reason: StopReason;
  message: string;
  statusCode: number | null;
  messages: string[];
  /** The first line of the batch that was not acknowledged. */
  line: number;
  /** Every line up to this one is done; `--resume` continues after it. */
  checkpointLine: number;
  /** Events of the stopping batch sent before it stopped (those that fit the monthly limit), when any were. */
  sentOfBatch?: number;
}

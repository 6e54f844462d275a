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

/** Thrown by the transport when going on would be pointless or harmful; the run saves and ends. */
export class StopRun extends Error {
  override name = 'StopRun';
  constructor(
    readonly reason: StopReason,
    message: string,
    readonly statusCode?: number,
    readonly messages: string[] = [],
  ) {
    super(message);
  }
}

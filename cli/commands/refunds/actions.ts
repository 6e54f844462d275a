import type { ApiClient } from '../../../shared/client/index.js';
import type { Io } from '../../io.js';
import { type GlobalOptions, printJson } from '../../output.js';
import { conversionRecord } from '../conversions/actions.js';

export async function create(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  orderId: string,
  flags: { reason?: string; amount?: number; refundId?: string },
): Promise<void> {
  const conversion = await client.refunds.create({
    body: {
      order_id: orderId,
      ...(flags.reason !== undefined && { reason: flags.reason }),
      ...(flags.amount !== undefined && { amount: flags.amount }),
      ...(flags.refundId !== undefined && { refund_id: flags.refundId }),
    },
  });
  if (options.json) return printJson(io, conversion);
  conversionRecord(io, conversion);
}

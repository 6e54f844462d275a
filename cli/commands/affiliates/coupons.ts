import type { ApiClient } from '../../../shared/client/index.js';
import type { Io } from '../../io.js';
import { type GlobalOptions, type ListFormat, printJson, printLine, printTable } from '../../output.js';

/** `affiliates coupons add|list|remove`: codes that make a provider payment the affiliate's (docs/integrations.md). */
export async function addCoupon(io: Io, client: ApiClient, options: GlobalOptions, id: number, code: string) {
  const coupon = await client.coupons.create({ params: { id }, body: { code } });
  if (options.json) return printJson(io, coupon);
  printLine(io, `Coupon ${coupon.code} is affiliate ${id}'s: Stripe or Paddle payments that use it count for them.`);
}

export async function listCoupons(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  id: number,
  flags: { output?: ListFormat },
) {
  const { coupons } = await client.coupons.list({ params: { id } });
  if (options.json) return printJson(io, coupons);
  printTable(
    io,
    ['code', 'created'],
    coupons.map((c) => [c.code, c.createdAt]),
    flags.output,
  );
}

export async function removeCoupon(io: Io, client: ApiClient, options: GlobalOptions, id: number, code: string) {
  const result = await client.coupons.remove({ params: { id, code } });
  if (options.json) return printJson(io, result);
  printLine(io, `Coupon ${code} removed from affiliate ${id}.`);
}

import { z } from 'zod';

/** Notices a redirect may ask a page to show, by key (never text from the URL). */
export const NOTICES = ['loggedOut', 'passwordReset', 'saved', 'passwordChanged'] as const;

/**
 * What the portal's pages read of a query string, parsed by zod as the API parses its own
 * (docs/portal.md). A page never refuses its address: a value it cannot use is no value
 * (`?page=abc` is the first page), except a repeated `token`, which is a reset link that is no link.
 */
export const portalQuery = z.object({
  notice: z.enum(NOTICES).optional().catch(undefined),
  /** `?ref=CODE` of a sign-up link: the referrer. */
  ref: z.string().optional().catch(undefined),
  /** The dashboard's page of sales, from 1. */
  page: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().catch(undefined),
  /** A reset link's token; null when the address repeats it. */
  token: z
    .union([z.string(), z.array(z.string()).transform((): null => null)])
    .optional()
    .catch(undefined),
});

export type PortalQuery = z.infer<typeof portalQuery>;

/** The query of a portal address, parsed (`ctx.query` as Koa reads it). */
export function parsePortalQuery(query: unknown): PortalQuery {
  const parsed = portalQuery.safeParse(query);
  return parsed.success ? parsed.data : {};
}

/** A payout's id in the portal's address: what the API takes as an id (spec §4.3). */
export const payoutIdParam = z
  .string()
  .regex(/^[1-9]\d{0,9}$/)
  .transform(Number);

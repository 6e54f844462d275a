import { z } from 'zod';

/** Notices a redirect may ask a page to show, by key (never text from the URL). */
export const DASHBOARD_NOTICES = [
  'loggedOut',
  'setupDone',
  'ended',
  'approved',
  'payoutSent',
  'saved',
  'invited',
  'changed',
  'removed',
  'created',
  'deleted',
  'testSent',
  'retried',
  'connected',
  'disconnected',
  'passkeyAdded',
  'passkeyRemoved',
  'runSent',
  'runWaiting',
  'runApproved',
] as const;

const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/**
 * What the dashboard's pages read of a query string. As in the portal, a page never refuses its
 * address: a value it cannot use is no value (`?page=abc` is the first page).
 */
export const dashboardQuery = z.object({
  notice: optional(z.enum(DASHBOARD_NOTICES)),
  page: optional(z.coerce.number().int().min(1).max(1_000_000)),
  status: optional(z.string().regex(/^[a-z_]{1,32}$/)),
  search: optional(z.string().max(255)),
  flagged: optional(z.enum(['true', 'false'])),
  /** The audit log's filters (its page reads them as `GET /v1/audit-log` does). */
  action: optional(z.string().regex(/^[a-z_]{1,32}\.[a-z_0-9]{1,32}$/)),
  actor: optional(z.string().regex(/^[a-z]{1,16}$/)),
  from: optional(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)),
  to: optional(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)),
  /** A set-up link's token. */
  token: optional(z.string().max(64)),
  /** `?n=` of a notice that counts. */
  n: optional(z.coerce.number().int().min(0).max(1_000_000)),
});

export type DashboardQuery = z.infer<typeof dashboardQuery>;

export function parseDashboardQuery(query: unknown): DashboardQuery {
  const parsed = dashboardQuery.safeParse(query);
  return parsed.success ? parsed.data : {};
}

/** An id in a form or an address: what the API takes as an id. */
export const idParam = z
  .string()
  .regex(/^[1-9]\d{0,9}$/)
  .transform(Number);

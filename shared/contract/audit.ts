import { auditLogSchema, listAuditLogQuerySchema } from '../schemas/audit.js';
import { defineRoute } from './route.js';
import { EXAMPLE_GROUP, EXAMPLE_TIMES } from './examples.js';

/** The example world's group, made by its campaign's key (the eleventh change of the world). */
const groupCreated = {
  id: 11,
  actor: { type: 'key', id: '1', label: 'afk_Q7x2' },
  action: 'group.create',
  target: { type: 'group', id: String(EXAMPLE_GROUP.id) },
  details: {
    fields: ['commissionType', 'commissionValue', 'name', 'products', 'recurring', 'secondTierPercent'],
    figures: {},
  },
  address: '127.0.0.1',
  createdAt: EXAMPLE_TIMES.written,
} as const;

/** The audit log (docs/audit.md): who changed what in the campaign, when and from where. */
export const auditRoutes = {
  list: defineRoute({
    tag: 'Audit log',
    auth: 'apiKey',
    rateLimit: 'default',
    operationId: 'listAuditLog',
    method: 'get',
    path: '/v1/audit-log',
    summary: 'List the changes made to the campaign, newest first',
    description:
      'Every change made by an API key, the operator CLI (`operator`), a dashboard user or scheduled work ' +
      '(`system`): who (a key by its id and prefix), what (an action, its target, the names of the fields set ' +
      'and figures such as amounts), when and from which address. It never holds a key, a secret, a password ' +
      'or an e-mail address. Deleting an affiliate keeps the counts and paid total of what the deletion erased. ' +
      'A `from` after `to` is 400.',
    query: listAuditLogQuerySchema,
    responses: { 200: auditLogSchema },
    errors: [400, 401],
    examples: {
      query: { action: 'group.create', page: 1, limit: 20 },
      response: { changes: [groupCreated], total: 1, page: 1, limit: 20, totalPages: 1 },
    },
  }),
};

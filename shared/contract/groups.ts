import { deleteResponseSchema, idParams } from '../schemas/common.js';
import {
  createGroupSchema,
  groupListSchema,
  groupSchema,
  listGroupsQuerySchema,
  updateGroupSchema,
} from '../schemas/group.js';
import { defineRoute } from './route.js';
import { EXAMPLE_GROUP, EXAMPLE_TIMES, exampleGroup } from './examples.js';

/** A second group of the examples: a fixed amount, on a customer's first payment only. */
const RESELLERS = { name: 'Resellers', commissionType: 'fixed', commissionValue: 25, recurring: 'first' } as const;

const common = { tag: 'Groups', auth: 'apiKey', rateLimit: 'default' } as const;

/** Groups of affiliates and their commission rules (docs/commissions.md#groups). */
export const groupRoutes = {
  create: defineRoute({
    ...common,
    operationId: 'createGroup',
    method: 'post',
    path: '/v1/groups',
    summary: 'Create a group of affiliates with its commission rule',
    description:
      'The name is unique in the campaign, ignoring case (409). A rule applies to conversions that arrive afterwards; ' +
      '`recurring` and `secondTierPercent` left out or null take the campaign’s.',
    body: createGroupSchema,
    responses: { 201: groupSchema },
    errors: [400, 401, 409, 413, 415],
    examples: {
      body: RESELLERS,
      response: {
        id: 2,
        ...RESELLERS,
        products: [],
        secondTierPercent: null,
        affiliateCount: 0,
        createdAt: EXAMPLE_TIMES.written,
        updatedAt: EXAMPLE_TIMES.written,
      },
    },
  }),
  list: defineRoute({
    ...common,
    operationId: 'listGroups',
    method: 'get',
    path: '/v1/groups',
    summary: 'List groups, newest first',
    query: listGroupsQuerySchema,
    responses: { 200: groupListSchema },
    errors: [400, 401],
    examples: {
      query: { page: 1, limit: 20 },
      response: { groups: [exampleGroup()], total: 1, page: 1, limit: 20, totalPages: 1 },
    },
  }),
  get: defineRoute({
    ...common,
    operationId: 'getGroup',
    method: 'get',
    path: '/v1/groups/{id}',
    summary: 'Get a group',
    params: idParams,
    responses: { 200: groupSchema },
    errors: [400, 401, 404],
    examples: { params: { id: EXAMPLE_GROUP.id }, response: exampleGroup() },
  }),
  update: defineRoute({
    ...common,
    operationId: 'updateGroup',
    method: 'patch',
    path: '/v1/groups/{id}',
    summary: 'Change a group’s name or rule',
    description:
      'Fields not sent stay as they are; `products` is replaced whole; null gives `recurring` or `secondTierPercent` back to the campaign. ' +
      'A percent sent alone must suit the stored type (at most 100 for percent). Conversions already stored keep their commission.',
    params: idParams,
    body: updateGroupSchema,
    responses: { 200: groupSchema },
    errors: [400, 401, 404, 409, 413, 415],
    examples: {
      params: { id: EXAMPLE_GROUP.id },
      body: { commissionValue: 17.5, secondTierPercent: null },
      response: exampleGroup({ commissionValue: 17.5, secondTierPercent: null }),
    },
  }),
  remove: defineRoute({
    ...common,
    operationId: 'deleteGroup',
    method: 'delete',
    path: '/v1/groups/{id}',
    summary: 'Delete a group: its affiliates earn by the campaign’s rule again',
    params: idParams,
    responses: { 200: deleteResponseSchema },
    errors: [400, 401, 404],
    examples: {
      params: { id: EXAMPLE_GROUP.id },
      response: { success: true, message: 'Group deleted successfully' },
    },
  }),
};

import { z } from 'zod';
import { defineRoute } from './route.js';

export const healthSchema = z.object({ status: z.literal('ok'), database: z.literal('ok') });
export const readySchema = z.object({
  status: z.literal('ready'),
  database: z.literal('ok'),
  schema: z.literal('current'),
});

/** Routes about the service itself: no key, for load balancers and readers of the reference. */
export const systemRoutes = {
  health: defineRoute({
    operationId: 'getHealth',
    method: 'get',
    path: '/health',
    tag: 'Service',
    summary: 'Process up and database reachable (for load balancers; not rate limited)',
    auth: 'none',
    rateLimit: 'none',
    responses: { 200: healthSchema },
    errors: [503],
    examples: { response: { status: 'ok', database: 'ok' } },
  }),
  ready: defineRoute({
    operationId: 'getReady',
    method: 'get',
    path: '/ready',
    tag: 'Service',
    summary:
      "Ready to serve: the database answers and its schema is this build's, no migration missing or newer (for orchestrators; not rate limited). 503 says which",
    auth: 'none',
    rateLimit: 'none',
    responses: { 200: readySchema },
    errors: [503],
    examples: { response: { status: 'ready', database: 'ok', schema: 'current' } },
  }),
  openapi: defineRoute({
    operationId: 'getOpenApi',
    method: 'get',
    path: '/v1/openapi.json',
    tag: 'Service',
    summary: 'This OpenAPI 3.1 document',
    auth: 'none',
    rateLimit: 'default',
    responses: { 200: z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }) },
    errors: [],
    examples: {
      response: {
        openapi: '3.1.0',
        info: { title: 'affiliated API', version: '0.1.0' },
        paths: { '/v1/affiliates': {} },
      },
    },
  }),
  docs: defineRoute({
    operationId: 'getDocs',
    method: 'get',
    path: '/docs',
    tag: 'Service',
    summary: 'The API reference, rendered from this document',
    auth: 'none',
    rateLimit: 'default',
    responses: { 200: { contentType: 'text/html', schema: z.string() } },
    errors: [],
    examples: { response: '<!doctype html>\n<html lang="en"><head><title>affiliated API</title></head>…</html>\n' },
  }),
};

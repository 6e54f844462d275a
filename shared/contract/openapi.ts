import { z } from 'zod';
import { errorBody, statusName } from '../errors.js';
import { errorBodySchema } from '../schemas/common.js';
import { allRoutes } from './index.js';
import { errorExample } from './errorExamples.js';
import { isContentResponse, type RouteSpec, schemaOf, successStatus } from './route.js';

type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

/** JSON Schema 2020-12 (what OpenAPI 3.1 uses) of a zod schema, without the `$schema` line. */
function jsonSchema(schema: z.ZodType, io: Io): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** spec §10.6: the daemon reads at most 2 MiB of a body. */
const BODY_LIMIT_MIB = 2;

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the current one-minute window',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Whole seconds until the window resets', schema: { type: 'integer' } },
};
const headerRefs = Object.fromEntries(
  Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

/**
 * Path and query parameters as they are once read: the output side of their schemas (an integer
 * with its bounds and default, not the text it arrives as); required as the input side says.
 */
function parameters(route: RouteSpec): JsonSchema[] {
  const list: JsonSchema[] = [];
  if (route.signedBody) {
    list.push({
      name: route.signedBody.header,
      in: 'header',
      required: true,
      description: route.signedBody.description,
      schema: { type: 'string', minLength: 1 },
      example: route.signedBody.example,
    });
  }
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const read = jsonSchema(schema, 'output') as { properties?: Record<string, JsonSchema> };
    const { required = [] } = jsonSchema(schema, 'input') as { required?: string[] };
    const examples = (location === 'path' ? route.examples.params : route.examples.query) ?? {};
    for (const [name, property] of Object.entries(read.properties ?? {})) {
      const { description, ...rest } = property;
      list.push({
        name,
        in: location,
        required: location === 'path' || required.includes(name),
        ...(typeof description === 'string' && { description }),
        schema: rest,
        ...(examples[name] !== undefined && { example: examples[name] }),
      });
    }
  }
  return list;
}

function errorResponse(route: RouteSpec, status: number, limited: boolean): JsonSchema {
  return {
    description: statusName(status),
    ...(limited &&
      status === 429 && {
        headers: { ...headerRefs, 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
      }),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        example: errorBody(status, errorExample(route, status)),
      },
    },
  };
}

function operation(route: RouteSpec): JsonSchema {
  const limited = route.rateLimit !== 'none';
  const responses: Record<string, JsonSchema> = {};
  const answered = String(successStatus(route));
  for (const [status, spec] of Object.entries(route.responses)) {
    if (!spec) continue;
    const contentType = isContentResponse(spec) ? spec.contentType : 'application/json';
    const example = status === answered ? { example: route.examples.response } : {};
    responses[status] = {
      description: route.summary,
      ...(limited && { headers: headerRefs }),
      content: { [contentType]: { schema: jsonSchema(schemaOf(spec), 'output'), ...example } },
    };
  }
  if (route.etag) {
    responses['304'] = { description: 'Not modified: the `If-None-Match` sent matches the current `ETag`; no body' };
  }
  // A route that takes no body refuses one with 413 (docs/spec.md §10.13), like 429 and 500 on every route.
  const errors = new Set([...route.errors, ...(route.body ? [] : [413]), ...(limited ? [429] : []), 500]);
  for (const status of [...errors].sort()) responses[String(status)] = errorResponse(route, status, limited);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description && { description: route.description }),
    tags: [route.tag],
    security: route.auth === 'none' ? [] : [{ ApiKey: [] }],
    parameters: parameters(route),
    ...(route.signedBody && {
      requestBody: {
        required: true,
        description: `The provider's JSON, read as raw bytes (signed as sent), at most ${BODY_LIMIT_MIB} MiB (413 beyond)`,
        content: {
          'application/json': { schema: jsonSchema(route.signedBody.schema, 'input'), example: route.examples.body },
        },
      },
    }),
    ...(route.body && {
      requestBody: {
        required: true,
        description: `JSON, at most ${BODY_LIMIT_MIB} MiB (413 beyond)`,
        content: { 'application/json': { schema: jsonSchema(route.body, 'input'), example: route.examples.body } },
      },
    }),
    responses,
  };
}

/** The OpenAPI 3.1 document of every route in the contract. */
export function buildOpenApiDocument(options: { version: string; routes?: RouteSpec[] }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of options.routes ?? allRoutes()) {
    paths[route.path] ??= {};
    const item = paths[route.path];
    if (item) item[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'affiliated API',
      version: options.version,
      description:
        'Affiliate management and event tracking for one campaign per API key. Errors always answer `{ statusCode, message, error }`; money is JSON numbers of the campaign’s `currency` (`GET /v1/campaign`), to the hundredth.',
    },
    servers: [{ url: '/' }],
    tags: [...new Set((options.routes ?? allRoutes()).map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'A key bound to one campaign, created with `affiliated keys create`.',
        },
      },
      headers: RATE_LIMIT_HEADERS,
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
    },
  };
}

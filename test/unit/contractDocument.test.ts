import { expect } from 'chai';
import { allRoutes } from '../../shared/contract/index.js';
import { buildOpenApiDocument } from '../../shared/contract/openapi.js';
import type { RouteSpec } from '../../shared/contract/route.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { documentRequests, operationsOf, serialise } from '../helpers/document.js';

/** Requests generated per operation; FUZZ_SEED replays a run. */
const SAMPLES = 60;
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

/** What a route's validation says of a request as the daemon receives it (params and query as text). */
function refusals(route: RouteSpec, params: Record<string, unknown>, query: Record<string, unknown>, body: unknown) {
  const asText = (values: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(values).map(([name, value]) => [name, serialise(value)]));
  const messages: string[] = [];
  for (const [schema, input] of [
    [route.params, asText(params)],
    [route.query, asText(query)],
    [route.body, body],
  ] as const) {
    if (!schema) continue;
    const result = parseWith(schema, input);
    if (!result.ok) messages.push(...result.messages);
  }
  return messages;
}

describe('the OpenAPI document is never looser than validation', () => {
  const document = buildOpenApiDocument({ version: 'test' });
  const generate = documentRequests(document, SEED);
  const routes = new Map(allRoutes().map((route) => [route.operationId, route]));

  for (const operation of operationsOf(document)) {
    it(`${operation.method} ${operation.path}: what the document calls valid passes the route's schemas`, () => {
      const route = routes.get(operation.operationId);
      expect(route, operation.operationId).to.not.equal(undefined);
      if (!route) return;
      let valid = 0;
      for (let i = 0; i < SAMPLES; i++) {
        const { request, invalid } = generate(operation);
        if (invalid.length > 0) continue;
        valid++;
        const refused = refusals(route, request.params, request.query, request.body);
        expect(
          refused,
          `${request.method} ${request.url} ${JSON.stringify(request.body)} (seed ${SEED})`,
        ).to.deep.equal([]);
      }
      // Vacuous otherwise: the generator must reach valid requests for every operation.
      expect(valid, `valid requests generated of ${SAMPLES}`).to.be.at.least(SAMPLES / 3);
    });
  }
});

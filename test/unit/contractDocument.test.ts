import { expect } from 'chai';
import { allRoutes } from '../../shared/contract/index.js';
import { buildOpenApiDocument } from '../../shared/contract/openapi.js';
import { type RouteSpec, schemaOf, successStatus } from '../../shared/contract/route.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { SEED } from '../reliability/support/seed.js';
import { ajvText, documentRequests, documentValidator, operationsOf, serialise } from '../helpers/document.js';

/** Requests generated per operation; the seed is fixed in CI, random locally, FUZZ_SEED=n replays. */
const SAMPLES = 60;

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

describe('every operation of the document has examples that are valid', () => {
  const document = buildOpenApiDocument({ version: 'test' });
  const validator = documentValidator(document);
  const routes = new Map(allRoutes().map((route) => [route.operationId, route]));

  for (const operation of operationsOf(document)) {
    it(`${operation.method} ${operation.path}: its example request and answer, by its schemas and the document`, () => {
      const route = routes.get(operation.operationId);
      if (!route) throw new Error(`${operation.operationId} is not a route of the contract`);
      const problems: string[] = [];
      const byDocument = (what: string, schema: Record<string, unknown> | undefined, value: unknown) => {
        if (!schema) return;
        const validate = validator(schema);
        if (!validate(value)) problems.push(`${what} by the document: ${ajvText(validate)}`);
      };
      // Every path parameter has an example; query parameters may go without (they are optional).
      for (const parameter of operation.parameters) {
        if (parameter.required && parameter.example === undefined) problems.push(`${parameter.name}: no example`);
        if (parameter.example !== undefined) byDocument(parameter.name, parameter.schema, parameter.example);
      }
      const { params = {}, query = {}, body } = route.examples;
      problems.push(...refusals(route, params, query, body).map((message) => `by the route's schemas: ${message}`));
      if (operation.body) {
        if (operation.body.example === undefined) problems.push('no example body');
        byDocument('body', operation.body.schema, operation.body.example);
      }
      const status = String(successStatus(route));
      const answer = operation.responses[status];
      if (answer?.example === undefined) problems.push(`no example answer for ${status}`);
      if (answer?.contentType?.startsWith('application/json')) byDocument('answer', answer.schema, answer.example);
      const spec = route.responses[Number(status) as keyof RouteSpec['responses']];
      if (spec && !schemaOf(spec).safeParse(route.examples.response).success) {
        problems.push("answer by the route's response schema");
      }
      // Every error the operation documents shows a real body of the spec's shape.
      for (const [code, response] of Object.entries(operation.responses)) {
        if (code.startsWith('2') || code === '304') continue;
        if (response.example === undefined) problems.push(`no example for ${code}`);
        else byDocument(`${code} answer`, response.schema, response.example);
      }
      expect(problems).to.deep.equal([]);
    });
  }
});

import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { createRouter } from '../../server/app.js';
import { allRoutes } from '../../shared/contract/index.js';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';

type Document = {
  openapi: string;
  paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>;
};

describe(`the route contract, OpenAPI and health (${ENGINE})`, () => {
  const t = useTestDaemon();

  it('GET /v1/openapi.json is a valid OpenAPI 3.1 document, without a key', async () => {
    const reply = await call<Document>(t.url, 'GET', '/v1/openapi.json');
    expect(reply.status).to.equal(200);
    expect(reply.body.openapi).to.equal('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(reply.body);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('documents exactly the routes the router serves', async () => {
    const reply = await call<Document>(t.url, 'GET', '/v1/openapi.json');
    const documented = Object.entries(reply.body.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const router = createRouter(servicesFor(t.db));
    const served = router.stack
      .flatMap((layer) =>
        layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
      )
      .sort();
    expect(served).to.deep.equal(documented);
    expect(documented).to.have.length(allRoutes().length);
  });

  it('states the key, the spec error body and the rate-limit headers of each operation', async () => {
    const { body } = await call<Document>(t.url, 'GET', '/v1/openapi.json');
    const get = body.paths['/v1/affiliates/{id}']?.get;
    expect(get?.security).to.deep.equal([{ ApiKey: [] }]);
    expect(Object.keys(get?.responses ?? {})).to.include.members(['200', '400', '401', '404', '429', '500']);
    expect(JSON.stringify(get?.responses['404'])).to.contain('#/components/schemas/Error');
    expect(JSON.stringify(get?.responses['200'])).to.contain('X-RateLimit-Remaining');
    expect(body.paths['/v1/sdk/events']?.post?.security).to.deep.equal([]);
    const components = (body as unknown as { components: { securitySchemes: unknown } }).components;
    expect(components.securitySchemes).to.deep.include({
      ApiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'A key bound to one campaign, created with `affiliated keys create`.',
      },
    });
  });

  it('GET /health answers without a key and is never rate limited', async () => {
    const reply = await call(t.url, 'GET', '/health');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({ status: 'ok', database: 'ok' });
    expect(reply.headers['x-ratelimit-limit']).to.equal(undefined);
  });

  it('validation comes from the contract: an unknown query parameter is a 400 on every list', async () => {
    const reply = await call(t.url, 'GET', '/v1/affiliates?colour=red', { key: t.merchant.key });
    expect(reply.body).to.deep.equal({
      statusCode: 400,
      message: ['property colour should not exist'],
      error: 'Bad Request',
    });
  });
});

describe(`GET /health when the database is gone (${ENGINE})`, () => {
  const t = useTestDaemon();

  it('answers 503 in the spec error shape once the pool cannot reach the database', async () => {
    await t.daemon.db.destroy();
    const reply = await call(t.url, 'GET', '/health');
    expect(reply.status).to.equal(503);
    expect(reply.body).to.deep.include({ statusCode: 503, error: 'Service Unavailable' });
    expect(String((reply.body as { message: string }).message)).to.match(/^Database unreachable/);
  });
});

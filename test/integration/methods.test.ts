import { expect } from 'chai';
import { allRoutes } from '../../shared/contract/index.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';

/** Every path of the contract with the methods the document lists for it. */
function pathsOfContract(): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const route of allRoutes())
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method.toUpperCase()]);
  return paths;
}

/** A request path for a contract path: every parameter is `1`. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '1');

describe(`methods a path does not have (${ENGINE})`, () => {
  const t = useTestDaemon();

  it('GET /v1/conversions/bulk is 405 naming POST, not a 400 from GET /v1/conversions/{id}', async () => {
    const reply = await call(t.url, 'GET', '/v1/conversions/bulk', { key: t.merchant.key });
    expect(reply.status).to.equal(405);
    expect(reply.headers.allow).to.equal('POST');
    expect(reply.body).to.deep.equal({
      statusCode: 405,
      message: 'GET is not allowed on /v1/conversions/bulk: use POST',
      error: 'Method Not Allowed',
    });
    const patch = await call(t.url, 'PATCH', '/v1/payouts/bulk', { key: t.merchant.key, body: { status: 'paid' } });
    expect(patch.status).to.equal(405);
    expect(patch.headers.allow).to.equal('POST');
  });

  it('on every path of the contract, every other method is 405 with Allow listing exactly its methods, before the key', async () => {
    const checked: string[] = [];
    for (const [path, methods] of pathsOfContract()) {
      const expected = methods.includes('GET') ? ['HEAD', ...methods] : methods;
      for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
        if (methods.includes(method)) continue;
        const reply = await call(t.url, method, concrete(path));
        const what = `${method} ${path}`;
        expect(reply.status, what).to.equal(405);
        expect(String(reply.headers.allow).split(', ').sort(), what).to.deep.equal([...expected].sort());
        expect(reply.body, what).to.deep.include({ statusCode: 405, error: 'Method Not Allowed' });
        checked.push(what);
      }
    }
    expect(checked).to.include('GET /v1/conversions/bulk');
    expect(checked).to.include('DELETE /v1/payouts/{id}');
  });

  it('OPTIONS on every path answers 204 with the same Allow header, and no other answer', async () => {
    for (const [path, methods] of pathsOfContract()) {
      const reply = await call(t.url, 'OPTIONS', concrete(path));
      expect(reply.status, path).to.equal(204);
      const expected = methods.includes('GET') ? ['HEAD', ...methods] : methods;
      expect(String(reply.headers.allow).split(', ').sort(), path).to.deep.equal([...expected].sort());
      expect(reply.text, path).to.equal('');
    }
    const bulk = await call(t.url, 'OPTIONS', '/v1/conversions/bulk');
    expect(bulk.headers.allow).to.equal('POST');
  });

  it('the routes themselves still answer, literal paths and their {id} siblings alike', async () => {
    const bulk = await call(t.url, 'POST', '/v1/conversions/bulk', {
      key: t.merchant.key,
      body: { status: 'approved', ids: [1] },
    });
    expect(bulk.status).to.equal(200);
    const one = await call(t.url, 'GET', '/v1/conversions/1', { key: t.merchant.key });
    expect(one.status).to.equal(404);
    const head = await call(t.url, 'HEAD', '/v1/affiliates', { key: t.merchant.key });
    expect(head.status).to.equal(200);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, type TestApp } from './harness.js';

describe(`OpenAPI document and API reference (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('serves an OpenAPI 3.1 document covering every /v1 route, without a key', async () => {
    const r = await call(t, 'GET', '/v1/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.json.openapi, '3.1.0');
    assert.deepEqual(r.json.components.securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'x-api-key' });
    const documented = new Set<string>();
    for (const [p, ops] of Object.entries(r.json.paths as Record<string, Record<string, unknown>>)) {
      for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${p}`);
    }
    for (const route of t.app.routeCatalog.filter((x) => x.url.startsWith('/v1/') && x.url !== '/v1/openapi.json')) {
      const openapiPath = route.url.replace(/:(\w+)/g, '{$1}');
      assert.ok(documented.has(`${route.method} ${openapiPath}`), `${route.method} ${openapiPath} is documented`);
    }
    const register = r.json.paths['/v1/accounts/register'].post;
    assert.ok(register.requestBody.content['application/json'].schema.properties.email);
    assert.ok(register.responses['400'], 'error answers are documented');
    assert.ok(r.json.components.schemas.ErrorResponse);
  });

  it('serves a readable API reference at /docs from the bundled renderer', async () => {
    let r = await call(t, 'GET', '/docs/');
    if (r.status === 302) r = await call(t, 'GET', String(r.headers.location));
    assert.equal(r.status, 200);
    assert.match(r.body, /swagger-ui/i);
    const asset = await call(t, 'GET', '/docs/static/swagger-ui-bundle.js');
    assert.equal(asset.status, 200, 'the renderer is served locally, not from a CDN');
  });

  it('answers health and readiness checks without a key', async () => {
    assert.deepEqual((await call(t, 'GET', '/healthz')).json, { status: 'ok' });
    const ready = (await call(t, 'GET', '/readyz')).json;
    assert.equal(ready.status, 'ready');
    assert.deepEqual(
      ready.sources.map((x: { name: string }) => x.name),
      ['sanctions lists', 'news', 'IP threat feeds', 'criminal records'],
    );
  });
});

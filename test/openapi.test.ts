import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import { call, createTestApp, dbKind, type TestApp } from './harness.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is read as untyped JSON */
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
    assert.equal(r.json.components.securitySchemes.ApiKey.name, 'x-api-key');
    const documented = new Set<string>();
    for (const [p, ops] of Object.entries(r.json.paths as Record<string, Record<string, unknown>>)) {
      for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${p}`);
    }
    for (const route of t.app.routeCatalog.filter((x) => x.url.startsWith('/v1/') && x.url !== '/v1/openapi.json')) {
      const openapiPath = route.url.replace(/:(\w+)/g, '{$1}');
      assert.ok(documented.has(`${route.method} ${openapiPath}`), `${route.method} ${openapiPath} is documented`);
    }
    const register = r.json.paths['/v1/accounts/register'].post;
    assert.equal(register.requestBody.content['application/json'].schema.$ref, '#/components/schemas/AccountRegistrationRequest');
    assert.ok(r.json.components.schemas.AccountRegistrationRequest.properties.email);
    assert.ok(register.responses['400'], 'error answers are documented');
    assert.ok(r.json.components.schemas.ErrorResponse);
  });

  it('lints clean at the recommended rules of Redocly, with no warning', async () => {
    const doc = (await call(t, 'GET', '/v1/openapi.json')).body;
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: doc, absoluteRef: 'openapi.json', config });
    assert.deepEqual(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`),
      [],
    );
  });

  it('gives generated clients what they need: operation ids, named shapes, described answers, headers, webhooks', async () => {
    const d = (await call(t, 'GET', '/v1/openapi.json')).json;
    assert.equal(d.info.version, version, 'the version of package.json');
    const ops = Object.entries(d.paths as Record<string, Record<string, Record<string, any>>>).flatMap(([p, item]) => Object.entries(item).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op })));
    assert.ok(ops.length >= 65);
    const ids = ops.map((o) => o.op.operationId);
    assert.deepEqual(
      ops.filter((o) => !/^[a-z][A-Za-z]+$/.test(o.op.operationId ?? '')).map((o) => o.key),
      [],
      'every operation has an operationId',
    );
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    for (const { key, op } of ops) {
      for (const [status, response] of Object.entries(op.responses as Record<string, { description: string; headers: Record<string, unknown> }>)) {
        assert.ok(response.description && response.description !== 'Default Response', `${key} ${status} is described`);
        assert.ok(response.headers['x-request-id'], `${key} ${status} names x-request-id`);
        if (key.includes(' /v1/')) assert.ok(response.headers['x-ratelimit-remaining'], `${key} ${status} names the rate-limit headers`);
      }
      if (key.startsWith('POST /v1/'))
        assert.ok(
          op.parameters?.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/IdempotencyKey'),
          `${key} takes an Idempotency-Key`,
        );
    }
    assert.equal(d.paths['/v1/reservations'].post.responses['429'].headers['retry-after'].$ref, '#/components/headers/RetryAfter');
    assert.equal(d.paths['/v1/reservations'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/ReservationCreateRequest');
    assert.equal(d.paths['/v1/reservations/{id}/summary'].get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/ReservationSummaryResponse');
    const submit = d.components.schemas.BackgroundCheck ? d.paths['/v1/background-check/submit'].post.requestBody.content['application/json'].schema : undefined;
    assert.deepEqual(submit.required, ['first_name', 'last_name'], 'required where the server requires');
    for (const name of ['Reservation', 'Account', 'ErrorResponse', 'ScreeningEvent', 'Rule', 'BlocklistEntry', 'BackgroundCheck', 'ReservationGuestPortalResponse'])
      assert.ok(d.components.schemas[name], `${name} is a component`);
    assert.deepEqual(Object.keys(d.webhooks).sort(), [
      'account_webhook_url',
      'authority_report',
      'background_check_webhook_url',
      'callback',
      'guest_portal_webhook_url',
      'listing_webhook_url',
      'reservation_webhook_url',
      'screening_webhook_url',
      'stargate_webhook_url',
    ]);
    const screening = d.webhooks.screening_webhook_url.post;
    assert.deepEqual(
      screening.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`),
      ['header webhook-id', 'header webhook-timestamp', 'header webhook-signature', 'header webhook-event'],
    );
    assert.equal(screening.requestBody.content['application/json'].schema.$ref, '#/components/schemas/ScreeningEvent');
    // The police reports' events go to the reservation's URL, beside its own events, each named.
    assert.equal(d.webhooks.reservation_webhook_url.post.summary, 'reservation.created, reservation.updated');
    assert.equal(d.webhooks.authority_report.post.summary, 'authority_report.updated');
    assert.equal(d.webhooks.authority_report.post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/AuthorityReportEvent');
  });

  it('sends / to the console', async () => {
    const r = await call(t, 'GET', '/');
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, '/console');
  });

  it('serves a readable API reference at /docs from the bundled renderer, under its own name and version', async () => {
    let r = await call(t, 'GET', '/docs/');
    if (r.status === 302) r = await call(t, 'GET', String(r.headers.location));
    assert.equal(r.status, 200);
    assert.match(r.body, /swagger-ui/i);
    assert.match(r.body, new RegExp(`<title>guestscreen ${version.replace(/\./g, '\\.')} API reference</title>`));
    // The bar shows the service's wordmark, not the renderer's logo.
    const init = await call(t, 'GET', '/docs/static/swagger-initializer.js');
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(init.body)?.[1];
    assert.match(Buffer.from(logo ?? '', 'base64').toString(), new RegExp(`guestscreen</text>.*API ${version.replace(/\./g, '\\.')}`, 's'));
    const asset = await call(t, 'GET', '/docs/static/swagger-ui-bundle.js');
    assert.equal(asset.status, 200, 'the renderer is served locally, not from a CDN');
  });

  it('answers health and readiness checks without a key', async () => {
    assert.deepEqual((await call(t, 'GET', '/healthz')).json, { status: 'ok', version });
    const ready = (await call(t, 'GET', '/readyz')).json;
    assert.equal(ready.status, 'ready');
    assert.deepEqual(
      ready.sources.map((x: { name: string }) => x.name),
      ['sanctions lists', 'news', 'IP threat feeds', 'criminal records'],
    );
  });
});

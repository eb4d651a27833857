import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, type TestApp } from './harness.js';

describe(`HTTP error handling (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    // A route that fails the way a bug would, to prove no stack or message leaks.
    t = await createTestApp({}, {
      configure: (app) =>
        app.get('/v1/__boom', { config: { public: true } }, async () => {
          throw new Error('secret internal detail at /srv/app.js:42');
        }),
    });
  });
  after(() => t.close());

  it('answers an unknown route with a JSON 404', async () => {
    const r = await call(t, 'GET', '/v1/no-such-thing', { key: t.root.key });
    assert.equal(r.status, 404);
    assert.equal(r.json.error, 'no route for GET /v1/no-such-thing');
    assert.equal(r.json.code, 'not_found');
    assert.match(r.json.request_id, /^req_/);
  });

  it('answers an unknown route without a key with 404, not 401', async () => {
    const r = await call(t, 'DELETE', '/v1/accounts/me');
    assert.equal(r.status, 404);
  });

  it('rejects malformed JSON with a 400 that says so', async () => {
    const r = await call(t, 'POST', '/v1/accounts/register', {
      key: t.root.key,
      rawBody: '{"name": "A", ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^body: malformed JSON/);
  });

  it('rejects a body that is not JSON with 415', async () => {
    const r = await call(t, 'POST', '/v1/accounts/register', {
      key: t.root.key,
      rawBody: 'name=A&email=a@b.example',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.status, 415);
    assert.match(r.json.error, /must be JSON/);
  });

  it('rejects a JSON body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), email: 'a@b.example' });
    const r = await call(t, 'POST', '/v1/accounts/register', {
      key: t.root.key,
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 413);
    assert.equal(r.json.error, 'request body is larger than the 1 MiB limit');
  });

  it('answers an unexpected failure with a 500 that carries a request id and no internals', async () => {
    const r = await call(t, 'GET', '/v1/__boom');
    assert.equal(r.status, 500);
    assert.equal(r.json.code, 'internal');
    assert.ok(r.json.error.includes(r.json.request_id));
    assert.ok(!r.body.includes('secret internal detail'));
    assert.ok(!r.body.includes('.js:'));
  });

  it('echoes a client-sent x-request-id', async () => {
    const r = await call(t, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(r.headers['x-request-id'], 'trace-123');
  });
});

describe(`rate limiting (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ GUESTSCREEN_RATE_LIMIT_PER_MINUTE: '3' });
  });
  after(() => t.close());

  it('answers 429 with Retry-After once a key exceeds its limit', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: t.root.key })).status, 200);
    const r = await call(t, 'GET', '/v1/accounts/me', { key: t.root.key });
    assert.equal(r.status, 429);
    assert.match(r.json.error, /rate limit of 3 requests per minute exceeded/);
    assert.ok(Number(r.headers['retry-after']) > 0);
  });
});

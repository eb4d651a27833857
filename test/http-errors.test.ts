import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, type TestApp } from './harness.js';

describe(`HTTP error handling (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    // A route that fails the way a bug would, to prove no stack or message leaks.
    t = await createTestApp(
      {},
      {
        configure: (app) =>
          app.get('/v1/__boom', { config: { public: true } }, async () => {
            throw new Error('secret internal detail at /srv/app.js:42');
          }),
      },
    );
  });
  after(() => t.close());

  it('answers an unknown route with a JSON 404', async () => {
    const r = await call(t, 'GET', '/v1/no-such-thing', { key: t.root.key });
    assert.equal(r.status, 404);
    assert.equal(r.json.error, 'no route for GET /v1/no-such-thing');
    assert.equal(r.json.code, 'not_found');
    assert.match(r.json.request_id, /^req_/);
  });

  it('answers a browser asking for /favicon.ico with the icon, not a 404', async () => {
    const r = await t.app.inject({ url: '/favicon.ico' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'image/x-icon');
    assert.deepEqual([...r.rawPayload.subarray(0, 4)], [0, 0, 1, 0], 'an ICO file');
  });

  it('answers an unknown route without a key with 404, not 401', async () => {
    const r = await call(t, 'DELETE', '/v1/accounts/me');
    assert.equal(r.status, 404);
  });

  it('answers 400 naming the field for NUL, unpaired surrogates and noncharacters anywhere in a request, and stores nothing', async () => {
    const k = { key: t.root.key };
    const cases: [string, string, unknown, RegExp][] = [
      ['GET', '/v1/reservations/a%00b', undefined, /^path\.id: must not contain U\+0000 \(NUL\)/],
      ['GET', '/v1/blocklist/a%00b', undefined, /^path\.id: must not contain U\+0000/],
      ['GET', '/v1/reservations?search=a%00b', undefined, /^query\.search: must not contain U\+0000/],
      ['GET', '/v1/reservations?emails=x%00%40example.com', undefined, /^query\.emails(\.0)?: must not contain U\+0000/],
      ['POST', '/v1/reservations', { guest: { first_name: 'A\u0000B', last_name: 'C' } }, /^body\.guest\.first_name: must not contain U\+0000 \(NUL\); found at character 2$/],
      ['POST', '/v1/reservations', { guest: { first_name: 'A', last_name: '\ud800' } }, /^body\.guest\.last_name: must not contain U\+D800 \(an unpaired surrogate\)/],
      ['POST', '/v1/reservations', { guest: { first_name: 'A', last_name: 'B\uffff' } }, /^body\.guest\.last_name: must not contain U\+FFFF \(a Unicode noncharacter\)/],
      ['POST', '/v1/reservations', { guest: { first_name: 'A', last_name: 'B' }, 'x\u0000': 1 }, /^body: a field name must not contain U\+0000/],
    ];
    for (const [method, url, body, error] of cases) {
      const r = await call(t, method, url, { ...k, body });
      assert.equal(r.status, 400, `${method} ${url}: ${r.body}`);
      assert.match(r.json.error, error);
    }
    const listed = await call(t, 'GET', '/v1/reservations', k);
    assert.equal(listed.json.total, 0, 'no reservation was written');
    // Characters beyond the BMP, paired surrogates and every other script are kept as sent.
    const ok = await call(t, 'POST', '/v1/reservations', { ...k, body: { guest: { first_name: 'Zoë 😀', last_name: 'Ангел' } } });
    assert.equal(ok.status, 200, ok.body);
    assert.equal(ok.json.guest.first_name, 'Zoë 😀');
  });

  it('answers 400 for a page offset that is not a finite safe integer, on every paged list', async () => {
    const lists = ['/v1/reservations', '/v1/accounts/children', '/v1/blocklist', '/v1/accounts/webhooks/deliveries', '/v1/background-check/results', '/v1/lookup/adverse-media/results'];
    for (const list of lists) {
      for (const [from, error] of [
        ['1e309', 'must be a finite number'],
        ['Infinity', 'must be a finite number'],
        ['99999999999999999999', 'must be <= 9007199254740991'],
      ]) {
        const r = await call(t, 'GET', `${list}?from=${from}`, { key: t.root.key });
        assert.equal(r.status, 400, `${list}?from=${from}: ${r.body}`);
        assert.equal(r.json.error, `query.from: ${error}`);
      }
    }
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

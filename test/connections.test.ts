import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, postOversized, rawConnection as rawClient, type TestApp } from './harness.js';

describe(`slow and oversized requests over real HTTP (${dbKind})`, () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp({ GUESTSCREEN_HEADERS_TIMEOUT_SECONDS: '1', GUESTSCREEN_REQUEST_TIMEOUT_SECONDS: '2' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  it('closes a connection that sends its headers a line at a time, once the headers timeout passes', async () => {
    const { ms } = await rawClient(port, (s) => {
      s.write('GET /healthz HTTP/1.1\r\n');
      const timer = setInterval(() => s.writable && s.write(`x-slow-${Date.now()}: 1\r\n`), 300);
      s.on('close', () => clearInterval(timer));
    });
    assert.ok(ms < 1000 + 1500, `closed after ${ms} ms`);
  });

  it('answers 408 and closes a connection whose body trickles in past the request timeout', async () => {
    const { text, ms } = await rawClient(port, (s) => {
      s.write(`POST /v1/reservations HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.root.key}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`);
      const timer = setInterval(() => s.writable && s.write(' '), 300);
      s.on('close', () => clearInterval(timer));
    });
    assert.ok(ms < 2000 + 1500, `closed after ${ms} ms`);
    assert.match(text, /^HTTP\/1\.1 408/);
  });

  it('lets a client that sends a body over the limit before reading read the 413', async () => {
    for (const chunked of [false, true]) {
      const text = await postOversized(port, t.root.key, 8 * 1024 * 1024, chunked);
      assert.match(text, /^HTTP\/1\.1 413/, `${chunked ? 'chunked' : 'content-length'}: ${text.slice(0, 80)}`);
      assert.match(text, /request body is larger than the 1 MiB limit/);
    }
  });
});

describe(`failed authentications (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ GUESTSCREEN_AUTH_FAILURES_PER_MINUTE: '5' });
  });
  after(() => t.close());

  it('answers 429 with Retry-After once an address has failed too often, while a key in use keeps working', async () => {
    assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: t.root.key })).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: `gsk_wrong${i}` })).status, 401);
    const blocked = await call(t, 'GET', '/v1/accounts/me', { key: 'gsk_wrong-again' });
    assert.equal(blocked.status, 429);
    assert.match(blocked.json.error, /too many failed authentications from this address \(5 a minute\)/);
    assert.ok(Number(blocked.headers['retry-after']) > 0);
    assert.equal((await call(t, 'GET', '/v1/accounts/me')).status, 429, 'a request without a key too');
    assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: t.root.key })).status, 200, 'the key in use is known to this process');
  });
});

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, eventually, type TestApp } from './harness.js';

/** The slow route's steps, for the test that gives up on it. */
const slow = { entered: () => {}, left: () => {} };

describe(`the access log (${dbKind})`, () => {
  let t: TestApp;
  const lines: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  before(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await createTestApp(
      {},
      {
        logger: { level: 'info', stream },
        // A route slow enough for a client to give up on it.
        configure: (app) =>
          app.get('/v1/__slow', { config: { public: true } }, async () => {
            slow.entered();
            await sleep(300);
            slow.left();
            return { ok: true };
          }),
      },
    );
  });
  after(() => t.close());

  it('writes one line a request, with its id, method, path, status and time, and not its key', async () => {
    lines.length = 0;
    const ok = await call(t, 'GET', '/v1/accounts/me', { key: t.root.key });
    const missing = await call(t, 'GET', '/v1/reservations/res_nope', { key: t.root.key });
    assert.equal(ok.status, 200);
    assert.equal(missing.status, 404);

    const access = lines.filter((l) => l.msg === 'request completed');
    assert.equal(access.length, 2);
    assert.equal(lines.filter((l) => l.msg === 'incoming request').length, 0);
    assert.deepEqual(
      access.map((l) => [l.reqId, l.method, l.url, l.statusCode]),
      [
        [ok.headers['x-request-id'], 'GET', '/v1/accounts/me', 200],
        [missing.headers['x-request-id'], 'GET', '/v1/reservations/res_nope', 404],
      ],
    );
    for (const l of access) {
      assert.equal(typeof l.responseTime, 'number');
      assert.equal(l.remoteAddress, '127.0.0.1');
    }
    assert.ok(!JSON.stringify(lines).includes(t.root.key), 'the API key is not logged');
  });

  it("shows a guest portal's or a signup link's token as …, since it opens what it names", async () => {
    lines.length = 0;
    const token = 'Tk9tYWRlVXBUb2tlbkZvclRoZUxvZ1Rlc3Q';
    await call(t, 'GET', `/gp/${token}?step=AboutYou`);
    await call(t, 'GET', `/signup/${token}`);
    const urls = lines.filter((l) => l.msg === 'request completed').map((l) => l.url);
    assert.deepEqual(urls, ['/gp/…?step=AboutYou', '/signup/…']);
    assert.ok(!JSON.stringify(lines).includes(token), 'the token is not logged');
  });

  it("hides a lookup's personal value, a search term and an e-mail filter, and keeps ids and filters", async () => {
    lines.length = 0;
    const phone = '+14155552671';
    const email = 'jane.roe@example.com';
    await call(t, 'GET', `/v1/lookup/phone/${encodeURIComponent(phone)}`, { key: t.root.key });
    await call(t, 'GET', `/v1/lookup/breaches/${encodeURIComponent(email)}`, { key: t.root.key });
    await call(t, 'GET', `/v1/reservations?search=Roe&emails=${encodeURIComponent(email)}&status=accepted&size=5`, { key: t.root.key });
    await call(t, 'GET', '/v1/reservations/res_0123?pms=api', { key: t.root.key });
    await call(t, 'GET', `/v1/no-such-route?q=Roe`, { key: t.root.key });
    const urls = lines.filter((l) => l.msg === 'request completed').map((l) => l.url);
    assert.deepEqual(urls, ['/v1/lookup/phone/…', '/v1/lookup/breaches/…', '/v1/reservations?search=…&emails=…&status=accepted&size=5', '/v1/reservations/res_0123?pms=api', '/v1/no-such-route?q=…']);
    for (const personal of [phone, encodeURIComponent(phone), email, encodeURIComponent(email), 'Roe']) {
      assert.ok(!JSON.stringify(lines).includes(personal), `${personal} is not logged`);
    }
  });

  it('writes a line for a request whose client went away before the answer, and no completed line', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    lines.length = 0;
    const entered = new Promise<void>((resolve) => (slow.entered = resolve));
    const left = new Promise<void>((resolve) => (slow.left = resolve));
    const req = httpRequest({ host: '127.0.0.1', port, path: '/v1/__slow?x=1' });
    req.on('error', () => {});
    req.end();
    await entered;
    req.destroy();
    await eventually(async () => lines.some((l) => l.msg === 'request aborted'), 'the aborted line');
    await left;
    // The handler's answer, to a closed connection, is not logged as completed.
    await sleep(50);
    const ours = lines.filter((l) => l.url === '/v1/__slow?x=…');
    assert.deepEqual(
      ours.map((l) => [l.msg, l.method]),
      [['request aborted', 'GET']],
    );
  });
});

describe(`behind a trusted reverse proxy (${dbKind})`, () => {
  const lines: Record<string, unknown>[] = [];
  let t: TestApp;
  before(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    t = await createTestApp({ GUESTSCREEN_TRUSTED_PROXIES: '127.0.0.1', GUESTSCREEN_AUTH_FAILURES_PER_MINUTE: '2' }, { logger: { level: 'info', stream } });
  });
  after(() => t.close());
  const from = (client: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'GET', url: '/v1/accounts/me', remoteAddress, headers: { 'x-api-key': 'gsk_wrong', 'x-forwarded-for': client } });

  it("logs and throttles the client's address from X-Forwarded-For, and believes it only from the proxy", async () => {
    lines.length = 0;
    assert.equal((await from('203.0.113.9')).statusCode, 401);
    assert.equal((await from('203.0.113.9')).statusCode, 401);
    assert.equal((await from('203.0.113.9')).statusCode, 429, 'the third failure from one client is turned away');
    assert.equal((await from('198.51.100.7')).statusCode, 401, 'another client behind the same proxy is not');
    // From an address that is not the proxy, the header is the client's own claim: the peer is logged.
    assert.equal((await from('198.51.100.8', '192.0.2.50')).statusCode, 401);
    assert.deepEqual(
      lines.filter((l) => l.msg === 'request completed').map((l) => l.remoteAddress),
      ['203.0.113.9', '203.0.113.9', '203.0.113.9', '198.51.100.7', '192.0.2.50'],
    );
  });
});

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, type TestApp } from './harness.js';

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
    t = await createTestApp({}, { logger: { level: 'info', stream } });
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
});

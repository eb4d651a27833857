import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { addressProblem, assertPublicHost, postOutbound, type Resolver } from './outbound.js';

describe('SSRF guard', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  let requests = 0;

  before(async () => {
    server = createServer((req, res) => {
      requests += 1;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
        return;
      }
      if (req.url === '/big') {
        res.end('x'.repeat(1024 * 1024));
        return;
      }
      res.end('ok');
    });
    server.on('connection', () => (connections += 1));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });
  after(() => server.close());

  // Resolves every name to the local test server: what a malicious DNS answer would do.
  const toLoopback: Resolver = (_host, _opts, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]);

  it('classifies private, reserved and mapped addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '2001::1',
      '::127.0.0.1',
      '::7f00:1',
      '::10.0.0.1',
    ]) {
      assert.ok(addressProblem(a), `${a} is refused`);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(addressProblem(a), null, a);
  });

  it('refuses a name that resolves to loopback, without opening a connection', async () => {
    const before = connections;
    await assert.rejects(
      postOutbound(`http://hooks.example.test:${port}/x`, '{}', {}, { allowPrivate: false, resolver: toLoopback }),
      /refused hooks\.example\.test: 127\.0\.0\.1 is a loopback address/,
    );
    assert.equal(connections, before, 'no connection was attempted');
  });

  it('refuses literal private IPs in every spelling, without opening a connection', async () => {
    const before = connections;
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]']) {
      await assert.rejects(postOutbound(`http://${host}:${port}/x`, '{}', {}, { allowPrivate: false }), /refused/, host);
    }
    assert.equal(connections, before);
  });

  it('refuses at registration a name that resolves privately, and one that does not resolve', async () => {
    await assert.rejects(assertPublicHost('https://hooks.example.test/x', { allowPrivate: false, resolver: toLoopback }), /resolves to 127\.0\.0\.1 is a loopback address/);
    const nx: Resolver = (_h, _o, cb) => cb(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }), []);
    await assert.rejects(assertPublicHost('https://nowhere.example.test/x', { allowPrivate: false, resolver: nx }), /does not resolve \(ENOTFOUND\)/);
    const pub: Resolver = (_h, _o, cb) => cb(null, [{ address: '93.184.216.34', family: 4 }]);
    await assertPublicHost('https://public.example.test/x', { allowPrivate: false, resolver: pub });
  });

  it('connects to the checked address when private targets are allowed, and does not follow redirects', async () => {
    const ok = await postOutbound(`http://hooks.example.test:${port}/ok`, '{}', {}, { allowPrivate: true, resolver: toLoopback });
    assert.equal(ok.status, 200);
    assert.equal(ok.body, 'ok');
    const seen = requests;
    const redirect = await postOutbound(`http://127.0.0.1:${port}/redirect`, '{}', {}, { allowPrivate: true });
    assert.equal(redirect.status, 302);
    assert.equal(requests, seen + 1, 'the redirect target was not requested');
  });

  it('reads at most the response cap', async () => {
    const r = await postOutbound(`http://127.0.0.1:${port}/big`, '{}', {}, { allowPrivate: true, maxResponseBytes: 1000 });
    assert.equal(r.body.length, 1000);
  });

  it('refuses other schemes and credentials in the URL', async () => {
    await assert.rejects(postOutbound('ftp://example.test/x', '{}', {}, { allowPrivate: true }), /must use http or https/);
    await assert.rejects(postOutbound(`http://u:p@127.0.0.1:${port}/`, '{}', {}, { allowPrivate: true }), /must not carry credentials/);
  });
});

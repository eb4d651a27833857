/**
 * The SSRF corpus: URL forms that reach this machine, its network or its cloud's metadata
 * service, each tried through the outbound guard with an injected resolver (names resolve to
 * what an attacker's DNS would answer) and against a listening server that counts connections
 * (the spy). Every form is also registered as a webhook URL through the API, which must refuse it.
 */
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:net';
import { postOutbound, type Resolver } from '../../src/lib/outbound.js';
import { call } from '../../test/harness.js';
import type { World } from './world.js';

/** What the attacker's DNS answers for each name of the corpus. */
const DNS: Record<string, string[]> = {
  'localhost.': ['127.0.0.1'],
  'loopback.attacker.test': ['127.0.0.1'],
  'v6loop.attacker.test': ['::1'],
  'private10.attacker.test': ['10.0.0.5'],
  'private172.attacker.test': ['172.20.1.1'],
  'private192.attacker.test': ['192.168.1.10'],
  'metadata.attacker.test': ['169.254.169.254'],
  'cgnat.attacker.test': ['100.64.0.1'],
  'zero.attacker.test': ['0.0.0.0'],
  'mapped.attacker.test': ['::ffff:127.0.0.1'],
  'compat.attacker.test': ['::127.0.0.1'],
  'nat64.attacker.test': ['64:ff9b::7f00:1'],
  'sixtofour.attacker.test': ['2002:7f00:1::1'],
  'ula.attacker.test': ['fd00::1'],
  'linklocal6.attacker.test': ['fe80::1'],
  'mixed.attacker.test': ['93.184.216.34', '127.0.0.1'],
  'multicast.attacker.test': ['224.0.0.1'],
  'broadcast.attacker.test': ['255.255.255.255'],
  'benchmark.attacker.test': ['198.18.0.1'],
  'reserved.attacker.test': ['240.0.0.1'],
  'teredo.attacker.test': ['2001::1'],
};

/** Host forms (literal or named) that must all be refused; the port is the spy's. */
const HOSTS = [
  '127.0.0.1',
  '127.1',
  '127.0.1',
  '2130706433',
  '0x7f000001',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '017700000001',
  '127.000.000.001',
  '127.255.255.254',
  '0.0.0.0',
  '0',
  '[::1]',
  '[::]',
  '[0:0:0:0:0:0:0:1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::127.0.0.1]',
  '[::7f00:1]',
  '[0:0:0:0:0:ffff:127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[2002:7f00:1::]',
  '[fe80::1]',
  '[fd00::1]',
  '[ff02::1]',
  '[::ffff:169.254.169.254]',
  '[::ffff:a00:1]',
  '[2001::7f00:1]',
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.0.1',
  '169.254.169.254',
  '169.254.0.1',
  '100.64.0.1',
  '100.127.255.255',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '192.0.0.1',
  '192.0.2.1',
  '198.18.0.1',
  '198.51.100.1',
  '203.0.113.1',
  ...Object.keys(DNS),
];

/** Forms refused for what they are, before any address is looked at. */
const MALFORMED = [
  'file:///etc/passwd',
  'gopher://127.0.0.1:70/_x',
  'ftp://127.0.0.1/',
  'data:text/plain,hello',
  'javascript:alert(1)',
  'dict://127.0.0.1:11211/stat',
  'http://user:pass@93.184.216.34/',
  'http://user@93.184.216.34/',
  'http://[::1/',
  'not a url',
];

export interface SsrfFigures {
  forms: number;
  refusedByGuard: number;
  refusedAtRegistration: number;
  connections: number;
  rebindingRefused: boolean;
  leaks: string[];
}

export async function ssrfCorpus(w: World): Promise<SsrfFigures> {
  let connections = 0;
  const spy = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => spy.listen(0, '0.0.0.0', resolve));
  const port = (spy.address() as { port: number }).port;
  const resolver: Resolver = (hostname, _options, callback) => {
    const answer = DNS[hostname] ?? DNS[`${hostname}.`];
    if (!answer) return callback(Object.assign(new Error(`${hostname} unknown to the corpus's DNS`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      answer.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  const urls = [...HOSTS.flatMap((h) => [`http://${h}:${port}/hook`, `https://${h}:${port}/hook`]), ...MALFORMED];
  const figures: SsrfFigures = { forms: urls.length, refusedByGuard: 0, refusedAtRegistration: 0, connections: 0, rebindingRefused: false, leaks: [] };
  for (const url of urls) {
    try {
      await postOutbound(url, '{}', {}, { allowPrivate: false, resolver, timeoutMs: 2000 });
      figures.leaks.push(`guard let through ${url}`);
    } catch (err) {
      if ((err as { code?: string }).code === 'OUTBOUND_REFUSED') figures.refusedByGuard += 1;
      else if ((err as { code?: string }).code === 'ENOTFOUND') figures.refusedByGuard += 1;
      else figures.leaks.push(`guard failed otherwise on ${url}: ${(err as Error).message}`);
    }
  }
  // Registration as a webhook, through the API, with the guard's own resolver: literal forms must be refused.
  const literal = urls.filter((u) => !Object.keys(DNS).some((name) => u.includes(name)));
  // The service as deployed: private targets refused (tests allow them, to reach local receivers).
  const allowed = w.t.deps.config.allowPrivateTargets;
  w.t.deps.config.allowPrivateTargets = false;
  for (const url of literal) {
    const r = await call(w.t, 'POST', '/v1/accounts/webhooks', { key: w.principals.owner, body: { webhook_key: 'listing_webhook_url', webhook_url: url } });
    if (r.status === 400) figures.refusedAtRegistration += 1;
    else figures.leaks.push(`registration answered ${r.status} for ${url}`);
  }
  w.t.deps.config.allowPrivateTargets = allowed;
  // DNS rebinding: public when checked at registration, loopback when connecting.
  let asked = 0;
  const rebinding: Resolver = (_h, _o, cb) => cb(null, [{ address: asked++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }]);
  const { assertPublicHost } = await import('../../src/lib/outbound.js');
  await assertPublicHost(`http://rebind.attacker.test:${port}/`, { allowPrivate: false, resolver: rebinding });
  try {
    await postOutbound(`http://rebind.attacker.test:${port}/`, '{}', {}, { allowPrivate: false, resolver: rebinding, timeoutMs: 2000 });
  } catch (err) {
    figures.rebindingRefused = (err as { code?: string }).code === 'OUTBOUND_REFUSED';
  }
  figures.forms += 1;
  figures.connections = connections;
  await new Promise<void>((resolve) => spy.close(() => resolve()));
  return figures;
}

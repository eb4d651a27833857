import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call, createTestApp, dbKind, openApp, type TestApp } from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const cli = (args: string[], env: Record<string, string>) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe(`guestscreen backup and restore (${dbKind})`, () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    t = await createTestApp();
    dir = mkdtempSync(path.join(tmpdir(), 'guestscreen-backup-test-'));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on PostgreSQL, names the pg_dump command instead', { skip: dbKind !== 'postgres' && 'PostgreSQL only' }, () => {
    const r = cli(['backup', path.join(dir, 'pg.tar.gz')], t.env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /pg_dump --format=custom --file=FILE "\$DATABASE_URL"/);
    assert.ok(!existsSync(path.join(dir, 'pg.tar.gz')));
  });

  it('backs up while reservations are written, and restores every one acknowledged before it began', { skip: dbKind !== 'sqlite' && 'the embedded database only' }, async () => {
    const file = path.join(dir, 'guestscreen.tar.gz');
    const acknowledged: string[] = [];
    let writing = true;
    const write = async () => {
      for (let i = 0; writing; i++) {
        const code = `BK-${i}`;
        const r = await call(t, 'POST', '/v1/reservations', {
          key: t.root.key,
          body: { confirmation_code: code, check_in_date: '2027-03-01', check_out_date: '2027-03-04', guest: { first_name: 'Ada', last_name: `Backup${i}` } },
        });
        assert.equal(r.status, 200, r.body);
        acknowledged.push(code);
      }
    };
    const writer = write();
    while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 10));
    const beforeBackup = acknowledged.length;
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'backup', file], { env: { PATH: process.env.PATH ?? '', ...t.env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    const duringBackup = acknowledged.length - beforeBackup;
    writing = false;
    await writer;
    assert.equal(code, 0, output);
    assert.ok(duringBackup > 0, 'reservations were written while the backup ran');
    assert.match(output, /^backup of .* written to .*guestscreen\.tar\.gz \(\d+\.\d MB: guestscreen\.db\)\n$/);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'only its owner reads the backup');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('.guestscreen-backup-')),
      [],
      'no staging files are left',
    );

    // Into a new data directory, named on the command line, with the installation's secret.
    const restoredDir = path.join(dir, 'restored');
    const env = { ...t.env, GUESTSCREEN_DATA_DIR: restoredDir };
    const restored = cli(['restore', file, '--data-dir', restoredDir], { ...t.env, GUESTSCREEN_DATA_DIR: path.join(dir, 'elsewhere') });
    assert.equal(restored.code, 0, restored.stderr);
    for (const f of readdirSync(restoredDir)) assert.equal(statSync(path.join(restoredDir, f)).mode & 0o077, 0, `${f} is its owner's alone`);
    assert.equal(statSync(restoredDir).mode & 0o777, 0o700);
    assert.match(restored.stdout, /^restored guestscreen\.db into .*restored \(schema at \d{4}-[a-z-]+\)/);
    const again = cli(['restore', file], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /the data directory .*restored is not empty/);

    const app = await openApp(env);
    try {
      const get = (url: string) => call({ ...t, app }, 'GET', url, { key: t.root.key });
      const items: { id: string; confirmation_code: string }[] = [];
      for (let from = 0; ; from += 100) {
        const page = await get(`/v1/reservations?size=100&from=${from}`);
        assert.equal(page.status, 200, page.body);
        items.push(...page.json.items);
        if (page.json.items.length < 100) break;
      }
      const codes = new Set(items.map((r) => r.confirmation_code));
      // A snapshot as of one commit: every reservation acknowledged before the backup began, and
      // of those written during it, the first ones up to some point, none missing in between.
      assert.ok(codes.size >= beforeBackup && codes.size <= acknowledged.length, `${codes.size} restored of ${beforeBackup}…${acknowledged.length}`);
      assert.deepEqual([...codes].sort(), acknowledged.slice(0, codes.size).sort());
      // The encrypted fields open: the root key, kept sealed, authenticates; the guest reads back.
      const one = items[0];
      const got = await get(`/v1/reservations/${one?.id}`);
      assert.match(got.json.guest.last_name, /^Backup\d+$/);
    } finally {
      await app.close();
    }
  });

  it('refuses a file that is not a backup, and a secret that does not open the restored data', { skip: dbKind !== 'sqlite' && 'the embedded database only' }, () => {
    const junk = path.join(dir, 'junk.tar.gz');
    writeFileSync(junk, 'not a tar file');
    const empty = path.join(dir, 'empty');
    let r = cli(['restore', junk], { ...t.env, GUESTSCREEN_DATA_DIR: empty });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is not a guestscreen backup/);

    r = cli(['restore', path.join(dir, 'guestscreen.tar.gz')], { ...t.env, GUESTSCREEN_DATA_DIR: empty, GUESTSCREEN_SECRET: 'another-secret-that-is-long-enough-0123456789' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /do not open with this GUESTSCREEN_SECRET/);
    assert.deepEqual(readdirSync(empty), [], 'nothing is left for a start to pick up');

    r = cli(['backup', path.join(dir, 'guestscreen.tar.gz')], t.env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /exists; name a new file/);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call, createTestAppWithWorker, dbKind, eventually, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const CLI = fileURLToPath(new URL('../../cli.ts', import.meta.url));

describe(`blocklist (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  before(async () => {
    t = await createTestAppWithWorker();
    me = await tenant(t);
  });
  after(() => t.close());

  const screen = async (guest: Record<string, unknown>, identification: Record<string, unknown> = {}) => {
    const r = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', {
      key: me.key,
      body: { check_in_date: day(10), check_out_date: day(12), guest: { first_name: 'Tom', last_name: 'Hardy', ...guest }, identification },
    });
    return (await call(t, 'GET', `/v1/reservations/${r.json.id}/summary`, { key: me.key })).json;
  };

  it('adds, lists, reads and removes entries, normalising what it stores', async () => {
    const a = await call(t, 'POST', '/v1/blocklist', {
      key: me.key,
      body: { name: 'Viktor Krum', email: 'Viktor.Krum@Example.com', phone: '+44 20 7946 0958', document_number: 'ab-123 456', reason: 'party, damage' },
    });
    assert.equal(a.status, 200, a.body);
    assert.equal(a.json.email, 'viktor.krum@example.com');
    assert.equal(a.json.phone, '+442079460958');
    assert.equal(a.json.document_number, 'AB123456');
    const list = (await call(t, 'GET', '/v1/blocklist', { key: me.key })).json;
    assert.equal(list.total, 1);
    assert.equal((await call(t, 'GET', `/v1/blocklist/${a.json.id}`, { key: me.key })).json.reason, 'party, damage');
    const changed = await call(t, 'PUT', `/v1/blocklist/${a.json.id}`, { key: me.key, body: { reason: 'party', phone: '+44 20 7946 0000' } });
    assert.equal(changed.status, 200, changed.body);
    assert.equal(changed.json.reason, 'party');
    assert.equal(changed.json.phone, '+442079460000');
    assert.equal(changed.json.email, 'viktor.krum@example.com');
    assert.equal((await call(t, 'DELETE', `/v1/blocklist/${a.json.id}`, { key: me.key })).status, 200);
    assert.equal((await call(t, 'GET', `/v1/blocklist/${a.json.id}`, { key: me.key })).status, 404);
  });

  it('rejects an entry with nothing to recognise the guest by', async () => {
    const r = await call(t, 'POST', '/v1/blocklist', { key: me.key, body: { reason: 'no identifiers' } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'body: needs at least one of name, email, phone, document_number');
    assert.equal((await call(t, 'POST', '/v1/blocklist', { key: me.key, body: { email: 'x@example.test' } })).json.error, 'body.reason: is required');
  });

  it('declines a guest whose e-mail, phone or document is on the blocklist, naming the entry', async () => {
    const entry = (await call(t, 'POST', '/v1/blocklist', { key: me.key, body: { email: 'trouble@example.com', document_number: 'X9 99', reason: 'damaged the flat' } })).json;
    const byEmail = await screen({ email: 'Trouble@Example.com' });
    assert.equal(byEmail.verification_status, 'declined');
    assert.equal(byEmail.details.blacklist.status, 'FAIL');
    assert.equal(byEmail.top_risks[0], "Guest's e-mail matches your blocklist entry (damaged the flat)");
    assert.equal(entry.reason, 'damaged the flat');
    const byDoc = await screen({ email: 'someone.else@gmail.com' }, { document_number: 'x999' });
    assert.equal(byDoc.verification_status, 'declined');
  });

  it('sends a close name to review, and leaves a different name alone', async () => {
    await call(t, 'POST', '/v1/blocklist', { key: me.key, body: { name: 'Jonathan Ashworth', reason: 'fraudulent chargeback' } });
    const close = await screen({ first_name: 'Jonathon', last_name: 'Ashworth', email: 'ja@gmail.com' });
    assert.equal(close.details.blacklist.status, 'REVIEW');
    assert.equal(close.verification_status, 'review');
    assert.equal(close.details.blacklist.value, "Guest's name is close to your blocklist entry “Jonathan Ashworth” (fraudulent chargeback)");
    const other = await screen({ first_name: 'Joanna', last_name: 'Ashdown', email: 'jo@gmail.com' });
    assert.equal(other.details.blacklist.status, 'PASS');
  });

  it("screens a current guest's stays that have not ended again when the guest is blocked, and says an exact name is the same", async () => {
    const host = await tenant(t);
    const book = async (from: number, to: number) =>
      (
        await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', {
          key: host.key,
          body: { check_in_date: day(from), check_out_date: day(to), guest: { first_name: 'Piotr', last_name: 'Nowak', email: 'piotr.nowak@example.org' } },
        })
      ).json.id as string;
    const upcoming = await book(5, 8);
    const later = await book(40, 42);
    const ended = await book(-9, -6);
    const summary = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: host.key })).json;
    assert.equal((await summary(upcoming)).verification_status, 'verified');
    const entry = await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { name: 'Piotr Nowak', reason: 'smoked inside' } });
    assert.equal(entry.status, 200, entry.body);
    // Added twice, it is one entry.
    const twice = await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { name: '  piotr   NOWAK ', reason: 'again' } });
    assert.equal(twice.json.id, entry.json.id);
    assert.equal((await call(t, 'GET', '/v1/blocklist', { key: host.key })).json.total, 1);
    for (const id of [upcoming, later]) {
      const s = await eventually(async () => {
        const x = await summary(id);
        return x.verification_status === 'review' ? x : undefined;
      }, 'the stay screened again');
      assert.deepEqual(s.top_risks, ["Guest's name is the same as your blocklist entry “Piotr Nowak” (smoked inside)"]);
    }
    assert.equal((await summary(ended)).verification_status, 'verified', 'a stay that is over is left as it was');
    // A malformed e-mail is refused by the API too.
    const bad = await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { email: 'not-an-email', reason: 'x' } });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /email/);
  });

  it('imports entries from CSV with the CLI, skipping bad rows by line', async () => {
    const file = path.join(t.env.GUESTSCREEN_DATA_DIR!, 'blocklist.csv');
    writeFileSync(
      file,
      [
        'name,email,phone,document_number,reason',
        'Carla Mendes,carla@example.com,,,"left without paying"',
        ',,,,no identifiers',
        'Igor P,,+351 912 000 111,,threats',
        ',mx@example.com,,,',
        'Nina Bad,not-an-email,,,party',
      ].join('\n'),
    );
    const target = await tenant(t);
    const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'data', 'import', 'blocklist', file, '--account', target.account.id, '--json'], {
      env: { PATH: process.env.PATH ?? '', ...t.env },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.imported, 2);
    assert.deepEqual(out.rejected, [
      { line: 3, problem: 'needs at least one of name, email, phone, document_number' },
      { line: 5, problem: 'reason is required' },
      { line: 6, problem: "email: 'not-an-email' is not an e-mail address" },
    ]);
    const list = (await call(t, 'GET', '/v1/blocklist', { key: target.key })).json;
    assert.deepEqual(list.items.map((e: { name: string }) => e.name).sort(), ['Carla Mendes', 'Igor P']);
    assert.ok(list.items.some((e: { phone: string | null }) => e.phone === '+351912000111'));
    // The same file again adds nothing: every row is already there.
    const again = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'data', 'import', 'blocklist', file, '--account', target.account.id], {
      env: { PATH: process.env.PATH ?? '', ...t.env },
      encoding: 'utf8',
    });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /imported 0 blocklist entries into .*; 2 already there, left as they were/);
    assert.equal((await call(t, 'GET', '/v1/blocklist', { key: target.key })).json.total, 2);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'data', 'import', 'blocklist', file], { env: { PATH: process.env.PATH ?? '', ...t.env }, encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /required option '--account <id>' not specified/);
  });
});

import { MARCO as marco, POLICE_ONLY_SCREENS, runReportJob, stayThroughPortal } from '../../../test/police.js';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAlloggiati, type FakeAlloggiati } from '../../../test/fake-alloggiati.js';
import { call, createTestApp, dbKind, setPortalScreens, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { dayIn } from '../../lib/time.js';
import { refreshAlloggiatiTables } from './establishments.js';
import { receiptPdf } from './reports.js';

const ALLOGGIATI = { user: 'RM000123', password: 'Segreta1', wsKey: 'AAAA-BBBB-CCCC' };

/** Marco's family arriving in Rome: Anna his wife (born in Germany) and their son. */
const family = {
  guest_1_first_name: 'Anna',
  guest_1_last_name: 'Müller',
  guest_1_sex: 'female',
  guest_1_birth_date: '1981-02-03',
  guest_1_birth_country: 'Germany',
  guest_1_nationality: 'DE',
  guest_1_relationship: 'spouse',
  guest_2_first_name: 'Luca',
  guest_2_last_name: 'Rossi',
  guest_2_sex: 'male',
  guest_2_birth_date: '2015-09-09',
  guest_2_birth_country: 'IT',
  guest_2_birth_place: 'Roma',
  guest_2_nationality: 'IT',
  guest_2_relationship: 'child',
};

describe(`police reports to Alloggiati Web (${dbKind})`, () => {
  let t: TestApp;
  let fake: FakeAlloggiati;
  let me: Tenant;
  const today = () => dayIn(new Date().toISOString(), 'Europe/Rome');
  const inDays = (n: number) => new Date(Date.parse(today()) + n * 86_400_000).toISOString().slice(0, 10);
  before(async () => {
    fake = await startFakeAlloggiati(ALLOGGIATI, today);
    t = await createTestApp({ GUESTSCREEN_ALLOGGIATI_URL: fake.url });
    me = await tenant(t);
    await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
    const est = await call(t, 'PUT', '/v1/accounts/authority-establishment', {
      key: me.key,
      body: { system: 'alloggiati', username: ALLOGGIATI.user, password: ALLOGGIATI.password, ws_key: ALLOGGIATI.wsKey },
    });
    assert.equal(est.status, 200, est.body);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const runSend = (id: string) => runReportJob(t.deps, id);
  const reports = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/authority-reports`, { key: me.key })).json.reports as Record<string, unknown>[];
  const stay = (answers: Record<string, string>, guests: number, checkIn = today()) =>
    stayThroughPortal(t, me.key, { answers, guests, checkIn, nights: 3, timezone: 'Europe/Rome', guest: { first_name: 'Marco', last_name: 'Rossi' }, language: 'it' });

  it('fetches its code tables from the service when the establishment is saved, and says what to do when they are gone', async () => {
    const est = await call(t, 'GET', '/v1/accounts/authority-establishment', { key: me.key });
    assert.equal(est.json.tables_as_of, new Date().toISOString().slice(0, 10));
    assert.ok(fake.calls.includes('Tabella'));
    rmSync(path.join(t.deps.config.dataDir, 'authority', 'alloggiati-tables.json'));
    const b = await stay({ ...marco, ...family }, 3);
    assert.equal(b.saved.ok, true);
    await runSend(b.id);
    const [first] = await reports(b.id);
    assert.equal(first!.state, 'rejected');
    assert.match(String((first!.error as { fix: string }).fix), /guestscreen data import alloggiati-tables on the server/);

    const imported = await refreshAlloggiatiTables(t.deps);
    assert.deepEqual({ ...imported, establishment: undefined }, { places: 9, documents: 3, as_of: new Date().toISOString().slice(0, 10), establishment: undefined });
  });

  it('checks each place against the tables as it was on the day, in the guest’s language', async () => {
    const refused = await stay({ ...marco, birth_place: 'Atlantide', ...family, guest_2_birth_place: 'Castelnuovo Vecchio' }, 3);
    assert.equal(refused.saved.ok, false);
    const said = refused.saved.ok ? [] : refused.saved.problems.map((p) => p.message);
    assert.ok(
      said.some((m) => /Comune di nascita: l’elenco della Polizia di Stato non ha un comune con questo nome/.test(m)),
      said.join(' | '),
    );
    assert.ok(
      said.some((m) => /Ospite 3: comune di nascita/.test(m)),
      'a comune that stopped being valid before the birth is refused',
    );
  });

  it('checks a family with Test in test mode and files nothing', async () => {
    const b = await stay({ ...marco, ...family }, 3);
    assert.equal(b.saved.ok, true, JSON.stringify(b.saved));
    const calls = fake.calls.length;
    await runSend(b.id);
    assert.deepEqual(fake.calls.slice(calls), ['GenerateToken', 'Test']);
    assert.deepEqual(
      (await reports(b.id)).map((x) => [x.guest_name, x.state, x.mode, x.receipt]),
      [
        ['Marco Rossi', 'accepted', 'test', null],
        ['Anna Müller', 'accepted', 'test', null],
        ['Luca Rossi', 'accepted', 'test', null],
      ],
    );
  });

  it('files a family for real in production, head first, keeps the day’s receipt, and says a late arrival must be filed by hand', async () => {
    const prod = await call(t, 'PUT', '/v1/accounts/authority-establishment', { key: me.key, body: { system: 'alloggiati', mode: 'production' } });
    assert.equal(prod.status, 200, prod.body);
    const b = await stay({ ...marco, ...family }, 3);
    const calls = fake.calls.length;
    await runSend(b.id);
    assert.deepEqual(fake.calls.slice(calls), ['GenerateToken', 'Test', 'Send', 'Ricevuta']);
    const rows = fake.filed.get(today())!.slice(-3);
    assert.deepEqual(
      rows.map((row) => [row.slice(0, 2), [...row].length]),
      [
        ['17', 168],
        ['19', 168],
        ['19', 168],
      ],
      'a family: its head first, then its members',
    );
    assert.match(rows[0]!, /100000100.{9}IDENT/, 'an Italian, with the code of the identity card');
    const got = await reports(b.id);
    assert.deepEqual(
      got.map((x) => [x.state, x.receipt]),
      [
        ['accepted', today()],
        ['accepted', today()],
        ['accepted', today()],
      ],
    );
    const pdf = await receiptPdf(t.deps, me.account.id, b.id, today());
    assert.equal(pdf?.subarray(0, 5).toString(), '%PDF-');
    // The same receipt through the API, for a PMS that keeps the host's proofs.
    const viaApi = await call(t, 'GET', `/v1/reservations/${b.id}/authority-receipts/${today()}`, { key: me.key });
    assert.equal(viaApi.status, 200);
    assert.match(String(viaApi.headers['content-type']), /application\/pdf/);
    assert.equal((await call(t, 'GET', `/v1/reservations/${b.id}/authority-receipts/2020-01-01`, { key: me.key })).status, 404);
    const stranger = await tenant(t);
    assert.equal((await call(t, 'GET', `/v1/reservations/${b.id}/authority-receipts/${today()}`, { key: stranger.key })).status, 404);

    // Sent again by the host: filed already, nothing goes twice.
    assert.equal((await call(t, 'POST', `/v1/reservations/${b.id}/authority-reports`, { key: me.key })).status, 202);
    const before = fake.calls.length;
    await runSend(b.id);
    assert.equal(fake.calls.slice(before).includes('Send'), false);
    // One guest of a stay filed, another refused and sent again by the host: the filed guests
    // are not filed twice, and the host is told to finish in Alloggiati's portal.
    await t.deps.db.updateTable('authority_reports').set({ state: 'rejected', receipt: null }).where('reservation_id', '=', b.id).where('guest_index', '=', 2).execute();
    assert.equal((await call(t, 'POST', `/v1/reservations/${b.id}/authority-reports`, { key: me.key })).status, 202);
    const resent = fake.calls.length;
    await runSend(b.id);
    assert.equal(fake.calls.slice(resent).includes('Send'), false);
    const [, , refiled] = await reports(b.id);
    assert.equal(refiled!.state, 'rejected');
    assert.match(String((refiled!.error as { fix: string }).fix), /correct or add the guests in its portal/);

    // Arrived three days ago: the web service takes only today's and yesterday's arrivals.
    const late = await stay({ ...marco }, 1, inDays(-3));
    await runSend(late.id);
    const [report] = await reports(late.id);
    assert.equal(report!.state, 'rejected');
    assert.match(String((report!.error as { fix: string }).fix), /file these guests by hand/);
  });
});

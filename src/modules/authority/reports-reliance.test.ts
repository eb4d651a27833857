import { JUAN as juan, MARCO as marco, POLICE_ONLY_SCREENS, runReportJob } from '../../../test/police.js';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAlloggiati, type FakeAlloggiati } from '../../../test/fake-alloggiati.js';
import { startFakeSes, type FakeSes } from '../../../test/fake-ses.js';
import { call, createTestApp, dbKind, decodeQuotedPrintable, mailSince, setPortalScreens, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { translator } from '../../i18n/index.js';
import type { JobContext } from '../../jobs/worker.js';
import { hashPassword } from '../../lib/passwords.js';
import { dayIn } from '../../lib/time.js';
import { alertHourly, sendAlert } from '../alerts/service.js';
import { openPortal, reopenPoliceStep, saveStep, submitPortal, writePoliceDetails } from '../portal/service.js';
import { findReservation } from '../bookings/index.js';
import { setOwnerPassword } from '../users/service.js';
import { refreshAlloggiatiTables } from './establishments.js';
import { openReportsView, runAuthorityPlan, trackMissedStays } from './reports.js';

/**
 * What a host relies on, whatever the timing: a report says filed only when the authority took
 * it for real, a stay is filed once however many jobs and "send now"s race for it, and every
 * guest is followed to the deadline whether or not they opened the portal.
 */
const SES = { user: 'B12345678WS', password: 'secreta', arrendador: '0000000001' };
const ALLOGGIATI = { user: 'RM000123', password: 'Segreta1', wsKey: 'AAAA-BBBB-CCCC' };

describe(`police reports a host can rely on (${dbKind})`, () => {
  let t: TestApp;
  let sesTest: FakeSes;
  let sesProduction: FakeSes;
  let alloggiati: FakeAlloggiati;
  let me: Tenant;
  const romeToday = () => dayIn(new Date().toISOString(), 'Europe/Rome');
  const madridDay = (n: number) => dayIn(new Date(Date.now() + n * 86_400_000).toISOString(), 'Europe/Madrid');

  before(async () => {
    sesTest = await startFakeSes(SES);
    sesProduction = await startFakeSes(SES);
    alloggiati = await startFakeAlloggiati(ALLOGGIATI, romeToday);
    t = await createTestApp({ GUESTSCREEN_SES_TEST_URL: sesTest.url, GUESTSCREEN_SES_URL: sesProduction.url, GUESTSCREEN_ALLOGGIATI_URL: alloggiati.url });
    me = await tenant(t);
    await setOwnerPassword(t.deps, t.deps.db, me.account, await hashPassword('owner password'), null);
    await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
  });
  after(async () => {
    await t.close();
    await Promise.all([sesTest.close(), sesProduction.close(), alloggiati.close()]);
  });

  const establish = async (listing: string, body: Record<string, unknown>) => {
    const res = await call(t, 'PUT', `/v1/listings/${listing}/authority-establishment`, { key: me.key, body });
    assert.equal(res.status, 200, res.body);
  };
  const sesAt = (listing: string, mode = 'test') =>
    establish(listing, { system: 'ses', mode, landlord_code: SES.arrendador, establishment_code: '0000000042', username: SES.user, password: SES.password });
  const alloggiatiAt = (listing: string, mode = 'test') => establish(listing, { system: 'alloggiati', mode, username: ALLOGGIATI.user, password: ALLOGGIATI.password, ws_key: ALLOGGIATI.wsKey });
  const reports = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/authority-reports`, { key: me.key })).json.reports as Record<string, unknown>[];
  const sendNow = (id: string) => call(t, 'POST', `/v1/reservations/${id}/authority-reports`, { key: me.key });

  async function booking(listing: string, checkIn: string, guests: number, timezone: string) {
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        listing_id: listing,
        number_of_guests: guests,
        check_in_date: checkIn,
        check_out_date: new Date(Date.parse(checkIn) + 2 * 86_400_000).toISOString().slice(0, 10),
        listing_timezone_name: timezone,
        guest: { first_name: 'Juan', last_name: 'García' },
      },
    });
    assert.equal(r.status, 200, r.body);
    return { id: r.json.id as string, token: new URL(r.json.guest_portal_url).pathname.split('/').pop()! };
  }
  async function completed(listing: string, answers: Record<string, string>, timezone = 'Europe/Madrid', checkIn = madridDay(0)) {
    const b = await booking(listing, checkIn, 1, timezone);
    const saved = await saveStep(t.deps, await openPortal(t.deps, b.token), translator('en'), 'AuthorityReporting', answers, [], false);
    assert.equal(saved.ok, true, JSON.stringify(saved));
    await submitPortal(t.deps, await openPortal(t.deps, b.token));
    return b;
  }

  it('files for real after the switch to production what was only tested, and keeps the test label only on what the test service answered', async () => {
    await sesAt('sevilla');
    const b = await completed('sevilla', juan);
    for (let i = 0; i < 4; i++) await runReportJob(t.deps, b.id);
    let [report] = await reports(b.id);
    assert.deepEqual([report!.state, report!.mode, report!.tested], ['accepted', 'test', true]);
    const testReceipt = report!.receipt;
    assert.ok(testReceipt);

    await sesAt('sevilla', 'production');
    const parts = sesProduction.parts.length;
    const now = await sendNow(b.id);
    assert.equal(now.status, 202, now.body);
    assert.equal(now.json.sent, true, JSON.stringify(now.json.nothing_sent));
    assert.deepEqual(
      now.json.reports.map((x: Record<string, unknown>) => [x.state, x.mode, x.tested, x.receipt]),
      [['ready', 'production', false, null]],
    );
    for (let i = 0; i < 4; i++) await runReportJob(t.deps, b.id);
    assert.equal(sesProduction.parts.length, parts + 1, 'the Ministry’s production service received the stay');
    [report] = await reports(b.id);
    assert.deepEqual([report!.state, report!.mode, report!.tested], ['accepted', 'production', false]);
    assert.notEqual(report!.receipt, testReceipt);
    const proof = report!.proof as { sent: string; answer: string };
    assert.match(proof.sent, /<codigoEstablecimiento>0000000042<\/codigoEstablecimiento>/, 'what was sent is kept');
    assert.match(proof.answer, new RegExp(String(report!.receipt)), 'and what came back');

    // Alloggiati Web in test mode, switched: the arrival-day job files it for real without "send now".
    await alloggiatiAt('trastevere');
    await refreshAlloggiatiTables(t.deps, { account: me.account.id, listing: 'trastevere' });
    const a = await completed('trastevere', marco, 'Europe/Rome', romeToday());
    await runReportJob(t.deps, a.id);
    assert.deepEqual(
      (await reports(a.id)).map((x) => [x.state, x.mode, x.tested]),
      [['accepted', 'test', true]],
    );
    await alloggiatiAt('trastevere', 'production');
    const calls = alloggiati.calls.length;
    await runReportJob(t.deps, a.id);
    await runReportJob(t.deps, a.id);
    assert.equal(alloggiati.calls.slice(calls).filter((c) => c === 'Send').length, 1);
    assert.deepEqual(
      (await reports(a.id)).map((x) => [x.state, x.mode, x.tested, x.receipt]),
      [['accepted', 'production', false, romeToday()]],
    );
  });

  it('never calls a refusal of its own, before any authority was asked, a test answer', async () => {
    const fresh = await createTestApp({ GUESTSCREEN_ALLOGGIATI_URL: alloggiati.url });
    try {
      const other = await tenant(fresh);
      await setPortalScreens(fresh, other.key, POLICE_ONLY_SCREENS);
      await call(fresh, 'PUT', '/v1/accounts/authority-establishment', {
        key: other.key,
        body: { system: 'alloggiati', username: ALLOGGIATI.user, password: ALLOGGIATI.password, ws_key: ALLOGGIATI.wsKey },
      });
      // Saving it fetched the tables; without them (an operator removed the file), nothing can go.
      const r = await call(fresh, 'POST', '/v1/reservations', {
        key: other.key,
        body: { number_of_guests: 1, check_in_date: romeToday(), check_out_date: madridDay(3), listing_timezone_name: 'Europe/Rome', guest: { first_name: 'Marco', last_name: 'Rossi' } },
      });
      const token = new URL(r.json.guest_portal_url).pathname.split('/').pop()!;
      assert.equal((await saveStep(fresh.deps, await openPortal(fresh.deps, token), translator('it'), 'AuthorityReporting', marco, [], false)).ok, true);
      await submitPortal(fresh.deps, await openPortal(fresh.deps, token));
      rmSync(path.join(fresh.deps.config.dataDir, 'authority', 'alloggiati-tables.json'), { force: true });
      const now = await call(fresh, 'POST', `/v1/reservations/${r.json.id}/authority-reports`, { key: other.key });
      assert.equal(now.json.sent, false);
      assert.equal(now.json.nothing_sent.code, 'no_tables');
      await runReportJob(fresh.deps, r.json.id);
      const [report] = (await call(fresh, 'GET', `/v1/reservations/${r.json.id}/authority-reports`, { key: other.key })).json.reports;
      assert.deepEqual([report.state, report.error.code, report.tested], ['rejected', 'no_tables', false]);
    } finally {
      await fresh.close();
    }
  });

  it('files a stay once when jobs and "send now" race for it against a slow authority', async () => {
    await alloggiatiAt('monti', 'production');
    const a = await completed('monti', marco, 'Europe/Rome', romeToday());
    const calls = alloggiati.calls.length;
    alloggiati.answerAfter(300);
    try {
      await Promise.all([runReportJob(t.deps, a.id), runReportJob(t.deps, a.id), sendNow(a.id).then(() => runReportJob(t.deps, a.id)), runReportJob(t.deps, a.id)]);
    } finally {
      alloggiati.answerAfter(0);
    }
    const made = alloggiati.calls.slice(calls);
    assert.equal(made.filter((c) => c === 'Test').length, 1, made.join(' '));
    assert.equal(made.filter((c) => c === 'Send').length, 1, made.join(' '));
    assert.deepEqual(
      (await reports(a.id)).map((x) => x.state),
      ['accepted'],
    );

    await sesAt('triana', 'production');
    const b = await completed('triana', juan);
    const parts = sesProduction.parts.length;
    sesProduction.delayNext(6, 300);
    await Promise.all([runReportJob(t.deps, b.id), sendNow(b.id).then(() => runReportJob(t.deps, b.id)), runReportJob(t.deps, b.id)]);
    assert.equal(sesProduction.parts.length, parts + 1, 'one part received');
    assert.equal((await reports(b.id))[0]!.state, 'sent');
  });

  it('after a sender stopped mid-send: sends what never reached the authority once, and leaves what may be filed for the host', async () => {
    await alloggiatiAt('prati', 'production');
    const stopped = (id: string, sentAt: string | null, until: string) =>
      t.deps.db.updateTable('authority_reports').set({ state: 'sending', sent_at: sentAt, claimed_until: until }).where('reservation_id', '=', id).execute();
    // Stopped while Test was checking the rows (nothing files): once the claim lapses, sent once.
    const a = await completed('prati', marco, 'Europe/Rome', romeToday());
    await stopped(a.id, null, new Date(Date.now() + 60_000).toISOString());
    const calls = alloggiati.calls.length;
    await runReportJob(t.deps, a.id);
    assert.equal(alloggiati.calls.length, calls, 'a claim still held: nothing sent');
    const followUp = await t.deps.db.selectFrom('jobs').select('run_at').where('unique_key', '=', `authority.claim:${a.id}`).executeTakeFirst();
    assert.ok(followUp, 'looked at again when the claim lapses');
    await stopped(a.id, null, new Date(Date.now() - 1000).toISOString());
    await runReportJob(t.deps, a.id);
    assert.equal(alloggiati.calls.slice(calls).filter((c) => c === 'Send').length, 1);
    assert.equal((await reports(a.id))[0]!.state, 'accepted');
    // Stopped after Send went: it may be filed, so it is never sent again on its own.
    const b = await completed('prati', marco, 'Europe/Rome', romeToday());
    await stopped(b.id, new Date().toISOString(), new Date(Date.now() - 1000).toISOString());
    const before = alloggiati.calls.length;
    await runReportJob(t.deps, b.id);
    await runReportJob(t.deps, b.id);
    assert.equal(alloggiati.calls.length, before);
    const [report] = await reports(b.id);
    assert.equal(report!.state, 'sent');
    assert.equal((report!.error as { code: string }).code, 'unconfirmed');
  });

  it('follows every guest from the booking, portal opened or not: listed as due and late, and the host told before the deadline in words that fit', async () => {
    await sesAt('malaga');
    // Arrived yesterday, two guests, the portal never opened.
    const b = await booking('malaga', madridDay(-1), 2, 'Europe/Madrid');
    const got = await reports(b.id);
    assert.deepEqual(
      got.map((x) => [x.guest, x.state, x.late]),
      [
        [1, 'missing', true],
        [2, 'missing', true],
      ],
    );
    assert.equal(got[0]!.guest_name, 'Juan García', 'named from the booking');
    // The console's Police reports page lists them as late.
    const listed = await openReportsView(t.deps, me.account.id, 'malaga');
    assert.deepEqual(
      listed.late.filter((x) => x.reservation_id === b.id).map((x) => [x.guest, x.state]),
      [
        [1, 'missing'],
        [2, 'missing'],
      ],
    );

    // Arriving today: the 6-hour warning goes in time, for a guest who never opened the portal.
    const c = await booking('malaga', madridDay(0), 1, 'Europe/Madrid');
    const due = Date.parse(String((await reports(c.id))[0]!.due_at));
    const outbox = mailSince(t);
    const at = (ms: number) => ({ deps: { ...t.deps, clock: () => new Date(ms) } }) as JobContext;
    await alertHourly({}, at(due - 5 * 3_600_000));
    for (const id of [b.id, c.id]) {
      const alerts = await t.deps.db.selectFrom('alerts').select('id').where('reservation_id', '=', id).where('reason', '=', 'report').execute();
      assert.equal(alerts.length, 1, `told of ${id}`);
      await sendAlert({ alert_id: alerts[0]!.id }, at(due - 5 * 3_600_000));
    }
    const mail = [...mailSince(t)].filter((f) => !outbox.has(f)).map((f) => decodeQuotedPrintable(readFileSync(path.join(t.deps.config.dataDir, 'outbox', f), 'utf8')));
    const late = mail.find((m) => /police.report.late/.test(m));
    const soon = mail.find((m) => /police.report.due/.test(m));
    assert.ok(late, mail.join('\n----\n'));
    assert.ok(soon, mail.join('\n----\n'));
    assert.doesNotMatch(late, /falls due in a few hours/);
    assert.match(late, /has not started the guest portal/);
    assert.match(soon, /falls due in a few hours/);
    assert.match(soon, /police.report.due.*(CET|CEST|GMT\+1|GMT\+2)/, 'the deadline where the listing is');
  });

  it('leaves no dead end: the host corrects a guest’s police details or sends the guest back to the step of a finished portal, and bad input is named', async () => {
    await alloggiatiAt('campo', 'production');
    // A place of birth the tables do not know, given before the tables were there: finished, and refused.
    const tables = path.join(t.deps.config.dataDir, 'authority', 'alloggiati-tables.json');
    const kept = readFileSync(tables);
    rmSync(tables);
    const b = await completed('campo', { ...marco, birth_place: 'Atlantide' }, 'Europe/Rome', romeToday());
    writeFileSync(tables, kept);
    await runReportJob(t.deps, b.id);
    let [report] = await reports(b.id);
    assert.deepEqual([report!.state, report!.missing], ['missing', ['birth_place']]);

    // Sent back: the finished portal's link opens on the police step, and the guest's fix goes through.
    const r = (await findReservation(t.deps.db, me.account.id, b.id))!;
    assert.equal(await reopenPoliceStep(t.deps, r), true);
    const page = await call(t, 'GET', `/gp/${b.token}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /name="birth_place"/);
    const saved = await saveStep(t.deps, await openPortal(t.deps, b.token), translator('it'), 'AuthorityReporting', { ...marco, birth_place: 'Milano' }, [], false);
    assert.equal(saved.ok, true);
    [report] = await reports(b.id);
    assert.equal(report!.state, 'ready');
    assert.doesNotMatch((await call(t, 'GET', `/gp/${b.token}`)).body, /name="birth_place"/, 'saved: the link shows the finished portal again');

    // The host writes the details of a guest who never opened the portal; a bad date is named.
    const c = await booking('campo', romeToday(), 1, 'Europe/Rome');
    const fresh = (await findReservation(t.deps.db, me.account.id, c.id))!;
    await assert.rejects(writePoliceDetails(t.deps, fresh, translator('en'), { ...marco, birth_date: '31/02/1978' }), /birth_date: Date of birth/);
    assert.equal((await reports(c.id))[0]!.state, 'missing', 'nothing half-written');
    await writePoliceDetails(t.deps, fresh, translator('en'), marco);
    assert.equal((await reports(c.id))[0]!.state, 'ready');
    const now = await sendNow(c.id);
    assert.equal(now.json.sent, true);
    const calls = alloggiati.calls.length;
    await runReportJob(t.deps, c.id);
    assert.ok(alloggiati.calls.slice(calls).includes('Send'));
  });

  it('says why "send now" sent nothing: a guest not given', async () => {
    await sesAt('cadiz');
    const b = await booking('cadiz', madridDay(0), 2, 'Europe/Madrid');
    const res = await sendNow(b.id);
    assert.equal(res.status, 202);
    assert.equal(res.json.sent, false);
    assert.equal(res.json.nothing_sent.code, 'missing');
    assert.match(res.json.nothing_sent.message, /Juan García, Guest 2 have not given all SES\.HOSPEDAJES needs/);
  });

  it('asks the police step of bookings made before the listing reported, and plans their reports when it is set', async () => {
    const b = await booking('jerez', madridDay(1), 1, 'Europe/Madrid');
    assert.deepEqual(await reports(b.id), []);
    await call(t, 'PUT', '/v1/accounts/settings/guest-portal-screens/guest_portal_screens_default', {
      key: me.key,
      body: { config_key: 'guest_portal_screens_default', config_data: [{ guest_portal_screens: { ...POLICE_ONLY_SCREENS, AuthorityReporting: 'disabled' } }] },
    });
    await sesAt('jerez');
    const job = await t.deps.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', 'authority.plan').where('state', '=', 'available').execute();
    assert.ok(job.some((j) => j.payload.includes('jerez')));
    await runAuthorityPlan({ account_id: me.account.id, listing_id: 'jerez' }, { deps: t.deps, breathe: async () => undefined } as unknown as JobContext);
    assert.deepEqual(
      (await reports(b.id)).map((x) => x.state),
      ['missing'],
    );
    assert.ok((await openPortal(t.deps, b.token)).steps.includes('AuthorityReporting'), 'the step is asked, whatever the screens say');
    await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
  });

  it('catches up in the hourly look a stay written while its listing was being set up to report', async () => {
    const b = await booking('huelva', madridDay(2), 1, 'Europe/Madrid');
    await sesAt('huelva');
    // The set-up's planning ran before this stay was written (the race the hourly look closes).
    await t.deps.db.deleteFrom('authority_reports').where('reservation_id', '=', b.id).execute();
    assert.ok((await trackMissedStays(t.deps)) >= 1);
    assert.deepEqual(
      (await reports(b.id)).map((x) => x.state),
      ['missing'],
    );
  });
});

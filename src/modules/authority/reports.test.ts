import { JUAN as juan, POLICE_ONLY_SCREENS, runReportJob } from '../../../test/police.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeSes, sesSchemaErrors, SES_XSDS, type FakeSes } from '../../../test/fake-ses.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { call, createTestApp, dbKind, decodeQuotedPrintable, freePort, mailSince, setPortalScreens, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { alertHourly, sendAlert } from '../alerts/service.js';
import { hashPassword } from '../../lib/passwords.js';
import { setOwnerPassword } from '../users/service.js';
import { translator } from '../../i18n/index.js';
import type { JobContext } from '../../jobs/worker.js';
import { openPortal, saveStep, submitPortal } from '../portal/service.js';
import { purgeExpiredReports, storeReceipt } from './reports.js';

const SES = { user: 'B12345678WS', password: 'secreta-ñ', arrendador: '0000000001' };
const sesBody = { system: 'ses', landlord_code: SES.arrendador, establishment_code: '0000000042', username: SES.user, password: SES.password };

/** Juan's daughter Lucía, 9, who has no document: the second guest of his stay. */
const lucia = {
  guest_1_first_name: 'Lucía',
  guest_1_last_name: 'García',
  guest_1_sex: 'female',
  guest_1_birth_date: '2017-06-01',
  guest_1_nationality: 'ES',
  guest_1_residence_country: 'ES',
  guest_1_address: 'Calle Mayor 1, 2ºB',
  guest_1_city: 'Madrid',
  guest_1_postal_code: '28013',
  guest_1_email: 'juan@example.es',
  guest_1_relationship: 'child',
};

describe(`police reports to SES.HOSPEDAJES (${dbKind})`, () => {
  let t: TestApp;
  let ses: FakeSes;
  let me: Tenant;
  const today = new Date().toISOString().slice(0, 10);
  const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  before(async () => {
    ses = await startFakeSes(SES);
    t = await createTestApp({ GUESTSCREEN_SES_TEST_URL: ses.url });
    me = await tenant(t);
    // Signed up to the console: the one told of reports near their deadline.
    await setOwnerPassword(t.deps, t.deps.db, me.account, await hashPassword('owner password'), null);
    await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
    assert.equal((await call(t, 'PUT', '/v1/listings/madrid-centro/authority-establishment', { key: me.key, body: sesBody })).status, 200);
  });
  after(async () => {
    await t.close();
    await ses.close();
  });

  /** The sending job as the worker runs it, at a moment. */
  const runSend = (reservationId: string, at = new Date()) => runReportJob(t.deps, reservationId, at);

  async function booking(checkIn = today, guests = 2) {
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        listing_id: 'madrid-centro',
        number_of_guests: guests,
        check_in_date: checkIn,
        check_out_date: new Date(Date.parse(checkIn) + 3 * 86_400_000).toISOString().slice(0, 10),
        listing_timezone_name: 'Europe/Madrid',
        guest: { first_name: 'Juan', last_name: 'García' },
      },
    });
    assert.equal(r.status, 200, r.body);
    return { id: r.json.id as string, token: new URL(r.json.guest_portal_url).pathname.split('/').pop()! };
  }
  const alertsOf = async (id: string) => (await t.deps.db.selectFrom('alerts').select('id').where('reservation_id', '=', id).where('reason', '=', 'report').execute()).length;
  const reports = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/authority-reports`, { key: me.key })).json.reports as Record<string, unknown>[];
  const sendJobs = (id: string) =>
    t.deps.db.selectFrom('jobs').select(['run_at', 'unique_key']).where('kind', '=', 'authority.send').where('payload', 'like', `%${id}%`).where('state', '=', 'available').execute();

  it('asks every guest what SES needs, in the guest’s language, and names what breaks the Ministry’s rules before the guest leaves the step', async () => {
    const b = await booking();
    const p = await openPortal(t.deps, b.token);
    assert.equal(p.authority?.system, 'ses');
    const es = translator('es');
    const broken = await saveStep(
      t.deps,
      p,
      es,
      'AuthorityReporting',
      { ...juan, second_last_name: '', document_number: '12345678A', phone: '', ...lucia, guest_1_email: '', guest_1_relationship: '', guest_1_city: 'Villa Inventada' },
      [],
      false,
    );
    assert.equal(broken.ok, false);
    const said = broken.ok ? [] : broken.problems.map((x) => x.message);
    for (const expected of [
      /Segundo apellido: es obligatorio con DNI/,
      /Número del documento: no es un número válido/,
      /Teléfono: indica un teléfono o un correo/,
      /Huésped 2: teléfono: indica un teléfono o un correo/,
      /Huésped 2: municipio: no encontramos este municipio/,
      /Huésped 2: parentesco con el huésped 1: es obligatorio para menores/,
    ])
      assert.ok(
        said.some((m) => expected.test(m)),
        `${expected} in ${said.join(' | ')}`,
      );
    assert.equal((await saveStep(t.deps, p, es, 'AuthorityReporting', { ...juan, ...lucia }, [], false)).ok, true);
  });

  it('files a stay on the arrival day: the part valid against the Ministry’s XSD, the lot followed through pending and in progress to each guest’s codigoComunicacion', async () => {
    const b = await booking();
    const p = await openPortal(t.deps, b.token);
    assert.equal((await saveStep(t.deps, p, translator('en'), 'AuthorityReporting', { ...juan, ...lucia }, [], false)).ok, true);
    await submitPortal(t.deps, await openPortal(t.deps, b.token));
    let got = await reports(b.id);
    assert.deepEqual(
      got.map((x) => [x.guest, x.guest_name, x.state]),
      [
        [1, 'Juan García', 'ready'],
        [2, 'Lucía García', 'ready'],
      ],
    );
    assert.equal((await sendJobs(b.id)).length, 1, 'the sending job is queued');

    const parts = ses.parts.length;
    await runSend(b.id);
    assert.equal(ses.parts.length, parts + 1);
    const part = ses.parts.at(-1)!;
    if (SES_XSDS) assert.deepEqual(await sesSchemaErrors(part, 'altaParteHospedaje.xsd'), []);
    assert.match(part, /<codigoEstablecimiento>0000000042<\/codigoEstablecimiento>/);
    assert.match(part, /<tipoDocumento>NIF<\/tipoDocumento><numeroDocumento>12345678Z<\/numeroDocumento><soporteDocumento>CAA000000<\/soporteDocumento>/);
    assert.match(part, /<codigoMunicipio>28079<\/codigoMunicipio>/, 'Madrid by its INE code');
    assert.match(part, /<parentesco>HJ<\/parentesco>/);
    assert.match(part, /Calle Mayor 1, 2ºB/, 'accents kept');
    got = await reports(b.id);
    assert.deepEqual(
      got.map((x) => x.state),
      ['sent', 'sent'],
    );

    // Pending (5), then in progress (4), then processed: each look queues the next.
    await runSend(b.id);
    await runSend(b.id);
    assert.deepEqual(
      (await reports(b.id)).map((x) => x.state),
      ['sent', 'sent'],
    );
    assert.ok((await sendJobs(b.id)).some((j) => j.unique_key === `authority.poll:${b.id}`));
    await runSend(b.id);
    got = await reports(b.id);
    assert.deepEqual(
      got.map((x) => x.state),
      ['accepted', 'accepted'],
    );
    const lot = [...ses.lots.values()].find((l) => l.communications.some((c) => c.reference === b.id))!;
    assert.equal(got[0]!.receipt, lot.communications[0]!.code);
    assert.equal(ses.parts.length, parts + 1, 'followed by querying, never sent again');
    await runSend(b.id);
    assert.equal(ses.parts.length, parts + 1);
  });

  it('waits for the arrival day in the listing’s time zone; "send now" sends at once, and the API says what a guest still lacks', async () => {
    const b = await booking(inDays(5));
    const p = await openPortal(t.deps, b.token);
    assert.equal((await saveStep(t.deps, p, translator('en'), 'AuthorityReporting', { ...juan, ...lucia, guest_1_relationship: '' }, [], false)).ok, false);
    // The guest who booked answers for himself; the second guest is left for later.
    const { guest_1_first_name: _a, ...noLucia } = Object.fromEntries(Object.entries(lucia).map(([k]) => [k, '']));
    assert.equal((await saveStep(t.deps, p, translator('en'), 'AuthorityReporting', { ...juan, ...noLucia }, [], false)).ok, false, 'every guest of the booking is asked');

    const b2 = await booking(inDays(5), 1);
    const p2 = await openPortal(t.deps, b2.token);
    assert.equal((await saveStep(t.deps, p2, translator('en'), 'AuthorityReporting', juan, [], false)).ok, true);
    await submitPortal(t.deps, await openPortal(t.deps, b2.token));
    const jobs = await sendJobs(b2.id);
    assert.equal(jobs.length, 1);
    assert.ok(jobs[0]!.run_at > new Date(Date.now() + 3 * 86_400_000).toISOString(), `queued for the arrival day, not now: ${jobs[0]!.run_at}`);
    const [report] = await reports(b2.id);
    assert.equal(report!.state, 'ready');
    assert.equal(report!.late, false);
    // Cancelled before the day: nothing goes.
    const b3 = await booking(today, 1);
    assert.equal((await saveStep(t.deps, await openPortal(t.deps, b3.token), translator('en'), 'AuthorityReporting', juan, [], false)).ok, true);
    await submitPortal(t.deps, await openPortal(t.deps, b3.token));
    assert.equal((await call(t, 'PUT', `/v1/reservations/${b3.id}`, { key: me.key, body: { status: 'CANCELED' } })).status, 200);
    const parts = ses.parts.length;
    await runSend(b3.id);
    assert.equal(ses.parts.length, parts, 'a cancelled booking is not reported');

    const now = await call(t, 'POST', `/v1/reservations/${b2.id}/authority-reports`, { key: me.key });
    assert.equal(now.status, 202, now.body);
    assert.ok((await sendJobs(b2.id)).some((j) => j.unique_key === `authority.send:${b2.id}:now`));
    await runSend(b2.id);
    assert.equal((await reports(b2.id))[0]!.state, 'sent');
  });

  it('sends again after a transport failure that reached nothing, and never resends one whose answer was lost', async () => {
    // SES down: nothing reached it, so the job fails to be tried again (its backoff) and the report stays ready.
    const port = await freePort();
    const down = await createTestApp({ GUESTSCREEN_SES_TEST_URL: `http://127.0.0.1:${port}/ses` });
    try {
      const other = await tenant(down);
      await setPortalScreens(down, other.key, POLICE_ONLY_SCREENS);
      // Saved while SES cannot be reached: kept, "not reached".
      assert.equal((await call(down, 'PUT', '/v1/accounts/authority-establishment', { key: other.key, body: sesBody })).json.check, 'not_reached');
      const r = await call(down, 'POST', '/v1/reservations', {
        key: other.key,
        body: { number_of_guests: 1, check_in_date: today, check_out_date: inDays(2), guest: { first_name: 'Juan', last_name: 'García' } },
      });
      const token = new URL(r.json.guest_portal_url).pathname.split('/').pop()!;
      const p = await openPortal(down.deps, token);
      assert.equal((await saveStep(down.deps, p, translator('en'), 'AuthorityReporting', juan, [], false)).ok, true);
      await submitPortal(down.deps, await openPortal(down.deps, token));
      await assert.rejects(runReportJob(down.deps, r.json.id), /could not be reached/);
      const [report] = (await call(down, 'GET', `/v1/reservations/${r.json.id}/authority-reports`, { key: other.key })).json.reports;
      assert.equal(report.state, 'ready');
    } finally {
      await down.close();
    }

    // The connection cut after the request: it may have been filed, so it is not sent again on its own.
    const b = await booking(today, 1);
    const p = await openPortal(t.deps, b.token);
    assert.equal((await saveStep(t.deps, p, translator('en'), 'AuthorityReporting', juan, [], false)).ok, true);
    await submitPortal(t.deps, await openPortal(t.deps, b.token));
    const requests = ses.requests.length;
    ses.dropNext(1);
    await runSend(b.id);
    const [report] = await reports(b.id);
    assert.equal(report!.state, 'sent');
    assert.match(String((report!.error as { message: string }).message), /may have been filed/);
    await runSend(b.id);
    assert.equal(ses.requests.length, requests + 1, 'sent once');
  });

  it('cancels a filed stay and files it again when a guest’s details change, and keeps the Ministry’s refusal in its words', async () => {
    const b = await booking(today, 1);
    const p = await openPortal(t.deps, b.token);
    assert.equal((await saveStep(t.deps, p, translator('en'), 'AuthorityReporting', juan, [], false)).ok, true);
    await submitPortal(t.deps, await openPortal(t.deps, b.token));
    for (let i = 0; i < 4; i++) await runSend(b.id);
    const [first] = await reports(b.id);
    assert.equal(first!.state, 'accepted');

    // The booking's dates change: the stay goes again, the first communication cancelled.
    assert.equal((await call(t, 'PUT', `/v1/reservations/${b.id}`, { key: me.key, body: { check_out_date: inDays(4) } })).status, 200);
    assert.equal((await reports(b.id))[0]!.state, 'ready');
    await runSend(b.id);
    const cancelled = [...ses.lots.values()].flatMap((l) => l.communications).find((c) => c.code === first!.receipt);
    assert.equal(cancelled?.cancelled, true, 'the first communication cancelled');
    for (let i = 0; i < 3; i++) await runSend(b.id);
    const [again] = await reports(b.id);
    assert.equal(again!.state, 'accepted');
    assert.notEqual(again!.receipt, first!.receipt);
    assert.match(ses.parts.at(-1)!, new RegExp(`<fechaSalida>${inDays(4)}T00:00:00</fechaSalida>`));

    // A landlord code SES does not know (its catalogue, which checks the credentials, does not
    // look at it): the send is refused in the Ministry's words, and stays refused until the host sends again.
    assert.equal((await call(t, 'PUT', '/v1/listings/madrid-sur/authority-establishment', { key: me.key, body: { ...sesBody, landlord_code: '0000000009' } })).status, 200);
    const r2 = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { listing_id: 'madrid-sur', number_of_guests: 1, check_in_date: today, check_out_date: inDays(2), guest: { first_name: 'Juan', last_name: 'García' } },
    });
    const token = new URL(r2.json.guest_portal_url).pathname.split('/').pop()!;
    assert.equal((await saveStep(t.deps, await openPortal(t.deps, token), translator('en'), 'AuthorityReporting', juan, [], false)).ok, true);
    await submitPortal(t.deps, await openPortal(t.deps, token));
    await runSend(r2.json.id);
    const [refused] = await reports(r2.json.id);
    assert.equal(refused!.state, 'rejected');
    assert.deepEqual(refused!.error, {
      code: '10103',
      message: 'No existe un arrendador para ese código: 0000000009',
      fix: 'SES does not know this landlord code: check the código de arrendador in the police settings of the listing, then send again.',
    });
    const sent = ses.requests.length;
    await runSend(r2.json.id);
    assert.equal(ses.requests.length, sent, 'not sent again on its own');
  });

  it('e-mails the host 6 hours before the deadline of a report not accepted, saying what each guest’s report needs, once', async () => {
    const b = await booking(today, 2);
    const p = await openPortal(t.deps, b.token);
    // The second guest's contact left out: the form refuses it, so the guest who booked gives only his own.
    assert.equal((await saveStep(t.deps, p, translator('en'), 'AuthorityReporting', { ...juan, ...lucia, guest_1_email: '' }, [], false)).ok, false);
    assert.equal((await call(t, 'POST', `/v1/reservations/${b.id}/authority-reports`, { key: me.key })).status, 202);
    const [report] = await reports(b.id);
    assert.equal(report!.state, 'missing');
    const due = Date.parse(String(report!.due_at));
    const outbox = mailSince(t);
    // Seven hours before: nothing yet; five hours before: one e-mail, whatever the hourly look runs again.
    await alertHourly({}, { deps: { ...t.deps, clock: () => new Date(due - 7 * 3_600_000) } } as JobContext);
    assert.equal(await alertsOf(b.id), 0);
    for (const hours of [5, 4]) await alertHourly({}, { deps: { ...t.deps, clock: () => new Date(due - hours * 3_600_000) } } as JobContext);
    const alerts = await t.deps.db.selectFrom('alerts').select(['id', 'mode']).where('reservation_id', '=', b.id).where('reason', '=', 'report').execute();
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]!.mode, 'each');
    await sendAlert({ alert_id: alerts[0]!.id }, { deps: { ...t.deps, clock: () => new Date(due - 4 * 3_600_000) } } as JobContext);
    const mail = [...mailSince(t)].filter((f) => !outbox.has(f)).map((f) => decodeQuotedPrintable(readFileSync(path.join(t.deps.config.dataDir, 'outbox', f), 'utf8')));
    assert.equal(mail.length, 1);
    assert.match(mail[0]!, /Subject: .*Juan_García:_police_report_due/);
    assert.match(mail[0]!, /Juan García: not given yet: First name, Last name, .* and Phone\. The guest has not started the guest portal/);
    assert.match(mail[0]!, /Guest 2: not given yet: First name, /);
  });

  it('deletes reports and receipts once the law no longer asks to keep them: 3 years in Spain, 5 in Italy', async () => {
    const b = await booking(today, 1);
    assert.equal((await call(t, 'POST', `/v1/reservations/${b.id}/authority-reports`, { key: me.key })).status, 202);
    const est = await t.deps.db.selectFrom('authority_establishments').select(['id', 'account_id']).where('account_id', '=', me.account.id).executeTakeFirstOrThrow();
    await storeReceipt(t.deps, est, '2021-06-01', Buffer.from('%PDF-1.4\n%%EOF\n'));
    await storeReceipt(t.deps, est, '2025-06-01', Buffer.from('%PDF-1.4\n%%EOF\n'));
    const at = (iso: string) => ({ ...t.deps, clock: () => new Date(iso) });
    // Two years and a half on: all kept.
    const made = Date.parse(String((await t.deps.db.selectFrom('authority_reports').select('created_at').where('reservation_id', '=', b.id).executeTakeFirstOrThrow()).created_at));
    await purgeExpiredReports(at(new Date(made + 2.5 * 365 * 86_400_000).toISOString()));
    assert.equal((await reports(b.id)).length, 1);
    // Three years and a day on: the Spanish report goes; a receipt goes 5 years after its day.
    await purgeExpiredReports(at(new Date(made + (3 * 365 + 2) * 86_400_000).toISOString()));
    assert.equal((await reports(b.id)).length, 0);
    const days = (await t.deps.db.selectFrom('authority_receipts').select('day').where('establishment_id', '=', est.id).execute()).map((x) => x.day);
    assert.deepEqual(days, ['2025-06-01'], 'the receipt of 2021 is past its 5 years; the one of 2025 is not');
  });

  it('answers 404 for another tenant’s booking and 409 when no police system is set', async () => {
    const b = await booking(today, 1);
    const stranger = await tenant(t);
    assert.equal((await call(t, 'GET', `/v1/reservations/${b.id}/authority-reports`, { key: stranger.key })).status, 404);
    assert.equal((await call(t, 'POST', `/v1/reservations/${b.id}/authority-reports`, { key: stranger.key })).status, 404);
    const r = await call(t, 'POST', '/v1/reservations', { key: stranger.key, body: { listing_id: 'nowhere', guest: { first_name: 'A', last_name: 'B' } } });
    const none = await call(t, 'POST', `/v1/reservations/${r.json.id}/authority-reports`, { key: stranger.key });
    assert.equal(none.status, 409);
    assert.match(none.json.error, /no police system is set/);
    assert.deepEqual((await call(t, 'GET', `/v1/reservations/${r.json.id}/authority-reports`, { key: stranger.key })).json.reports, []);
  });
});

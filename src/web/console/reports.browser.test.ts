import { POLICE_ONLY_SCREENS, runReportJob } from '../../../test/police.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startFakeSes, type FakeSes } from '../../../test/fake-ses.js';
import { startFakeAlloggiati, type FakeAlloggiati } from '../../../test/fake-alloggiati.js';
import { refreshAlloggiatiTables } from '../../modules/authority/establishments.js';
import { dayIn } from '../../lib/time.js';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestApp, dbKind, setPortalScreens, tenant, type TestApp } from '../../../test/harness.js';

const SES = { user: 'B12345678WS', password: 'secreta', arrendador: '0000000001' };
const ALLOGGIATI = { user: 'RM000123', password: 'Segreta1', wsKey: 'AAAA-BBBB-CCCC' };
const PHONE = { width: 390, height: 844 };
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe(`police reports in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let ses: FakeSes;
  let alloggiati: FakeAlloggiati;
  let browser: Browser;
  let base: string;
  before(async () => {
    ses = await startFakeSes(SES);
    alloggiati = await startFakeAlloggiati(ALLOGGIATI, () => dayIn(new Date().toISOString(), 'Europe/Rome'));
    t = await createTestApp({ GUESTSCREEN_SES_TEST_URL: ses.url, GUESTSCREEN_ALLOGGIATI_URL: alloggiati.url });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t.close();
    await ses.close();
    await alloggiati.close();
  });
  const run = (id: string) => runReportJob(t.deps, id);

  it('asks a family in Spanish for what SES needs, tells them what is missing, and shows the host each guest’s report and the day’s reports', async () => {
    const me = await tenant(t);
    await withPassword(t, me);
    await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
    const est = await call(t, 'PUT', '/v1/listings/sol-1/authority-establishment', {
      key: me.key,
      body: { system: 'ses', landlord_code: SES.arrendador, establishment_code: '0000000042', username: SES.user, password: SES.password },
    });
    assert.equal(est.status, 200, est.body);
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        listing_id: 'sol-1',
        listing_nickname: 'Ático Puerta del Sol',
        number_of_guests: 2,
        check_in_date: day(0),
        check_out_date: day(3),
        listing_timezone_name: 'Europe/Madrid',
        guest: { first_name: 'Marta', last_name: 'Ruiz', email: 'marta@example.es' },
      },
    });
    const id = booking.json.id as string;

    // The guest fills the form in on a phone.
    const context = await browser.newContext({ locale: 'es-ES', viewport: PHONE });
    const page = await context.newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    await page.waitForSelector('h1:has-text("Registro")');
    assert.equal(await page.inputValue('#f_first_name'), 'Marta', 'what the booking knows is filled in');
    assert.equal(await page.inputValue('#f_email'), 'marta@example.es');
    await page.fill('#f_last_name', 'Ruiz');
    await page.fill('#f_second_last_name', 'Ortega');
    await page.selectOption('#f_sex', 'female');
    await page.fill('#f_birth_date', '1985-03-14');
    await page.fill('#f_nationality', 'España');
    await page.selectOption('#f_document_type', 'es_nif');
    await page.fill('#f_document_number', '12345678Z');
    await page.fill('#f_residence_country', 'España');
    await page.fill('#f_address', 'Calle de Alcalá 12, 3ºA');
    await page.fill('#f_city', 'Alcalá de Henares');
    await page.fill('#f_postal_code', '28801');
    // The second guest, a child: named, but without a relationship or a way to reach them.
    await page.fill('#f_guest_1_first_name', 'Pablo');
    await page.fill('#f_guest_1_last_name', 'Ruiz');
    await page.selectOption('#f_guest_1_sex', 'male');
    await page.fill('#f_guest_1_birth_date', '2016-09-01');
    await page.fill('#f_guest_1_nationality', 'España');
    await page.fill('#f_guest_1_residence_country', 'España');
    await page.fill('#f_guest_1_address', 'Calle de Alcalá 12, 3ºA');
    await page.fill('#f_guest_1_city', 'Alcalá de Henares');
    await page.fill('#f_guest_1_postal_code', '28801');
    await page.click('button[value=save]');
    const problems = (await page.textContent('[role=alert]')) ?? '';
    assert.match(problems, /Número de soporte \(DNI o NIE\): es obligatorio con DNI o NIE/);
    assert.match(problems, /Huésped 2: teléfono: indica un teléfono o un correo/);
    assert.match(problems, /Huésped 2: parentesco con el huésped 1: es obligatorio para menores de 18 años/);
    await page.setViewportSize({ width: 1280, height: 900 });
    await snap(page, 'portal-police-report');
    await page.setViewportSize(PHONE);
    await page.fill('#f_document_support', 'CAA000000');
    await page.fill('#f_guest_1_email', 'marta@example.es');
    await page.selectOption('#f_guest_1_relationship', 'child');
    await page.click('button[value=save]');
    await page.waitForSelector('button:has-text("Enviar")');
    await page.click('button:has-text("Enviar")');
    await page.waitForLoadState();

    // Sent on the arrival day (today), the lot followed to its answer.
    for (let i = 0; i < 4; i++) await run(id);
    assert.match(ses.parts.at(-1) ?? '', /<codigoMunicipio>28005<\/codigoMunicipio>/, 'Alcalá de Henares by its INE code');

    // A second booking whose guest has not finished: missing, due today.
    const other = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { listing_id: 'sol-1', listing_nickname: 'Ático Puerta del Sol', number_of_guests: 1, check_in_date: day(0), check_out_date: day(2), guest: { first_name: 'Tom', last_name: 'Baker' } },
    });
    assert.equal((await call(t, 'POST', `/v1/reservations/${other.json.id}/authority-reports`, { key: me.key })).status, 202);

    // A booking that arrived two days ago whose guest never answered: late, and said so.
    const late = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { listing_id: 'sol-1', listing_nickname: 'Ático Puerta del Sol', number_of_guests: 1, check_in_date: day(-2), check_out_date: day(1), guest: { first_name: 'Lena', last_name: 'Late' } },
    });
    assert.equal((await call(t, 'POST', `/v1/reservations/${late.json.id}/authority-reports`, { key: me.key })).status, 202);

    const host = await (await browser.newContext()).newPage();
    await signIn(host, base, me.account.email ?? '');
    await host.goto(`${base}/console/reservations/${id}`);
    const reports = (await host.textContent('#reports')) ?? '';
    assert.match(reports, /Marta Ruiz/);
    assert.match(reports, /Pablo Ruiz/);
    assert.match(reports, /Accepted/);
    assert.match(reports, /Receipt/);
    await host.locator('#reports-h').scrollIntoViewIfNeeded();
    await snap(host, 'console-reservation-police-reports');

    await host.goto(`${base}/console/reports`);
    const due = (await host.textContent('#due')) ?? '';
    assert.match(due, /Tom Baker/);
    assert.match(due, /The guest has not given: /);
    // Accepted by the test service only: nothing is filed, so it stays on the list, said so.
    assert.match(due, /Marta Ruiz.*Accepted \(the authority's test service: nothing filed\)/);
    const lateList = (await host.textContent('#late')) ?? '';
    assert.match(lateList, /Lena Late/);
    assert.match(lateList, /Late · Missing details/);
    await snap(host, 'console-police-reports');
  });

  it('reports an Italian family completed on a phone to Alloggiati Web (test mode), and shows the host each guest accepted', async () => {
    const me = await tenant(t);
    await withPassword(t, me);
    await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
    const est = await call(t, 'PUT', '/v1/listings/roma-1/authority-establishment', {
      key: me.key,
      body: { system: 'alloggiati', username: ALLOGGIATI.user, password: ALLOGGIATI.password, ws_key: ALLOGGIATI.wsKey },
    });
    assert.equal(est.status, 200, est.body);
    await refreshAlloggiatiTables(t.deps, { account: me.account.id, listing: 'roma-1' });
    const rome = dayIn(new Date().toISOString(), 'Europe/Rome');
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        listing_id: 'roma-1',
        listing_nickname: 'Attico Trastevere',
        number_of_guests: 2,
        check_in_date: rome,
        check_out_date: new Date(Date.parse(rome) + 2 * 86_400_000).toISOString().slice(0, 10),
        listing_timezone_name: 'Europe/Rome',
        guest: { first_name: 'Giulia', last_name: 'Bianchi', email: 'giulia@example.it' },
      },
    });
    const id = booking.json.id as string;
    const page = await (await browser.newContext({ locale: 'it-IT', viewport: PHONE })).newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    await page.waitForSelector('h1:has-text("Comunicazione alle autorità")');
    await page.fill('#f_last_name', 'Bianchi');
    await page.selectOption('#f_sex', 'female');
    await page.fill('#f_birth_date', '1984-07-11');
    await page.fill('#f_birth_country', 'Italia');
    await page.fill('#f_birth_place', 'Atlantide');
    await page.fill('#f_nationality', 'Italia');
    await page.selectOption('#f_document_type', 'passport');
    await page.fill('#f_document_number', 'YA1234567');
    await page.fill('#f_document_country', 'Italia');
    await page.fill('#f_document_place', 'Roma');
    await page.fill('#f_guest_1_first_name', 'Paul');
    await page.fill('#f_guest_1_last_name', 'Martin');
    await page.selectOption('#f_guest_1_sex', 'male');
    await page.fill('#f_guest_1_birth_date', '1983-01-30');
    await page.fill('#f_guest_1_birth_country', 'Francia');
    await page.fill('#f_guest_1_nationality', 'Francia');
    await page.selectOption('#f_guest_1_relationship', 'spouse');
    await page.click('button[value=save]');
    assert.match((await page.textContent('[role=alert]')) ?? '', /Comune di nascita: l’elenco della Polizia di Stato non ha un comune con questo nome/);
    await page.setViewportSize({ width: 1280, height: 900 });
    await snap(page, 'portal-police-report-italy');
    await page.setViewportSize(PHONE);
    await page.fill('#f_birth_place', 'Milano');
    await page.click('button[value=save]');
    await page.waitForSelector('button:has-text("Invia")');
    await page.click('button:has-text("Invia")');
    await page.waitForLoadState();

    await run(id);
    const rows = (await call(t, 'GET', `/v1/reservations/${id}/authority-reports`, { key: me.key })).json.reports as { state: string; mode: string }[];
    assert.deepEqual(
      rows.map((x) => [x.state, x.mode]),
      [
        ['accepted', 'test'],
        ['accepted', 'test'],
      ],
    );
    assert.ok(alloggiati.calls.includes('Test') && !alloggiati.calls.includes('Send'), 'checked by Test, nothing filed');

    const host = await (await browser.newContext()).newPage();
    await signIn(host, base, me.account.email ?? '');
    await host.goto(`${base}/console/reservations/${id}`);
    const reports = (await host.textContent('#reports')) ?? '';
    assert.match(reports, /Giulia Bianchi/);
    assert.match(reports, /Paul Martin/);
    assert.match(reports, /Alloggiati Web: Accepted \(the authority's test service: nothing filed\)/);
    await host.locator('#reports-h').scrollIntoViewIfNeeded();
    await snap(host, 'console-reservation-police-reports-italy');
  });
});

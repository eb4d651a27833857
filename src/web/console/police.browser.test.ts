import { runReportJob } from '../../../test/police.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startFakeSes, type FakeSes } from '../../../test/fake-ses.js';
import { startFakeAlloggiati, type FakeAlloggiati } from '../../../test/fake-alloggiati.js';
import { dayIn } from '../../lib/time.js';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

const SES = { user: 'B12345678WS', password: 'secreta', arrendador: '0000000001' };
const ALLOGGIATI = { user: 'RM000123', password: 'Segreta1', wsKey: 'AAAA-BBBB-CCCC' };
const PHONE = { width: 390, height: 844 };

/**
 * A new host sets up police reporting in the console alone: a Spanish and an Italian listing, the
 * authority's refusal of wrong credentials in its words, test mode, the switch to production, and a
 * guest who never opened the portal filed once the host has filled in their details.
 */
describe(`police reporting set up in the console (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let sesTest: FakeSes;
  let sesProduction: FakeSes;
  let alloggiati: FakeAlloggiati;
  let browser: Browser;
  let base: string;
  let me: Tenant;
  let host: Page;
  const rome = () => dayIn(new Date().toISOString(), 'Europe/Rome');
  const madrid = () => dayIn(new Date().toISOString(), 'Europe/Madrid');
  const after2 = (d: string) => new Date(Date.parse(d) + 2 * 86_400_000).toISOString().slice(0, 10);

  before(async () => {
    sesTest = await startFakeSes(SES);
    sesProduction = await startFakeSes(SES);
    alloggiati = await startFakeAlloggiati(ALLOGGIATI, rome);
    t = await createTestApp({ GUESTSCREEN_SES_TEST_URL: sesTest.url, GUESTSCREEN_SES_URL: sesProduction.url, GUESTSCREEN_ALLOGGIATI_URL: alloggiati.url });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    me = await tenant(t);
    await withPassword(t, me);
    host = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(host, base, me.account.email ?? '');
  });
  after(async () => {
    await browser?.close();
    await t.close();
    await Promise.all([sesTest.close(), sesProduction.close(), alloggiati.close()]);
  });

  /** Runs every queued job of a booking's police reports, as the worker would. */
  const runJobs = async (id: string) => {
    for (let i = 0; i < 5; i++) await runReportJob(t.deps, id);
  };
  const submit = (selector: string) => Promise.all([host.waitForLoadState(), host.click(selector)]);
  const booking = async (listing: string, checkIn: string, timezone: string, first: string, last: string) => {
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { listing_id: listing, number_of_guests: 1, check_in_date: checkIn, check_out_date: after2(checkIn), listing_timezone_name: timezone, guest: { first_name: first, last_name: last } },
    });
    assert.equal(r.status, 200, r.body);
    return r.json.id as string;
  };

  it('sets up a Spanish listing, refuses wrong credentials in the Ministry’s words, tests, switches to production and files a guest who never opened the portal', async () => {
    await host.goto(`${base}/console/listings`);
    await host.fill('#new-listing-id', 'sevilla-1');
    await host.fill('#new-listing-name', 'Casa Triana');
    await submit('#add-listing button[type=submit]');
    assert.match((await host.textContent('#police-none')) ?? '', /Not set/);

    await host.fill('#ses-landlord', SES.arrendador);
    await host.fill('#ses-establishment', '0000000042');
    await host.fill('#ses-user', SES.user);
    await host.fill('#ses-password', 'wrong');
    await submit('#police-ses button[type=submit]');
    assert.match((await host.textContent('[role=alert]')) ?? '', /SES\.HOSPEDAJES refused these credentials \(test mode\): .*Usuario o contraseña incorrectos; nothing was saved/);

    await host.goto(`${base}/console/listings/sevilla-1#police-h`);
    await host.fill('#ses-landlord', SES.arrendador);
    await host.fill('#ses-establishment', '0000000042');
    await host.fill('#ses-user', SES.user);
    await host.fill('#ses-password', SES.password);
    await submit('#police-ses button[type=submit]');
    assert.match((await host.textContent('[role=status]')) ?? '', /the authority took these credentials/);
    assert.match((await host.textContent('#police-current')) ?? '', /Test mode/);
    await host.locator('#police-h').scrollIntoViewIfNeeded();
    await snap(host, 'console-listing-police-ses');

    // A guest arriving today who never opens the portal: the host fills in their details.
    const id = await booking('sevilla-1', madrid(), 'Europe/Madrid', 'Carmen', 'Vidal');
    await host.goto(`${base}/console/reservations/${id}#reports-h`);
    assert.match((await host.textContent('#reports')) ?? '', /Missing details/);
    await host.click('#police-details summary');
    await host.fill('#pd-second_last_name', 'Soto');
    await host.selectOption('#pd-sex', 'female');
    await host.fill('#pd-birth_date', '1979-11-02');
    await host.fill('#pd-nationality', 'Spain');
    await host.selectOption('#pd-document_type', 'es_nif');
    await host.fill('#pd-document_number', '12345678Z');
    await host.fill('#pd-document_support', 'CAA000000');
    await host.fill('#pd-residence_country', 'Spain');
    await host.fill('#pd-address', 'Calle Betis 4');
    await host.fill('#pd-city', 'Sevilla');
    await host.fill('#pd-postal_code', '41010');
    await host.fill('#pd-phone', '+34 600 111 222');
    await submit('#save-police-details');
    assert.match((await host.textContent('#reports')) ?? '', /Ready to send/);
    await submit('#send-reports');
    assert.match((await host.textContent('[role=status]')) ?? '', /Sending now/);
    await runJobs(id);
    await host.reload();
    assert.match((await host.textContent('#reports')) ?? '', /Accepted \(the authority's test service: nothing filed\)/);
    assert.equal(sesProduction.parts.length, 0, 'nothing filed for real in test mode');

    // The deliberate switch: reports only tested so far go again, for real, once.
    await host.goto(`${base}/console/listings/sevilla-1#police-h`);
    await host.check('#police-production input[name=confirm]');
    await submit('#police-production button[type=submit]');
    assert.match((await host.textContent('#police-current')) ?? '', /Production/);
    await host.goto(`${base}/console/reservations/${id}#reports-h`);
    await submit('#send-reports');
    await runJobs(id);
    await submit('#send-reports');
    await runJobs(id);
    assert.equal(sesProduction.parts.length, 1, 'filed once for real');
    await host.reload();
    const reports = (await host.textContent('#reports')) ?? '';
    assert.match(reports, /Accepted/);
    assert.doesNotMatch(reports, /test service/);
    assert.match(reports, /Receipt/);
    await host.locator('#reports-h').scrollIntoViewIfNeeded();
    await snap(host, 'console-reservation-police-filed');
  });

  it('sets up an Italian listing with its code tables fetched on saving, and files a guest the host gave in production with the day’s receipt', async () => {
    await host.goto(`${base}/console/listings`);
    await host.fill('#new-listing-id', 'roma-monti');
    await submit('#add-listing button[type=submit]');
    await host.click('#police details:nth-of-type(2) summary');
    await host.fill('#alloggiati-user', ALLOGGIATI.user);
    await host.fill('#alloggiati-password', ALLOGGIATI.password);
    await host.fill('#alloggiati-wskey', 'made-yesterday');
    await submit('#police-alloggiati button[type=submit]');
    assert.match((await host.textContent('[role=alert]')) ?? '', /Alloggiati Web refused these credentials \(test mode\): .*Utente, password o WSKEY errati/);

    await host.goto(`${base}/console/listings/roma-monti#police-h`);
    await host.click('#police details:nth-of-type(2) summary');
    await host.fill('#alloggiati-user', ALLOGGIATI.user);
    await host.fill('#alloggiati-password', ALLOGGIATI.password);
    await host.fill('#alloggiati-wskey', ALLOGGIATI.wsKey);
    await submit('#police-alloggiati button[type=submit]');
    assert.match((await host.textContent('#police-tables')) ?? '', new RegExp(`Places and document types of ${new Date().toISOString().slice(0, 10)}`));
    await host.check('#police-production input[name=confirm]');
    await submit('#police-production button[type=submit]');
    assert.match((await host.textContent('#police-current')) ?? '', /Production/);
    await host.setViewportSize(PHONE);
    await host.locator('#police-h').scrollIntoViewIfNeeded();
    await snap(host, 'console-listing-police-alloggiati');
    await host.setViewportSize({ width: 1280, height: 900 });

    const id = await booking('roma-monti', rome(), 'Europe/Rome', 'Lorenzo', 'Greco');
    await host.goto(`${base}/console/reservations/${id}#reports-h`);
    await host.click('#police-details summary');
    await host.selectOption('#pd-sex', 'male');
    await host.fill('#pd-birth_date', '1975-03-03');
    await host.fill('#pd-birth_country', 'Italy');
    await host.fill('#pd-birth_place', 'Milano');
    await host.fill('#pd-nationality', 'Italy');
    await host.selectOption('#pd-document_type', 'id_card');
    await host.fill('#pd-document_number', 'CA99999ZZ');
    await host.fill('#pd-document_country', 'Italy');
    await host.fill('#pd-document_place', 'Roma');
    await submit('#save-police-details');
    await submit('#send-reports');
    await runJobs(id);
    assert.equal(alloggiati.calls.filter((c) => c === 'Send').length, 1, 'filed once');
    await host.reload();
    const reports = (await host.textContent('#reports')) ?? '';
    assert.match(reports, /Filed .* receipt of/);
    const pdf = await host.request.get(`${base}/console/reservations/${id}/authority-receipts/${rome()}`);
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');
  });

  it('shows a booking’s police deadline in the listing’s time and its arrival in words, and on a phone leads to the reports from the top of the page', async () => {
    // The booking does not say its listing's time zone: the deadline counts, and reads, in Italy's.
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { listing_id: 'roma-monti', number_of_guests: 1, check_in_date: after2(rome()), check_out_date: after2(after2(rome())), guest: { first_name: 'Chiara', last_name: 'Neri' } },
    });
    assert.equal(r.status, 200, r.body);
    await host.setViewportSize(PHONE);
    await host.goto(`${base}/console/reservations/${r.json.id}`);
    const due = (await host.locator('#reports td[data-label=Due]').first().textContent()) ?? '';
    assert.doesNotMatch(due, /UTC/, `the deadline in the listing's time: ${due}`);
    assert.match(due, /00:00 (CET|CEST|GMT\+1|GMT\+2)/);
    const contents = host.getByRole('navigation', { name: 'On this page' });
    await contents.getByRole('link', { name: /Police reports/ }).click();
    await host.waitForURL(/#reports-h$/);
    const top = await host.locator('#reports-h').evaluate((h) => h.getBoundingClientRect().top);
    assert.ok(top >= 0 && top < 200, `the reports' heading is at the top of the screen (${top} px)`);
    await snap(host, 'console-reservation-contents');
    await host.goto(`${base}/console/reports`);
    assert.match((await host.textContent('main')) ?? '', /Chiara Neri[\s\S]*arrives \d{1,2} [A-Z][a-z]+ \d{4}/);
    await host.setViewportSize({ width: 1280, height: 900 });
  });
});

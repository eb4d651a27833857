import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startFakeAlloggiati, type FakeAlloggiati } from '../../test/fake-alloggiati.js';
import { startFakeSes, type FakeSes } from '../../test/fake-ses.js';
import { haveChromium, launchBrowser, snap } from '../../test/browser.js';
import { call, createTestApp, dbKind, setPortalScreens, tenant, type Tenant, type TestApp } from '../../test/harness.js';
import { dayIn } from '../lib/time.js';

const SES = { user: 'B12345678WS', password: 'secreta', arrendador: '0000000001' };
const ALLOGGIATI = { user: 'RM000123', password: 'Segreta1', wsKey: 'AAAA-BBBB-CCCC' };
const PHONE = { width: 390, height: 844 };

/**
 * A guest on a phone at a Spanish and at an Italian listing: the document comes first and the
 * police step after it, filled in from it, so nothing is typed twice; a Spanish double surname is
 * split; and a problem is marked beside its field, the summary's line leading to it.
 */
describe(`the guest portal's police step, walked on a phone in Spanish and Italian (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let ses: FakeSes;
  let alloggiati: FakeAlloggiati;
  let browser: Browser;
  let base: string;
  let me: Tenant;
  const rome = () => dayIn(new Date().toISOString(), 'Europe/Rome');
  const later = (d: string, n: number) => new Date(Date.parse(d) + n * 86_400_000).toISOString().slice(0, 10);

  before(async () => {
    ses = await startFakeSes(SES);
    alloggiati = await startFakeAlloggiati(ALLOGGIATI, rome);
    t = await createTestApp({ GUESTSCREEN_SES_TEST_URL: ses.url, GUESTSCREEN_ALLOGGIATI_URL: alloggiati.url });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    me = await tenant(t);
    // The police step comes first in the spec's order; the typed document after it.
    const set = await setPortalScreens(t, me.key, { AboutYou: 'required', IDVerification: 'required', HouseRules: 'disabled', AuthorityReporting: 'required' });
    assert.equal(set.status, 200, set.body);
    const sesBody = { system: 'ses', landlord_code: SES.arrendador, establishment_code: '0000000042', username: SES.user, password: SES.password };
    assert.equal((await call(t, 'PUT', '/v1/listings/madrid-1/authority-establishment', { key: me.key, body: sesBody })).status, 200);
    const itBody = { system: 'alloggiati', username: ALLOGGIATI.user, password: ALLOGGIATI.password, ws_key: ALLOGGIATI.wsKey };
    assert.equal((await call(t, 'PUT', '/v1/listings/roma-1/authority-establishment', { key: me.key, body: itBody })).status, 200);
  });
  after(async () => {
    await browser?.close();
    await t.close();
    await Promise.all([ses.close(), alloggiati.close()]);
  });

  async function portal(listing: string, language: string, first: string, last: string): Promise<Page> {
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        listing_id: listing,
        listing_nickname: listing === 'roma-1' ? 'Appartamento Trastevere' : 'Casa Lavapiés',
        number_of_guests: 1,
        check_in_date: later(rome(), 3),
        check_out_date: later(rome(), 5),
        guest: { first_name: first, last_name: last, email: 'guest@example.org', phone: '+34 600 123 456', language },
      },
    });
    assert.equal(r.status, 200, r.body);
    const page = await (await browser.newContext({ viewport: PHONE, locale: language })).newPage();
    await page.goto(base + new URL(r.json.guest_portal_url).pathname);
    return page;
  }
  const save = (page: Page) => Promise.all([page.waitForLoadState(), page.click('button[value=save]')]);
  const value = (page: Page, name: string) => page.inputValue(`#f_${name}`);
  /** The typed document's step, filled in and saved, valid for years yet. */
  const typeDocument = async (page: Page, d: { type: string; number: string; nationality: string; birth: string }) => {
    await page.selectOption('#f_document_type', d.type);
    await page.fill('#f_document_number', d.number);
    await page.fill('#f_nationality', d.nationality);
    await page.fill('#f_birth_date', d.birth);
    await page.fill('#f_expiry_date', later(rome(), 2000));
    await save(page);
  };

  it('in Spanish: the document before the police step, which is filled in from it, the double surname split, a problem marked at its field', async () => {
    const page = await portal('madrid-1', 'es', 'Javier', 'López Fernández');
    assert.match((await page.textContent('h1')) ?? '', /Sobre ti|Tus datos|Acerca de ti/i);
    await save(page);
    // The document's step comes before the police step.
    assert.equal(await page.locator('#f_document_number').count(), 1, `the document is asked before the police step: ${page.url()} ${await page.textContent('main')}`);
    await typeDocument(page, { type: 'id_card', number: '12345678Z', nationality: 'España', birth: '1985-04-12' });
    // The police step: what the guest gave is there already.
    assert.equal(await page.locator('#f_second_last_name').count(), 1, `now the police step: ${await page.textContent('h1')}`);
    assert.equal(await value(page, 'first_name'), 'Javier');
    assert.equal(await value(page, 'last_name'), 'López');
    assert.equal(await value(page, 'second_last_name'), 'Fernández');
    assert.equal(await value(page, 'document_number'), '12345678Z');
    assert.equal(await value(page, 'birth_date'), '1985-04-12');
    assert.equal(await value(page, 'nationality'), 'España');
    assert.equal(await page.inputValue('#f_document_type'), 'es_nif');
    assert.equal(await value(page, 'email'), 'guest@example.org');
    // Sent with the address left out: the problem is beside its field, and the summary leads there.
    await page.selectOption('#f_sex', 'male');
    await page.fill('#f_residence_country', 'España');
    await page.fill('#f_city', 'Madrid');
    await page.fill('#f_postal_code', '28012');
    await page.evaluate(() => document.querySelectorAll('[required]').forEach((e) => e.removeAttribute('required')));
    await save(page);
    const summary = page.locator('.error-summary');
    assert.match((await summary.locator('h2').textContent()) ?? '', /Hay un problema/);
    const line = summary.locator('a[href="#f_address"]');
    assert.equal(await line.count(), 1, `a line of the summary links to the address: ${await summary.textContent()}`);
    assert.equal(await page.getAttribute('#f_address', 'aria-invalid'), 'true');
    assert.match((await page.textContent('#f_address-error')) ?? '', /obligatori/i);
    await line.click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'f_address', 'the summary’s line takes the guest to the field');
    await snap(page, 'portal-police-error-es');
  });

  it('in Italian: document type, number, nationality and birth date are not asked again on the police step', async () => {
    const page = await portal('roma-1', 'it', 'Giulia', 'Bianchi');
    assert.match((await page.textContent('.steps')) ?? '', /presso Appartamento Trastevere/);
    await save(page);
    await typeDocument(page, { type: 'passport', number: 'YA1234567', nationality: 'Italia', birth: '1990-09-30' });
    assert.equal(await page.locator('#f_birth_country').count(), 1, `now the police step: ${await page.textContent('h1')}`);
    assert.equal(await page.inputValue('#f_document_type'), 'passport');
    assert.equal(await value(page, 'document_number'), 'YA1234567');
    assert.equal(await value(page, 'nationality'), 'Italia');
    assert.equal(await value(page, 'birth_date'), '1990-09-30');
    assert.equal(await value(page, 'document_country'), 'Italia');
    assert.equal(await value(page, 'last_name'), 'Bianchi');
    await snap(page, 'portal-police-it');
  });
});

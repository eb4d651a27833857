import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../test/browser.js';
import { call, createTestAppWithWorker, dbKind, decodeQuotedPrintable, eventually, startSmtp, tenant, type Tenant, type TestApp, setPortalScreens } from '../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** A 1×1 teal PNG, for the host's logo. */
const LOGO = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const RULES = 'No parties or events.\n\nQuiet hours from 22:00 to 08:00.\n\nNo smoking inside the flat.';

describe(`the guest portal in the guest's language, on a phone (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  /** The mails received, decoded. */
  const mails = () => smtp.mails.map((m) => ({ to: m.to, data: decodeQuotedPrintable(m.data) }));
  let me: Tenant;

  before(async () => {
    smtp = await startSmtp();
    t = await createTestAppWithWorker({ GUESTSCREEN_SMTP_URL: smtp.url });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    me = await tenant(t);
    const screens = { AboutYou: 'required', IDVerification: 'required', HouseRules: 'required' };
    const set = await setPortalScreens(t, me.key, screens);
    assert.equal(set.status, 200, set.body);
    const profile = await call(t, 'PUT', '/v1/accounts/host-profile', { key: me.key, body: { display_name: 'Casa Azul Sevilla', accent_color: '#0f766e', logo: LOGO, house_rules: RULES } });
    assert.equal(profile.status, 200, profile.body);
    const checkIn = await call(t, 'PUT', '/v1/listings/casa-azul/check-in', { key: me.key, body: { address: 'Calle del Sol 4, Sevilla', door_code: '4817#', wifi_password: 'naranjas' } });
    assert.equal(checkIn.status, 200, checkIn.body);
  });
  after(async () => {
    await browser?.close();
    await t.close();
    await smtp.close();
  });

  it('takes a Spanish guest through it in Spanish, shows the host’s rules and name, warns at once of a document expiring before check-out, and sends the door code only once verified', async () => {
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        listing_id: 'casa-azul',
        listing_nickname: 'Casa Azul',
        check_in_date: day(1),
        check_out_date: day(5),
        guest: { first_name: 'Lucía', last_name: 'García', email: 'lucia@example.es', language: 'es' },
      },
    });
    assert.equal(booking.status, 200, booking.body);
    const id = booking.json.id as string;
    // The invitation, in Spanish, from the host.
    const invitation = await eventually(async () => mails().find((m) => m.to === 'lucia@example.es'), 'the invitation');
    assert.match(invitation.data, /Subject: =\?UTF-8\?|Subject: Registro para Casa Azul/);
    assert.match(invitation.data, /Completa tu registro de huésped/);
    assert.match(invitation.data, /Casa Azul Sevilla/);

    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    assert.equal(await page.getAttribute('html', 'lang'), 'es', 'the booking’s language wins over the browser’s');
    assert.equal(await page.textContent('h1'), 'Sobre ti');
    assert.equal(await page.textContent('header.host .host-name'), 'Casa Azul Sevilla');
    assert.ok(await page.isVisible('header.host img.logo'), 'the host’s logo');
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('button')!).backgroundColor), 'rgb(15, 118, 110)', 'the host’s accent colour');
    assert.match((await page.textContent('nav.languages')) ?? '', /English.*Español.*Français.*Deutsch.*Italiano.*Português/);
    await snap(page, 'portal-es-1-about');
    await page.fill('#f_phone', '+34 612 345 678');
    await page.click('button[value=save]');

    await page.waitForSelector('h1:has-text("Tu documento de identidad")');
    await page.selectOption('#f_document_type', 'id_card');
    await page.fill('#f_document_number', '12345678Z');
    await page.fill('#f_nationality', 'Espa');
    assert.ok((await page.$$eval('#countries option', (os) => os.map((o) => (o as HTMLOptionElement).value))).includes('España'), 'countries are listed by their Spanish names');
    await page.fill('#f_nationality', 'España');
    await page.fill('#f_birth_date', '1990-04-12');
    await page.fill('#f_expiry_date', day(3));
    await page.click('button[value=save]');

    // Told at once, in Spanish, with what to do; the details are kept.
    await page.waitForSelector('#warnings');
    const warning = (await page.textContent('#warnings')) ?? '';
    assert.match(warning, /Tu documento caduca el .+, antes de que termine tu estancia el .+\./);
    assert.match(warning, /Comprueba la fecha de caducidad/);
    assert.equal(await page.inputValue('#f_nationality'), 'España');
    await snap(page, 'portal-es-2-document-warning');
    await page.click('button[value=save]');

    await page.waitForSelector('h1:has-text("Normas de la casa")');
    const rules = (await page.textContent('section.terms')) ?? '';
    assert.match(rules, /No parties or events\.[\s\S]*Quiet hours from 22:00 to 08:00/, 'the rules are shown in full');
    await snap(page, 'portal-es-3-house-rules');
    await page.check('#f_accepted');
    await page.click('button[value=save]');

    await page.waitForSelector('h1:has-text("Revisar y enviar")');
    await page.click('button:has-text("Enviar a Casa Azul Sevilla")');
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('h1'), 'Gracias');
    assert.match((await page.textContent('#check-in')) ?? '', /te llegarán por correo electrónico en cuanto tu reserva esté verificada/);
    await snap(page, 'portal-es-4-done');
    await context.close();

    // The host sees the finding, and the accepted rules word for word with their version.
    const summary = await eventually(async () => {
      const s = await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key });
      return JSON.stringify(s.json).includes('expires') ? s.json : undefined;
    }, 'the expiry finding');
    assert.ok(summary);
    const portal = await call(t, 'GET', `/v1/reservations/${id}/guestportal`, { key: me.key });
    const accepted = portal.json.screens.HouseRules.answers;
    assert.equal(accepted.terms_text, RULES);
    assert.match(accepted.terms_version, /^[0-9a-f]{16}$/);
    assert.equal(portal.json.screens.IDVerification.answers.nationality, 'ES');

    // The host reads the guest's answers in words, not the portal's keys and codes.
    await withPassword(t, me);
    const host = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const console = await host.newPage();
    await signIn(console, base, me.account.email);
    await console.goto(`${base}/console/reservations/${id}`);
    const answers = (await console.textContent('section[aria-labelledby=portal-h]')) ?? '';
    assert.match(answers, /Identity document details/);
    assert.match(answers, /Document: National identity card/);
    assert.match(answers, /Nationality: Spain/);
    assert.match(answers, /Date of birth: 12 April 1990/);
    await snap(console, 'reservation-portal-answers');
    await host.close();

    // Not verified, so no door code; the host approves, and it comes, in Spanish.
    assert.notEqual((await call(t, 'GET', `/v1/reservations/${id}/status`, { key: me.key })).json.status, 'verified');
    assert.ok(!mails().some((m) => m.data.includes('4817#')), 'no door code before verification');
    assert.equal((await call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised: 'approve' } })).status, 200);
    const details = await eventually(async () => mails().find((m) => m.to === 'lucia@example.es' && m.data.includes('4817#')), 'the check-in details');
    assert.match(details.data, /Código de la puerta: 4817#/);
    assert.match(details.data, /Tus datos de llegada a Casa Azul/);
  });

  it('follows the browser’s language, and the switcher, for a booking that names none', async () => {
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        listing_id: 'casa-azul',
        listing_nickname: 'Le Chalet',
        check_in_date: day(20),
        check_out_date: day(23),
        guest: { first_name: 'Claire', last_name: 'Martin', email: 'claire@example.fr' },
      },
    });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    assert.equal(await page.textContent('h1'), 'Zu Ihrer Person');
    await page.click('nav.languages a:has-text("Français")');
    await page.waitForSelector('h1:has-text("Vous")');
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    await page.fill('#f_phone', '+33 6 12 34 56 78');
    await page.click('button[value=save]');

    await page.waitForSelector('h1:has-text("Votre pièce d’identité")');
    await page.selectOption('#f_document_type', 'passport');
    await page.fill('#f_document_number', '19FR12345');
    await page.fill('#f_nationality', 'Allemagne');
    await page.fill('#f_birth_date', day(400));
    await page.fill('#f_expiry_date', day(3000));
    await page.click('button[value=save]');
    // A birth date still to come is a typing slip, refused in French.
    assert.match((await page.textContent('[role=alert]')) ?? '', /Date de naissance : cette date n’est pas encore arrivée\./);
    await page.fill('#f_birth_date', '1988-02-29');
    await page.click('button[value=save]');

    await page.waitForSelector('h1:has-text("Règlement intérieur")');
    await page.check('#f_accepted');
    await page.click('button[value=save]');
    await page.waitForSelector('h1:has-text("Vérifier et envoyer")');
    await snap(page, 'portal-fr-review');
    await page.click('button:has-text("Envoyer à Casa Azul Sevilla")');
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('h1'), 'Merci');
    assert.match((await page.textContent('#check-in')) ?? '', /vous parviendront par e-mail le .+, une fois votre réservation vérifiée/);
    await snap(page, 'portal-fr-done');
    await context.close();
  });
});

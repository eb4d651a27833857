import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { haveChromium, launchBrowser, snap } from '../../test/browser.js';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe(`guest portal in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  before(async () => {
    t = await createTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  it('lets a guest with JavaScript turned off fill in every step, upload a document and submit', async () => {
    const me = await tenant(t);
    const screens = { AboutYou: 'required', IDVerification: 'required', IDCollection: 'required', HouseRules: 'required', PurposeOfStay: 'optional' };
    const set = await call(t, 'PUT', '/v1/accounts/settings/guest-portal-screens/guest_portal_screens_default', {
      key: me.key,
      body: { config_key: 'guest_portal_screens_default', config_data: [{ guest_portal_screens: screens }] },
    });
    assert.equal(set.status, 200, set.body);
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { check_in_date: day(14), check_out_date: day(18), listing_nickname: 'Old Town Flat', guest: { first_name: 'Jan', last_name: 'Novak', email: 'jan@example.cz' } },
    });
    const id = booking.json.id as string;
    const scan = path.join(t.env.GUESTSCREEN_DATA_DIR ?? '', 'passport.png');
    // A whole 1×1 PNG.
    writeFileSync(scan, Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'));

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    assert.equal(await page.title(), 'About you · guestscreen');
    assert.equal(await page.inputValue('#f_email'), 'jan@example.cz', 'what the booking knows is filled in');
    await page.fill('#f_phone', '+420 601 123 456');
    await page.click('button[value=save]');

    await page.waitForSelector('text=Your identity document');
    await page.selectOption('#f_document_type', 'id_card');
    await page.fill('#f_document_number', '123456789');
    await page.fill('#f_nationality', 'CZE');
    await page.fill('#f_birth_date', '1985-06-30');
    await page.fill('#f_expiry_date', day(900));
    await page.click('button[value=save]');

    await page.waitForSelector('text=A copy of your identity document');
    // On a phone, each hint sits on lines of its own, above the buttons, never beside one.
    await page.setViewportSize({ width: 390, height: 844 });
    const shared = await page.evaluate(() => {
      const hints = Array.from(document.querySelectorAll('small.hint')).map((e) => e.getBoundingClientRect());
      const buttons = Array.from(document.querySelectorAll('button')).map((e) => e.getBoundingClientRect());
      return hints.filter((h) => buttons.some((b) => h.top < b.bottom && b.top < h.bottom)).length;
    });
    assert.equal(shared, 0, 'no hint shares a line with a button');
    await snap(page, 'portal-upload');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.setInputFiles('#f_document_front', scan);
    await page.click('button[value=save]');

    await page.waitForSelector('h1:has-text("House rules")');
    // Unticked, the server says so (the browser's own check is bypassed with a plain submit).
    await page.$eval('#f_accepted', (el) => el.removeAttribute('required'));
    await page.click('button[value=save]');
    assert.match((await page.textContent('[role=alert]')) ?? '', /tick the box to continue/);
    await page.check('#f_accepted');
    await page.click('button[value=save]');

    await page.waitForSelector('h1:has-text("Purpose of your stay")');
    await page.click('button[value=skip]');

    await page.waitForSelector('h1:has-text("Review and submit")');
    assert.match((await page.textContent('ol.review')) ?? '', /Purpose of your stay: skipped/);
    await page.click('text=Submit to your host');
    await page.waitForSelector('#done');
    await page.screenshot({ path: path.join(t.env.GUESTSCREEN_DATA_DIR ?? '', 'portal-done.png') });
    await context.close();

    const gp = (await call(t, 'GET', `/v1/reservations/${id}/guestportal`, { key: me.key })).json;
    assert.equal(gp.completed, true);
    assert.equal(gp.phone, '+420 601 123 456');
    assert.equal(gp.screens.IDCollection.answers.document_front.filename, 'passport.png');
    const r = (await call(t, 'GET', `/v1/reservations/${id}`, { key: me.key })).json;
    assert.equal(r.identification.document_type, 'id_card');
    assert.equal(r.identification.document_number, '123456789');
  });
});

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../test/browser.js';
import { generateDocuments } from '../../bench/documents/generate.js';
import { call, createTestAppWithWorker, dbKind, tenant, type TestApp, setPortalScreens } from '../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe(`guest portal in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  before(async () => {
    // With a worker: the photos the guest sends are read where jobs run.
    t = await createTestAppWithWorker();
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
    const set = await setPortalScreens(t, me.key, screens);
    assert.equal(set.status, 200, set.body);
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { check_in_date: day(14), check_out_date: day(18), listing_nickname: 'Old Town Flat', guest: { first_name: 'Jan', last_name: 'Novak', email: 'jan@example.cz' } },
    });
    const id = booking.json.id as string;
    const [passport] = await generateDocuments(path.join(t.env.GUESTSCREEN_DATA_DIR ?? '', 'documents'), 1, 7);
    const truth = passport!.truth;

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    assert.equal(await page.title(), 'About you · guestscreen');
    assert.equal(await page.inputValue('#f_email'), 'jan@example.cz', 'what the booking knows is filled in');
    await page.fill('#f_phone', '+420 601 123 456');
    await page.click('button[value=save]');

    // The photo of the document comes before its typed details, which it fills in.
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
    await page.setInputFiles('#f_document_front', passport!.file);
    await page.click('button[value=save]');

    // Without JavaScript the waiting page reloads itself until the photo is read.
    await page.waitForSelector('h1:has-text("Reading your document")');
    await page.waitForSelector('[data-reading=read]', { timeout: 30_000 });
    assert.match((await page.textContent('[data-reading=read]')) ?? '', new RegExp(truth.surname.split('<')[0]!, 'i'));
    await snap(page, 'portal-document-read');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click('text=Continue');

    await page.waitForSelector('text=Your identity document');
    assert.equal(await page.inputValue('#f_document_type'), 'passport', 'what was read fills the form');
    assert.equal(await page.inputValue('#f_document_number'), truth.documentNumber);
    assert.equal(await page.inputValue('#f_birth_date'), truth.birthDate);
    assert.equal(await page.inputValue('#f_expiry_date'), truth.expiryDate);
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
    assert.equal(gp.screens.IDCollection.answers.document_front.filename, path.basename(passport!.file));
    const r = (await call(t, 'GET', `/v1/reservations/${id}`, { key: me.key })).json;
    assert.equal(r.identification.document_type, 'passport');
    assert.equal(r.identification.document_number, truth.documentNumber);

    // The host sees what was read beside what the booking and the guest gave.
    await withPassword(t, me);
    const host = await browser.newContext();
    const console = await host.newPage();
    await signIn(console, base, me.account.email);
    await console.goto(`${base}/console/reservations/${id}`);
    assert.equal(await console.textContent('#document-valid'), 'every check digit holds');
    assert.match((await console.textContent('#document-read tr[data-field=number]')) ?? '', new RegExp(`${truth.documentNumber}.*check digit holds.*agrees`));
    assert.equal((await console.textContent('#document-zone'))?.split('\n')[0], truth.lines[0]);
    assert.match((await console.textContent('#document-printed')) ?? '', /^The name (and dates )?printed on the page agree with the machine-readable lines\.$/);
    // The passport page cut out of the photo, upright and shaped as a passport page (125 × 88 mm).
    const shown = await console.$eval('#document-photo', async (img) => {
      const i = img as HTMLImageElement;
      await i.decode();
      return { width: i.naturalWidth, height: i.naturalHeight };
    });
    assert.ok(shown.width >= 400, `the crop is ${shown.width} px wide`);
    assert.ok(Math.abs(shown.width / shown.height - 125 / 88) < 0.15, `the crop is ${shown.width} × ${shown.height}`);
    const photo = await console.request.get(base + ((await console.getAttribute('#document-photo', 'src')) ?? ''));
    assert.equal(photo.headers()['cache-control'], 'private, no-store');
    await snap(console, 'console-document-read');
    await host.close();
  });

  it("asks a guest who sent only their ID card's back for both sides, and shows the host the card's front", async () => {
    const me = await tenant(t);
    const set = await setPortalScreens(t, me.key, { AboutYou: 'disabled', IDVerification: 'disabled', IDCollection: 'required' });
    assert.equal(set.status, 200, set.body);
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { check_in_date: day(9), check_out_date: day(11), guest: { first_name: 'Ana', last_name: 'Sousa', email: 'ana@example.pt' } },
    });
    const card = (await generateDocuments(path.join(t.env.GUESTSCREEN_DATA_DIR ?? '', 'card'), 2, 8, { fronts: true }))[1]!;
    assert.equal(card.truth.format, 'TD1');
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    // The back alone, in the field of the front: it reads, but it has no photo of the guest.
    await page.setInputFiles('#f_document_front', card.file);
    await page.click('button[value=save]');
    await page.waitForSelector('[data-reading=back-only]', { timeout: 30_000 });
    assert.match((await page.textContent('[data-reading=back-only]')) ?? '', /This is the back of your ID card, which has no photo of you\. Send both sides together/);
    await snap(page, 'portal-card-back-only');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click('[data-reading=back-only] a');
    await page.setInputFiles('#f_document_front', card.front!);
    await page.setInputFiles('#f_document_back', card.file);
    await page.click('button[value=save]');
    await page.waitForSelector('[data-reading=read]', { timeout: 30_000 });
    assert.equal(await page.$('[data-reading=back-only]'), null);
    await context.close();

    // The host sees the card's front, the side with the portrait, not the back's zone.
    await withPassword(t, me);
    const host = await browser.newContext();
    const console = await host.newPage();
    await signIn(console, base, me.account.email);
    await console.goto(`${base}/console/reservations/${booking.json.id}`);
    assert.equal(await console.getAttribute('#document-photo', 'alt'), "The ID card's front, as the guest sent it");
    assert.equal(await console.$('#document-portrait-missing'), null);
    await snap(console, 'console-card-front');
    await host.close();
  });

  it('tells a guest at once, in their language, that a photo cannot be read, and lets them go on after three tries', async () => {
    const me = await tenant(t);
    const screens = { AboutYou: 'disabled', IDVerification: 'required', IDCollection: 'required' };
    const set = await setPortalScreens(t, me.key, screens);
    assert.equal(set.status, 200, set.body);
    const booking = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { check_in_date: day(10), check_out_date: day(12), guest: { first_name: 'Lucía', last_name: 'García', email: 'lucia@example.es', language: 'es' } },
    });
    assert.equal(booking.status, 200, booking.body);
    // A passport shown on a screen, photographed: it reads, but it is no photo of the document in hand.
    const [onScreen] = await generateDocuments(path.join(t.env.GUESTSCREEN_DATA_DIR ?? '', 'screens'), 0, 7, { screens: 1 });
    // A photo of a blank wall: an image, but no document in it.
    const wall = path.join(t.env.GUESTSCREEN_DATA_DIR ?? '', 'wall.jpg');
    writeFileSync(
      wall,
      await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 200, g: 196, b: 190 } } })
        .jpeg()
        .toBuffer(),
    );

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(base + new URL(booking.json.guest_portal_url).pathname);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await page.waitForSelector('#f_document_front');
      await page.setInputFiles('#f_document_front', attempt === 1 ? onScreen!.file : wall);
      await page.click('button[value=save]');
      // htmx asks until the reading ends, then shows why the photo could not be read.
      await page.waitForSelector('[data-reading=unreadable]', { timeout: 30_000 });
      assert.equal(await page.textContent('h1'), 'Leyendo tu documento');
      const problems = await page.$$eval('[data-problem]', (ps) => ps.map((p) => p.getAttribute('data-problem')));
      if (attempt === 1) {
        assert.deepEqual(problems, ['screen_photo']);
        assert.match((await page.textContent('[data-reading=unreadable]')) ?? '', /Esta foto no sirve para comprobar tu documento.*fotografía el documento en sí/s);
      } else {
        assert.match((await page.textContent('[data-reading=unreadable]')) ?? '', /No hemos podido leer tu documento/);
        // A wall is no document: not a blurred one.
        assert.deepEqual(problems, ['no_document']);
      }
      if (attempt < 3) {
        assert.match((await page.textContent('p.hint')) ?? '', new RegExp(`Puedes intentarlo ${3 - attempt} ve`));
        assert.equal(await page.$('text=Continuar sin ella'), null, 'no going on before three tries');
        if (attempt === 1) await snap(page, 'portal-document-screen');
        if (attempt === 2) await snap(page, 'portal-document-unreadable');
        await page.click('text=Repetir la foto');
      }
    }
    await page.click('text=Continuar sin ella');
    await page.waitForSelector('#f_document_number');
    await context.close();
    const readings = await t.deps.db.selectFrom('identity_verifications').select(['status', 'source']).where('reservation_id', '=', booking.json.id).execute();
    assert.equal(readings.length, 3);
    assert.ok(readings.every((x) => x.source === 'portal' && x.status !== 'pending'));
  });
});

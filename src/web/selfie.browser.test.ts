import assert from 'node:assert/strict';
import { SAME_DISTANCE } from '../lib/faces/compare.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { haveChromium, launchBrowser, SCREENSHOTS, signIn, snap, withPassword } from '../../test/browser.js';
import { generateDocuments, type GeneratedPhoto } from '../../bench/documents/generate.js';
import { call, createTestAppWithWorker, dbKind, tenant, type TestApp, setPortalScreens } from '../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
// A public-domain portrait (test/fixtures/faces/SOURCES.md): the guest, on the document and before the camera.
const collins = readFileSync(new URL('../../test/fixtures/faces/collins.jpg', import.meta.url));

describe(`the selfie in the guest portal, in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let camera: Browser;
  let base: string;
  let passport: GeneratedPhoto;

  before(async () => {
    t = await createTestAppWithWorker();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const dir = path.join(t.env.GUESTSCREEN_DATA_DIR ?? '', 'selfies');
    mkdirSync(dir, { recursive: true });
    passport = (await generateDocuments(dir, 1, 5, { portraits: [collins] }))[0]!;
    // Chromium's fake camera plays a Motion JPEG file: the guest sitting before it, frame after frame.
    const frame = await sharp(collins).resize(640, 480, { fit: 'contain', background: '#3a4a5a' }).jpeg({ quality: 90 }).toBuffer();
    const video = path.join(dir, 'guest.mjpeg');
    writeFileSync(video, Buffer.concat(Array.from({ length: 10 }, () => frame)));
    browser = await launchBrowser();
    camera = await launchBrowser(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`]);
  });
  after(async () => {
    await browser?.close();
    await camera?.close();
    await t.close();
  });

  const booking = async () => {
    const me = await tenant(t);
    const screens = { AboutYou: 'disabled', IDVerification: 'disabled', HouseRules: 'disabled', IDCollection: 'required', Selfie: 'required' };
    const set = await setPortalScreens(t, me.key, screens);
    assert.equal(set.status, 200, set.body);
    const truth = passport.truth;
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: {
        check_in_date: day(9),
        check_out_date: day(12),
        guest: { first_name: truth.givenNames.split('<')[0], last_name: truth.surname.replace(/</g, ' '), email: 'guest@example.org' },
      },
    });
    assert.equal(r.status, 200, r.body);
    return { me, id: r.json.id as string, url: base + new URL(r.json.guest_portal_url).pathname };
  };

  it("takes a selfie with the phone's front camera, turning and blinking, and the host sees it beside the document", async () => {
    const { me, id, url } = await booking();
    const context = await camera.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.setInputFiles('#f_document_front', passport.file);
    await page.click('button[value=save]');
    await page.waitForSelector('[data-reading=read]', { timeout: 30_000 });
    await page.click('text=Continue');

    await page.waitForSelector('h1:has-text("A selfie")');
    assert.equal(await page.getAttribute('#f_selfie', 'capture'), 'user');
    // With JavaScript, the camera is offered (the page's deferred script shows it).
    await page.waitForSelector('#camera:not([hidden])');
    await snap(page, 'portal-selfie');
    await page.click('text=Start the camera');
    // The guest is asked to turn and blink while the frames are taken; then the form is sent.
    await page.waitForSelector('#camera video:not([hidden])');
    // Read as soon as there is one: the prompts change every second or two, and the form is sent after the last.
    await page.waitForSelector('[data-prompt]:not(:empty)');
    const prompts = ['Look at the camera.', 'Turn your head slowly to the left…', '…and now to the right.', 'Look at the camera and blink twice.'];
    const prompt = await page.textContent('[data-prompt]');
    assert.ok(prompts.includes(prompt ?? ''), `the guest is told what to do (${prompt})`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'portal-selfie-camera-phone.png') }).catch(() => undefined);
    await page.waitForURL(/\/selfie$/, { timeout: 20_000 });
    await page.waitForSelector('[data-selfie=ok]', { timeout: 30_000 });
    assert.equal(await page.textContent('[data-selfie=ok]'), 'Thank you: your selfie was taken.');
    await snap(page, 'portal-selfie-taken');
    await page.click('text=Continue');
    await page.waitForSelector('h1:has-text("Review and submit")');
    await page.click('text=Submit to your host');
    await page.waitForSelector('#done');
    await context.close();

    const v = (await call(t, 'GET', `/v1/reservations/${id}`, { key: me.key })).json;
    assert.ok(v.id);
    const reading = await t.deps.db.selectFrom('identity_verifications').selectAll().where('reservation_id', '=', id).executeTakeFirstOrThrow();
    const api = (await call(t, 'GET', `/v1/identity-verifications/${reading.id}`, { key: me.key })).json;
    assert.equal(api.face.verdict, 'same_person');
    assert.equal(api.liveness.frames, 8, "the camera's frames came with the selfie");

    // The host: the document and the selfie side by side, the verdict and each signal in words.
    await withPassword(t, me);
    const host = await browser.newContext();
    const console = await host.newPage();
    await signIn(console, base, me.account.email);
    await console.goto(`${base}/console/reservations/${id}`);
    const from = (1 - SAME_DISTANCE).toFixed(2).replace('.', '\\.');
    assert.match((await console.textContent('#face-verdict')) ?? '', new RegExp(`^Very likely the same person \\(similarity 0\\.\\d\\d; the same person from ${from}\\)\\.$`));
    assert.equal(await console.locator('#liveness li').count(), 5);
    assert.match((await console.textContent('#liveness li[data-signal=head_turn]')) ?? '', /head did not turn/, 'a still picture before the camera does not turn');
    for (const img of ['#document-photo', '#selfie-photo']) {
      const size = await console.$eval(img, async (i) => {
        await (i as HTMLImageElement).decode();
        return (i as HTMLImageElement).naturalWidth;
      });
      assert.ok(size > 200, `${img} shows`);
    }
    await snap(console, 'console-face-match');
    await host.close();
  });

  it('takes a selfie without JavaScript from the file input, and asks for another where the face is too dark', async () => {
    const { url } = await booking();
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.setInputFiles('#f_document_front', passport.file);
    await page.click('button[value=save]');
    await page.waitForSelector('[data-reading=read]', { timeout: 30_000 });
    await page.click('text=Continue');
    await page.waitForSelector('h1:has-text("A selfie")');
    assert.equal(await page.isVisible('#camera'), false, 'without JavaScript, only the file input');
    const dark = await sharp(collins).linear(0.12, 0).jpeg().toBuffer();
    await page.setInputFiles('#f_selfie', { name: 'selfie.jpg', mimeType: 'image/jpeg', buffer: dark });
    await page.click('button[value=save]');
    await page.waitForSelector('[data-selfie=retake]', { timeout: 30_000 });
    assert.match((await page.textContent('[data-problem=too_dark]')) ?? '', /too dark/);
    await snap(page, 'portal-selfie-retake');
    await page.click('text=Take the selfie again');
    await page.setInputFiles('#f_selfie', { name: 'selfie.jpg', mimeType: 'image/jpeg', buffer: collins });
    await page.click('button[value=save]');
    await page.waitForSelector('[data-selfie=ok]', { timeout: 30_000 });
    await context.close();
  });
});

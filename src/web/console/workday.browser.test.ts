import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestAppWithWorker, dbKind, decodeQuotedPrintable, eventually, startSmtp, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

/** A host's day in the console, with JavaScript on: told by e-mail, then acting on it. */
describe(`a host's working day in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let host: Tenant;
  let page: Page;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

  before(async () => {
    smtp = await startSmtp();
    t = await createTestAppWithWorker({ GUESTSCREEN_SMTP_URL: smtp.url });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    // The links in the e-mails point at the service as it is reached.
    t.deps.config.publicUrl = base;
    browser = await launchBrowser();
    host = await tenant(t, { name: 'Dune Cottages' });
    await withPassword(t, host);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signIn(page, base, host.account.email);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('chooses how to be told, then a booking turns orange and the e-mail that arrives opens its reservation page', async () => {
    await page.goto(`${base}/console/me`);
    await page.check('input[name=alerts][value=each]');
    await Promise.all([page.waitForURL(/done=alerts/), page.click('form[action="/console/me/alerts"] button[type=submit]')]);
    assert.equal(await page.isChecked('input[name=alerts][value=each]'), true);

    // A document that expires during the stay makes the verdict orange.
    const r = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', {
      key: host.key,
      body: {
        check_in_date: day(4),
        check_out_date: day(7),
        listing_nickname: 'Dune Loft',
        guest: { first_name: 'Olga', last_name: 'Orange', email: 'olga@example.org', language: 'de' },
        identification: { document_number: 'X123', expiry_date: day(5), birth_date: '1990-01-01' },
      },
    });
    assert.equal(r.status, 200, r.body);
    const mail = await eventually(async () => smtp.mails.map((m) => decodeQuotedPrintable(m.data)).find((m) => m.includes('Olga Orange')), 'the e-mail to the host');
    assert.match(mail, /Subject: Olga Orange needs your decision/);
    const link = new RegExp(`${base.replace(/[.:/]/g, '\\$&')}/console/reservations/res_[a-z0-9]+`).exec(mail)?.[0];
    assert.ok(link, 'the e-mail links to the reservation page');
    await page.goto(link);
    assert.equal(await page.textContent('h1'), 'Olga Orange');
    assert.match((await page.textContent('#verdict-h')) ?? '', /Orange/);
    await page.goto(`${base}/console/settings`);
    await snap(page, 'settings-alerts');
  });

  it("sends the portal link again and writes to the guest from the reservation page, framed in the guest's language", async () => {
    const r = await call(t, 'POST', '/v1/reservations?skip_gp=1', {
      key: host.key,
      body: { check_in_date: day(9), listing_nickname: 'Dune Loft', guest: { first_name: 'Jonas', last_name: 'Weber', email: 'jonas@example.de', language: 'de' } },
    });
    assert.equal(r.status, 200, r.body);
    const toJonas = () => smtp.mails.filter((m) => m.to === 'jonas@example.de').map((m) => decodeQuotedPrintable(m.data));
    await page.goto(`${base}/console/reservations/${r.json.id}`);
    await Promise.all([page.waitForURL(/done=sent/), page.click('#resend-portal')]);
    const portal = await eventually(async () => toJonas().find((m) => m.includes('/gp/')), 'the portal link again');
    assert.match(portal, /Hallo Jonas,/);
    await page.fill('#guest-words', 'Der Schlüssel liegt im Kasten neben der Tür.');
    await Promise.all([page.waitForURL(/done=sent/), page.click('#send-words')]);
    const words = await eventually(async () => toJonas().find((m) => m.includes('Der Schlüssel liegt im Kasten')), "the host's message");
    assert.match(words, /Subject: Eine Nachricht /);
    assert.match(words, /Hallo Jonas,/);
    await page.reload();
    assert.match((await page.textContent('section[aria-labelledby=messages-h]')) ?? '', /Eine Nachricht/, 'the message shows on the page');
    await snap(page, 'reservation-messages');
  });
});

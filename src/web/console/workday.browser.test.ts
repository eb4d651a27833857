import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestAppWithWorker, dbKind, decodeQuotedPrintable, eventually, setPortalScreens, startSmtp, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

/** A 1×1 PNG, the listing's logo. */
const LOGO_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

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

  it("saves a listing's check-in instructions and what its guests see; a verified guest gets the instructions, and the portal preview shows the listing's words in each language", async () => {
    const set = await setPortalScreens(t, host.key, { AboutYou: 'required', HouseRules: 'required' });
    assert.equal(set.status, 200, set.body);
    // A guest verified before the listing has any instructions.
    const r = await call(t, 'POST', '/v1/reservations?skip_gp=1', {
      key: host.key,
      body: {
        listing_id: 'dune-house',
        listing_nickname: 'Dune House',
        check_in_date: day(1),
        check_out_date: day(3),
        guest: { first_name: 'Léa', last_name: 'Martin', email: 'lea@example.fr', language: 'fr' },
      },
    });
    assert.equal(r.status, 200, r.body);
    await eventually(async () => ((await call(t, 'GET', `/v1/reservations/${r.json.id}/status`, { key: host.key })).json.status === 'verified' ? true : undefined), 'verified by screening');

    // The account's own words, on the settings page.
    await page.goto(`${base}/console/settings`);
    await page.fill('#pr_name', 'Dune Cottages');
    await page.fill('#pr_rules', 'No parties.');
    await Promise.all([page.waitForURL(/done=profile/), page.click('form[action="/console/settings/host-profile"] button[type=submit]')]);
    assert.equal((await call(t, 'GET', '/v1/accounts/host-profile', { key: host.key })).json.display_name, 'Dune Cottages');
    await snap(page, 'settings-profile');

    await page.goto(`${base}/console/listings`);
    assert.match((await page.textContent('tr[data-listing=dune-house]')) ?? '', /Dune House\s*1\s*.*The account’s\s*None yet/s);
    await snap(page, 'listings');
    await Promise.all([page.waitForURL(/listings\/dune-house$/), page.click('a:text-is("Dune House")')]);
    assert.match((await page.textContent('section[aria-labelledby=stays-h]')) ?? '', /Léa Martin/);

    await page.fill('#ci_address', '3 Rue des Dunes, Biarritz');
    await page.fill('#ci_door_code', '2468B');
    await page.fill('#ci_wifi_password', 'sable-chaud');
    await page.fill('#ci_directions', 'The key box is by the blue gate.');
    await Promise.all([page.waitForURL(/done=check-in/), page.click('form[action$="/check-in"] button[type=submit]')]);
    const mail = await eventually(
      async () =>
        smtp.mails
          .filter((m) => m.to === 'lea@example.fr')
          .map((m) => decodeQuotedPrintable(m.data))
          .find((m) => m.includes('2468B')),
      'the check-in e-mail',
    );
    assert.match(mail, /3 Rue des Dunes, Biarritz/);
    assert.match(mail, /sable-chaud/);

    // A file that is not an image is refused in words, as the API refuses it, and nothing is saved.
    await page.setInputFiles('#pr_logo', { name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('not an image at all') });
    await page.click('form[action$="/host-profile"] button[type=submit]');
    assert.match((await page.textContent('.error')) ?? '', /logo: the data is not a PNG, JPEG or WebP image/);
    await page.goBack();
    await page.setInputFiles('#pr_logo', { name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(300 * 1024, 1) });
    await page.click('form[action$="/host-profile"] button[type=submit]');
    assert.match((await page.textContent('.error')) ?? '', /logo: at most 256 KB/);
    await page.goBack();
    // Text the databases would not take back whole is refused in the form sent with a file as in any other.
    await page.fill('#pr_name', 'Dune\u0000House');
    await page.click('form[action$="/host-profile"] button[type=submit]');
    assert.match((await page.textContent('.error')) ?? '', /body\.display_name.*NUL/);
    await page.goBack();
    await page.fill('#pr_name', 'Dune House by the Sea');
    await page.check('input[name=own_color]');
    await page.fill('#pr_color', '#b45309');
    await page.setInputFiles('#pr_logo', { name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from(LOGO_PNG, 'base64') });
    await page.fill('#pr_rules', 'No parties.\n\nShoes off inside, please.');
    await Promise.all([page.waitForURL(/done=profile/), page.click('form[action$="/host-profile"] button[type=submit]')]);
    const own = (await call(t, 'GET', '/v1/listings/dune-house/host-profile', { key: host.key })).json;
    assert.equal(own.display_name, 'Dune House by the Sea');
    assert.equal(own.accent_color, '#b45309');
    assert.equal(own.logo, `data:image/png;base64,${LOGO_PNG}`);
    assert.equal(await page.evaluate(() => (document.querySelector('img.logo-preview') as HTMLImageElement).naturalWidth), 1);
    await snap(page, 'listing');

    // The preview, in French: the listing's name, colour, logo and rules as Léa's portal shows them.
    // The page's load event, not its first paint: the host's colour comes in its own stylesheet, read below.
    await Promise.all([page.waitForURL(/\/preview\?lang=fr$/), page.click('#previews a[lang=fr]')]);
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    assert.equal(await page.textContent('.host-name'), 'Dune House by the Sea');
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()), '#b45309');
    assert.equal(await page.evaluate(() => (document.querySelector('img.logo') as HTMLImageElement).naturalWidth), 1);
    await snap(page, 'listing-preview');
    await page.click('.preview-steps a[data-step=HouseRules]');
    assert.match((await page.textContent('.terms')) ?? '', /Shoes off inside, please\./);
    assert.equal(await page.isDisabled('button[type=submit]'), false, 'the page is the guest’s as it is');
    assert.equal(await page.evaluate(() => document.querySelector('form')?.hasAttribute('inert')), true, 'but nothing in it can be sent');

    // The console's changes are in the log as the API's would be, by the person who made them.
    const log = (await call(t, 'GET', '/v1/audit?size=50', { key: host.key })).json as { items: { action: string; actor: { type: string } | null }[] };
    for (const action of ['accounts.host_profile.changed', 'listings.check_in.changed', 'listings.host_profile.changed']) {
      assert.ok(
        log.items.some((l) => l.action === action && l.actor?.type === 'user'),
        `${action} in the log`,
      );
    }
  });
});

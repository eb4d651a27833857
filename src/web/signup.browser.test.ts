import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { haveChromium, launchBrowser } from '../../test/browser.js';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../test/harness.js';

describe(`signup page in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let landing: Server;
  let landed: URL | undefined;
  let landingUrl: string;

  before(async () => {
    t = await createTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    landing = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/welcome') landed = url;
      res.end('<h1>Welcome to the PMS</h1>');
    }).listen(0, '127.0.0.1');
    await once(landing, 'listening');
    landingUrl = `http://127.0.0.1:${(landing.address() as { port: number }).port}/welcome`;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    landing?.close();
    await t.close();
  });

  it('lets a person sign up, shows the key once, and continues to the redirect', async () => {
    const reseller = await tenant(t, { reseller: true });
    const link = await call(t, 'POST', `/v1/accounts/signup?pms=api&redirect=${encodeURIComponent(landingUrl)}`, { key: reseller.key });
    const page = await browser.newPage();
    await page.goto(base + new URL(link.json.url).pathname);
    assert.equal(await page.title(), 'Create your account · guestscreen');

    await page.fill('#name', 'Harbour Homes');
    await page.fill('#email', 'ops@harbour.example');
    await page.fill('#company', 'Harbour Homes Ltd');
    await page.fill('#password', 'a long password');
    await page.click('button[type=submit]');

    await page.waitForSelector('#api-key');
    const key = (await page.textContent('#api-key'))?.trim();
    assert.match(key ?? '', /^gsk_/);
    const me = await call(t, 'GET', '/v1/accounts/me', { key });
    assert.equal(me.json.company.name, 'Harbour Homes Ltd');
    assert.equal(me.json.billing.parent_account, reseller.account.id);

    await page.click('#continue');
    await page.waitForURL(/\/welcome/);
    assert.equal(landed?.searchParams.get('account_id'), me.json.id);
  });

  it('keeps what was typed and explains the problem when the e-mail is wrong', async () => {
    const reseller = await tenant(t, { reseller: true });
    const link = await call(t, 'POST', '/v1/accounts/signup?pms=api&hidepw=1', { key: reseller.key });
    const page = await browser.newPage();
    await page.goto(base + new URL(link.json.url).pathname);
    assert.equal(await page.locator('#password').count(), 0, 'hidepw hides the password field');
    await page.fill('#name', 'Typo Travel');
    // The browser's own e-mail check would stop the form; the server must hold too.
    await page.$eval('#email', (el) => el.setAttribute('type', 'text'));
    await page.fill('#email', 'typo-at-example');
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    assert.match((await page.textContent('[role=alert]')) ?? '', /Enter a valid e-mail address/);
    assert.equal(await page.inputValue('#name'), 'Typo Travel');
  });

  it('shows a readable page for an expired link', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${base}/signup/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    assert.equal(res?.status(), 404);
    assert.match((await page.textContent('h1')) ?? '', /This link cannot be used/);
    await page.screenshot({ path: `${t.env.GUESTSCREEN_DATA_DIR}/signup-error.png` });
  });
});

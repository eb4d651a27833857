import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestAppWithWorker, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

/** The review queue on a phone: a guest the account's rules declined is still the host's work, and every count leads to the guests it counts. */
describe(`the review queue keeps a rule's decline in sight (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let host: Tenant;
  let page: Page;
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  const yearsAgo = (n: number) => `${new Date().getUTCFullYear() - n}-01-15`;

  before(async () => {
    t = await createTestAppWithWorker();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    host = await tenant(t, { name: 'Harbour Rooms' });
    await withPassword(t, host);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    await signIn(page, base, host.account.email);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists a red guest declined by a rule under "Declined by your rules" until marked handled, and links the week\'s counts to their guests', async () => {
    const rule = await call(t, 'POST', '/v1/rules', { key: host.key, body: { name: 'Adults only', expression: 'identification.age < 18', action: 'decline' } });
    assert.equal(rule.status, 200, rule.body);
    const r = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: host.key,
      body: {
        check_in_date: day(1),
        check_out_date: day(3),
        listing_nickname: 'Harbour Loft',
        guest: { first_name: 'Teo', last_name: 'Young', email: 'teo.young@mailinator.com' },
        identification: { birth_date: yearsAgo(15), expiry_date: day(-30), document_type: 'passport', document_number: 'X1234567' },
      },
    });
    assert.equal(r.status, 200, r.body);
    const summary = await call(t, 'GET', `/v1/reservations/${r.json.id}/summary`, { key: host.key });
    assert.equal(summary.json.verification_status, 'declined', summary.body);

    await page.goto(`${base}/console`);
    const declined = page.locator('#declined');
    assert.match(await declined.locator('h2').innerText(), /Declined by your rules: 1/);
    assert.match(await declined.innerText(), /Teo Young/);
    assert.doesNotMatch(await page.locator('main').innerText(), /Every screened guest has a verdict you do not need to look at/);
    await snap(page, 'queue-declined');

    // The week's count of its colour leads to the guest it counts.
    const colour = summary.json.risk_color as string;
    const legend = page.locator(`.legend a[href*="color=${colour}"]`);
    await Promise.all([page.waitForURL(/\/console\/screened\?color=/), legend.click()]);
    assert.match(await page.locator('main').innerText(), /Teo Young/);
    await snap(page, 'queue-screened');
    // So does each bar of the chart.
    await page.goto(`${base}/console`);
    const bars = await page.locator('.chart svg a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    assert.ok(
      bars.some((href) => href?.includes(`color=${colour}`) && href.includes(`day=${day(0)}`)),
      `a bar links to the day's ${colour} guests: ${bars.join(', ')}`,
    );

    // A day that is none, a NUL byte or a huge page: refused in words, never a server error.
    for (const q of ['day=2026-13-45', 'day=2026-12-01%00', 'from=99999999999', 'color=purple']) {
      const res = await page.request.get(`${base}/console/screened?${q}`);
      assert.equal(res.status(), 400, `${q}: ${res.status()}`);
    }

    await Promise.all([page.waitForURL(/done=handled/), declined.getByRole('button', { name: 'Mark Teo Young handled' }).click()]);
    assert.equal(await page.locator('#declined').count(), 0, 'handled, the guest leaves the list');
    const trail = await call(t, 'GET', `/v1/audit?subject_id=${r.json.id}`, { key: host.key });
    if (trail.status === 200) assert.match(trail.body, /reservation\.decline_handled/);
  });

  it('leaves a cancelled booking off the list by itself', async () => {
    const r = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: host.key,
      body: { check_in_date: day(2), guest: { first_name: 'Ada', last_name: 'Minor' }, identification: { birth_date: yearsAgo(16) } },
    });
    assert.equal(r.status, 200, r.body);
    await page.goto(`${base}/console`);
    assert.match(await page.locator('#declined').innerText(), /Ada Minor/);
    const cancelled = await call(t, 'PUT', `/v1/reservations/${r.json.id}`, { key: host.key, body: { status: 'CANCELED' } });
    assert.equal(cancelled.status, 200, cancelled.body);
    await page.goto(`${base}/console`);
    assert.equal(await page.locator('#declined').count(), 0);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { haveChromium, launchBrowser, PASSWORD, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestAppWithWorker, dbKind, eventually, startReceiver, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

describe(`host console in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let host: Tenant;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    t = await createTestAppWithWorker();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    rx = await startReceiver();
    host = await tenant(t, { name: 'Harbour Stays' });
    await withPassword(t, host);
  });
  after(async () => {
    await browser?.close();
    await rx?.close();
    await t?.close();
  });

  const newPage = async (javaScriptEnabled = true): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
    return { context, page: await context.newPage() };
  };

  it('refuses a wrong password with a message, then signs the host in', async () => {
    const { context, page } = await newPage();
    await page.goto(`${base}/console`);
    assert.match(page.url(), /\/console\/sign-in\?next=/, 'the console sends a signed-out visitor to sign in');
    await snap(page, 'sign-in');
    await page.fill('#email', host.account.email);
    await page.fill('#password', 'not the password');
    const refused = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/sign-in')), page.click('button[type=submit]')]);
    assert.equal(refused[0].status(), 401);
    assert.match((await page.textContent('[role=alert]')) ?? '', /do not match an account/);
    assert.equal(await page.inputValue('#email'), host.account.email, 'the e-mail is kept');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/console`), page.click('button[type=submit]')]);
    assert.equal(await page.textContent('h1'), 'Waiting for your decision');
    const cookie = (await context.cookies()).find((c) => c.name === 'gs_session');
    assert.ok(cookie?.httpOnly && cookie.sameSite === 'Lax', 'the session cookie is HttpOnly and SameSite');
    await context.close();
  });

  it('keeps a guest the screening declined out of the queue, says why on the reservation, and approving sends the signed screening webhook', async () => {
    await call(t, 'POST', '/v1/accounts/webhooks', { key: host.key, body: { webhook_key: 'screening_webhook_url', webhook_url: `${rx.url}/screening` } });
    await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { email: 'moritz.fake@example.net', reason: 'left without paying' } });
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const flagged = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: host.key,
      body: { check_in_date: day(3), check_out_date: day(6), listing_nickname: 'Quay Loft', guest: { first_name: 'Moritz', last_name: 'Fake', email: 'moritz.fake@example.net' } },
    });
    assert.equal(flagged.status, 200, flagged.body);
    const id = flagged.json.id as string;

    const { context, page } = await newPage(false);
    await signIn(page, base, host.account.email);
    const who = (await page.textContent('header .who')) ?? '';
    assert.doesNotMatch(who, /^(.+) · \1$/, `the header names the person and the account, not the account twice: ${who}`);
    // Declined by the screening, the guest is decided: not waiting in the queue, found among the reservations.
    assert.equal(await page.locator(`tr[data-reservation="${id}"]`).count(), 0);
    assert.match((await page.textContent('.legend')) ?? '', /Red: 1/, "the week's verdicts count the flagged guest once");
    assert.match((await page.textContent('#chart-desc')) ?? '', /: 1$/, 'and today has one reservation screened');
    await snap(page, 'queue');
    await page.goto(`${base}/console/reservations`);
    const row = page.locator(`tr[data-reservation="${id}"]`);
    assert.match((await row.textContent()) ?? '', /Moritz Fake.*Quay Loft.*Red · Declined.*blocklist/s);
    await row.locator('a').first().click();
    assert.equal(await page.textContent('h1'), 'Moritz Fake');
    assert.match((await page.textContent('#top-risks')) ?? '', /blocklist.*from Your blocklist/s, 'each risk names the check behind it');
    assert.match((await page.textContent('#check-blacklist')) ?? '', /FAIL/);
    await snap(page, 'reservation');

    await page.fill('#decision-why', 'called him, a namesake');
    await Promise.all([page.waitForURL(/done=approve/), page.click('#approve')]);
    assert.match((await page.textContent('[role=status]')) ?? '', /^Approved \(called him, a namesake\)\. Your screening webhook at 127\.0\.0\.1:\d+ is being sent the decision\.$/);
    assert.match((await page.textContent('#verdict-h')) ?? '', /Green · Verified/);
    assert.match((await page.textContent('#notes')) ?? '', /Manually approved by Harbour Stays/);
    const got = await eventually(async () => rx.received.find((r) => r.url === '/screening' && r.body.includes(id) && r.body.includes('"supervised":"approve"')), 'the screening webhook');
    const secret = (await call(t, 'GET', '/v1/accounts/webhooks', { key: host.key })).json.signing_secret as string;
    const body = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as Record<string, unknown>;
    assert.equal(body.status, 'verified');
    assert.equal(body.supervised_reason, 'called him, a namesake', 'the reason travels with the decision');
    await page.goto(`${base}/console`);
    assert.equal(await page.locator(`tr[data-reservation="${id}"]`).count(), 0, 'a decided guest leaves the queue');
    await context.close();
  });

  it('puts the most urgent guests first (red and orange, by check-in), with pending red and orange ones, without declined guests or ended stays, and filters by colour', async () => {
    const hostB = await tenant(t, { name: 'Urgent Stays' });
    await withPassword(t, hostB);
    await call(t, 'POST', '/v1/blocklist', { key: hostB.key, body: { email: 'banned@example.net', reason: 'damage' } });
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const book = async (name: string, q: string, from: number, to: number, extra: object = {}) => {
      const [first_name, last_name] = name.split(' ');
      const r = await call(t, 'POST', `/v1/reservations?sync=1${q}`, {
        key: hostB.key,
        body: { check_in_date: day(from), check_out_date: day(to), guest: { first_name, last_name, email: `${first_name!.toLowerCase()}@example.org` }, ...extra },
      });
      assert.equal(r.status, 200, r.body);
      return r.json.id as string;
    };
    // A document that expires during the stay makes the verdict orange.
    const expiring = (n: number) => ({ identification: { document_number: `X${n}`, expiry_date: day(n), birth_date: '1990-01-01' } });
    const orangeSoon = await book('Olga Soon', '&skip_gp=1', 2, 5, expiring(3));
    const orangeLater = await book('Otto Later', '', 30, 33, expiring(31)); // pending: the portal is not finished
    const greenSoon = await book('Gina Soon', '', 3, 5);
    await book('Gary Later', '', 30, 32); // green and pending, a month away: not yet
    await book('Ended Stay', '&skip_gp=1', -10, -5, expiring(-7)); // the stay is over
    const red = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: hostB.key,
      body: { check_in_date: day(20), check_out_date: day(22), guest: { first_name: 'Rex', last_name: 'Banned', email: 'banned@example.net' } },
    });

    // A guest the screening declined (a rule of the host's) is decided: not waiting.
    await call(t, 'POST', '/v1/rules', { key: hostB.key, body: { name: 'No parties', expression: 'reservation.number_of_guests > 10', action: 'decline' } });
    const declined = await book('Party Crowd', '', 4, 6, { number_of_guests: 14 });

    const { context, page } = await newPage(false);
    await signIn(page, base, hostB.account.email);
    const order = await page.$$eval('[aria-labelledby=queue-h] tr[data-reservation]', (rows) => rows.map((r) => r.getAttribute('data-reservation')));
    // Guests the screening declined (the blocklisted one, the host's rule) are decided: not waiting for a decision,
    // but the booking still stands, so they are listed apart as the host's to deal with.
    assert.ok(!order.includes(declined) && !order.includes(red.json.id), 'a declined guest is not waiting');
    const toDealWith = await page.$$eval('#declined tr[data-reservation]', (rows) => rows.map((r) => r.getAttribute('data-reservation')));
    assert.deepEqual(toDealWith.sort(), [declined, red.json.id].sort());
    assert.deepEqual(order, [orangeSoon, orangeLater, greenSoon]);
    const chips = (await page.textContent('nav.chips')) ?? '';
    assert.match(chips, /All \(3\).*Red \(0\).*Orange \(2\).*Yellow \(0\).*Green \(1\)/s);
    await snap(page, 'queue-by-colour');
    await Promise.all([page.waitForURL(/color=orange/), page.click('nav.chips a:has-text("Orange")')]);
    assert.deepEqual(await page.$$eval('[aria-labelledby=queue-h] tr[data-reservation]', (rows) => rows.map((r) => r.getAttribute('data-reservation'))), [orangeSoon, orangeLater]);
    assert.equal(await page.textContent('#queue-h'), '2 waiting');
    // The reservations page filters by colour too.
    await page.goto(`${base}/console/reservations?risk_color=red`);
    assert.ok((await page.$$eval('tr[data-reservation]', (rows) => rows.map((r) => r.getAttribute('data-reservation')))).includes(red.json.id));
    // With no mail server set up, the invitation went to the outbox, and the page says it reached nobody.
    await eventually(async () => {
      await page.goto(`${base}/console/reservations/${greenSoon}`);
      return /written to the outbox, as no mail server is set up/.test((await page.textContent('#messages-h + *')) ?? '');
    }, 'the invitation shown as written to the outbox');
    await context.close();
  });

  it('asks before declining, keeps the reason, and says truthfully that no system was told when no webhook is set', async () => {
    const quiet = await tenant(t, { name: 'Quiet Stays' });
    await withPassword(t, quiet);
    const { id } = (await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: quiet.key, body: { guest: { first_name: 'Dora', last_name: 'Deny' } } })).json;
    // A charge on a card from GB billed to Italy: the payments panel and the checks say the same.
    const charge = {
      event_source: 'stripe',
      event_id: 'ch_dora',
      event_type: 'charge',
      event_status: 'succeeded',
      amount: 120,
      currency: 'EUR',
      card_provider: 'visa',
      card_country: 'GB',
      billing_country_code: 'IT',
    };
    assert.equal((await call(t, 'POST', `/v1/reservations/${id}/payment-event`, { key: quiet.key, body: charge })).status, 200);
    await eventually(async () => /GB/.test((await call(t, 'GET', `/v1/reservations/${id}/status`, { key: quiet.key })).json.reason ?? ''), 'screened again with the charge');
    const { context, page } = await newPage(false);
    await signIn(page, base, quiet.account.email);
    await page.goto(`${base}/console/reservations/${id}`);
    assert.equal(await page.textContent('#cards-seen'), 'visa from GB');
    assert.match((await page.textContent('#check-payment_verification')) ?? '', /Card issued in GB but billing country is IT/);
    assert.match((await page.textContent('#check-general_risk')) ?? '', /Overall risk.*Card issued in GB but billing country is IT/s, 'the overall risk names what weighed');
    await page.fill('#decision-why', 'party at the last stay');
    await page.click('#decline');
    assert.equal(await page.textContent('h1'), 'Decline Dora Deny?');
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}/status`, { key: quiet.key })).json.supervised, null, 'nothing is decided before the confirmation');
    assert.match((await page.textContent('main')) ?? '', /No screening webhook is set up, so no other system is told/);
    assert.equal(await page.inputValue('#decision-why'), 'party at the last stay', 'the reason is kept');
    await snap(page, 'decline-confirm');
    await Promise.all([page.waitForURL(/done=decline/), page.click('#confirm-decline')]);
    assert.equal(await page.textContent('[role=status]'), 'Declined (party at the last stay). No screening webhook is set up, so no other system was told; Webhooks sets one up.');
    assert.match((await page.textContent('#notes')) ?? '', /Manually declined by Quiet Stays: party at the last stay/);
    const status = (await call(t, 'GET', `/v1/reservations/${id}/status`, { key: quiet.key })).json;
    assert.deepEqual([status.supervised, status.supervised_reason], ['decline', 'party at the last stay']);
    await context.close();
  });

  it('refuses a forged CSRF token and a stale session, and says so', async () => {
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: host.key, body: { guest: { first_name: 'Ana', last_name: 'Lima' } } })).json;
    const { context, page } = await newPage();
    await signIn(page, base, host.account.email);
    await page.goto(`${base}/console/reservations/${id}`);
    await page.evaluate(() => document.querySelectorAll<HTMLInputElement>('input[name=_csrf]').forEach((i) => (i.value = 'forged')));
    const forged = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/decision')), page.click('#decline')]);
    assert.equal(forged[0].status(), 403);
    assert.match((await page.textContent('[role=alert]')) ?? '', /did not come from this console/);
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}/status`, { key: host.key })).json.supervised, null, 'nothing was decided');

    const stale = (await context.cookies()).filter((c) => c.name === 'gs_session');
    await page.goto(`${base}/console`);
    await Promise.all([page.waitForURL(/signed_out=1/), page.click('header form button')]);
    await context.addCookies(stale);
    await page.goto(`${base}/console/reservations/${id}`);
    assert.match(page.url(), /\/console\/sign-in\?next=.*&ended=1/);
    assert.match((await page.textContent('[role=status]')) ?? '', /Your session has ended/);
    await context.addCookies(stale); // the visit above cleared it, as a browser would
    const post = await context.request.post(`${base}/console/reservations/${id}/screen`, { form: { _csrf: 'x' }, maxRedirects: 0 });
    assert.equal(post.status(), 401);
    assert.match(await post.text(), /Your session has ended/);
    await context.close();
  });

  it("answers 404 for another tenant's reservation", async () => {
    const other = await tenant(t);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: other.key, body: { guest: { first_name: 'Not', last_name: 'Yours' } } })).json;
    const { context, page } = await newPage();
    await signIn(page, base, host.account.email);
    const res = await page.goto(`${base}/console/reservations/${id}`);
    assert.equal(res?.status(), 404);
    assert.match((await page.textContent('[role=alert]')) ?? '', new RegExp(`reservation ${id} not found`));
    const post = await page.request.post(`${base}/console/reservations/${id}/decision`, { form: { supervised: 'approve', _csrf: 'x' }, maxRedirects: 0 });
    assert.ok([403, 404].includes(post.status()));
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}/status`, { key: other.key })).json.supervised, null);
    await context.close();
  });

  it('locks an e-mail after repeated wrong passwords, even for the right one', async () => {
    const victim = await tenant(t);
    await withPassword(t, victim);
    const { context, page } = await newPage(false);
    for (let i = 0; i < 5; i++) await signIn(page, base, victim.account.email, `wrong ${i}`);
    await signIn(page, base, victim.account.email);
    assert.match((await page.textContent('[role=alert]')) ?? '', /Too many failed sign-ins\. Try again in 15 minutes/);
    assert.match(page.url(), /\/console\/sign-in$/);
    await context.close();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { haveChromium, launchBrowser, PASSWORD, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestAppWithWorker, dbKind, eventually, linkInNewMail, mailSince, startReceiver, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

/** A host's team, worked through as its people would: invited, enrolled, deciding, and removed. */
describe(`a team in the console, in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let host: Tenant;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let owner: { context: BrowserContext; page: Page };
  let colleague: { context: BrowserContext; page: Page };
  let secret = '';
  const ana = { email: 'ana.ruiz@example.org', name: 'Ana Ruiz', password: 'ana ruiz passphrase' };

  const newPage = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    return { context, page: await context.newPage() };
  };
  const submit = (page: Page, selector: string) => Promise.all([page.waitForLoadState(), page.click(selector)]);
  /** The code Ana's authenticator app shows `ahead` steps of 30 s from now. */
  const code = (ahead = 0) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + ahead * 30_000 });

  before(async () => {
    t = await createTestAppWithWorker();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    rx = await startReceiver();
    host = await tenant(t, { name: 'Harbour Stays' });
    await withPassword(t, host);
    await call(t, 'POST', '/v1/accounts/webhooks', { key: host.key, body: { webhook_key: 'screening_webhook_url', webhook_url: `${rx.url}/screening` } });
    owner = await newPage();
    colleague = await newPage();
    await signIn(owner.page, base, host.account.email);
  });
  after(async () => {
    await browser?.close();
    await rx?.close();
    await t?.close();
  });

  it('invites a colleague by e-mail, who sets a name and password from the link and signs in', async () => {
    const { page } = owner;
    const since = mailSince(t);
    await page.goto(`${base}/console/people`);
    await page.fill('#invite-email', ana.email);
    await page.check('input[name=role][value=reviewer]');
    await submit(page, '#invite button[type=submit]');
    // No mail server here: the owner is told where the e-mail went, and given the link to pass on.
    const notice = (await page.textContent('#link-sent')) ?? '';
    assert.match(notice, /The invitation was not e-mailed: no mail server is set up \(GUESTSCREEN_SMTP_URL\), so the e-mail was saved as .*outbox.*\.eml\./);
    assert.match(notice, new RegExp(`Pass this link on to ${ana.email} yourself; it works once, for 7 days`));
    assert.match((await page.textContent(`tr[data-email="${ana.email}"]`)) ?? '', /Reviewer.*Invited/s);
    await snap(page, 'people');

    const token = linkInNewMail(t, since, 'invitation');
    assert.ok(token, 'the invitation is in the outbox');
    assert.equal(await page.textContent('#the-link'), `${t.deps.config.publicUrl}/console/invitation/${token}`, 'the link shown is the one e-mailed');
    const { page: hers } = colleague;
    await hers.goto(`${base}/console/invitation/${token}`);
    assert.equal(await hers.inputValue('#email'), ana.email);
    await snap(hers, 'invitation');
    await hers.fill('#name', ana.name);
    await hers.fill('#password', ana.password);
    await hers.fill('#confirm', 'a different passphrase');
    await submit(hers, 'button[type=submit]');
    assert.match((await hers.textContent('[role=alert]')) ?? '', /not the same/, 'a mistyped confirmation is said on the form');
    await hers.fill('#password', ana.password);
    await hers.fill('#confirm', ana.password);
    await Promise.all([hers.waitForURL(/\/console\/sign-in\?joined=1/), hers.click('button[type=submit]')]);

    await hers.goto(`${base}/console/invitation/${token}`);
    assert.match((await hers.textContent('main')) ?? '', /used already/, 'the link works once');
    // She forgets it: her owner asks for a reset link, and is given it to pass on.
    await page.goto(`${base}/console/people`);
    await submit(page, `tr[data-email="${ana.email}"] button:has-text("Reset password")`);
    assert.match((await page.textContent('#link-sent')) ?? '', /The password reset link was not e-mailed: .*it works once, for 60 minutes/s);
    const reset = (await page.textContent('#the-link')) ?? '';
    assert.match(reset, /\/console\/reset\/gst_/);
    await hers.goto(reset.replace(t.deps.config.publicUrl, base));
    assert.equal(await hers.locator('#password').count(), 1, 'the link opens the form for a new password');

    await signIn(hers, base, ana.email, ana.password);
    assert.equal(await hers.textContent('h1'), 'Waiting for your decision');
    assert.equal(await hers.locator('nav a[href="/console/people"]').count(), 0, 'a reviewer is not shown the people page');

    // A reviewer decides on guests; rules, settings and screening again are a manager's. She is
    // shown no button that would end on a 403, and a form she may not send says who may.
    await call(t, 'POST', '/v1/rules', { key: host.key, body: { name: 'Parties', expression: 'reservation.number_of_guests > 10', action: 'review' } });
    const booking = await call(t, 'POST', '/v1/reservations?sync=1', { key: host.key, body: { guest: { first_name: 'Rosa', last_name: 'Quiet', email: 'rosa.quiet@example.net' } } });
    await hers.goto(`${base}/console/rules`);
    assert.equal(await hers.locator('button', { hasText: 'Disable' }).count(), 0, 'no Disable button');
    assert.match((await hers.textContent('.needs-role')) ?? '', /needs the manager role or higher; you are reviewer/);
    assert.ok(await hers.locator('#r_name').isDisabled(), 'the new-rule form is shown disabled');
    await snap(hers, 'rules-reviewer');
    await hers.goto(`${base}/console/settings`);
    assert.ok(await hers.locator('button', { hasText: 'Save' }).first().isDisabled(), "Settings' Save is disabled");
    await hers.goto(`${base}/console/reservations/${booking.json.id}`);
    assert.equal(await hers.locator('#screen').count(), 0, 'no Screen again');
    assert.ok(await hers.locator('#note').isEnabled(), 'a note she may add');
  });

  it('enrols two-factor sign-in with the QR code or the key, shows ten recovery codes once, and asks for a code at the next sign-in', async () => {
    const { page } = colleague;
    await page.goto(`${base}/console/me`);
    await snap(page, 'me');
    await submit(page, 'a[href="/console/two-factor"]');
    assert.ok(await page.locator('figure.qr svg').count(), 'the QR code is drawn on the page');
    secret = ((await page.textContent('#totp-secret')) ?? '').replace(/\s+/g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await snap(page, 'two-factor');
    await page.fill('#code', '000000' === code() ? '111111' : '000000');
    await submit(page, 'form[action="/console/two-factor"] button');
    assert.match((await page.textContent('[role=alert]')) ?? '', /code/i, 'a wrong code is refused on the form');
    await page.fill('#code', code());
    await submit(page, 'form[action="/console/two-factor"] button');
    assert.equal(await page.locator('#recovery-codes li').count(), 10);
    await snap(page, 'recovery-codes');
    await submit(page, 'text=I have kept them');

    await submit(page, 'form[action="/console/sign-out"] button');
    await signIn(page, base, ana.email, ana.password);
    assert.match(page.url(), /\/console\/sign-in\/code/, 'the password alone is not enough now');
    await snap(page, 'sign-in-code');
    // The code of the next time step: the one just used to enrol is refused a second time.
    await page.fill('#code', code(1));
    await Promise.all([page.waitForURL(`${base}/console`), page.click('form[action="/console/sign-in/code"] button[type=submit]')]);
  });

  it('approves a flagged guest: the screening webhook and the reservation page name her', async () => {
    await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { email: 'moritz.fake@example.net', reason: 'left without paying' } });
    const flagged = await call(t, 'POST', '/v1/reservations?sync=1', { key: host.key, body: { guest: { first_name: 'Moritz', last_name: 'Fake', email: 'moritz.fake@example.net' } } });
    assert.equal(flagged.status, 200, flagged.body);
    const id = flagged.json.id as string;
    const { page } = colleague;
    // Declined by the screening (the blocklist), he is not waiting in the queue: she opens him from Reservations.
    await page.goto(`${base}/console/reservations`);
    await submit(page, `tr[data-reservation="${id}"] a`);
    await page.fill('#decision-why', 'called him, a namesake');
    await Promise.all([page.waitForURL(/done=approve/), page.click('#approve')]);
    assert.match((await page.textContent('#decided-by')) ?? '', /^Approved by Ana Ruiz, (just now|\d+ minutes? ago): “?called him, a namesake/);

    const got = await eventually(async () => rx.received.find((r) => r.url === '/screening' && r.body.includes(id) && r.body.includes('"supervised":"approve"')), 'the screening webhook');
    const signing = (await call(t, 'GET', '/v1/accounts/webhooks', { key: host.key })).json.signing_secret as string;
    const body = new Webhook(signing).verify(got.body, got.headers as Record<string, string>) as { decided_by?: { type: string; id: string; name: string } };
    assert.equal(body.decided_by?.type, 'user');
    assert.equal(body.decided_by?.name, ana.name);
    assert.match(body.decided_by?.id ?? '', /^usr_/);

    await owner.page.goto(`${base}/console/audit`);
    const line = owner.page.locator('#audit tr', { hasText: 'Ana Ruiz' }).first();
    assert.match((await line.textContent()) ?? '', /reservation\.approved|approved/i, 'the owner sees who decided in the audit');
    await snap(owner.page, 'audit');
  });

  it('makes a named key shown once, which the API then takes', async () => {
    const { page } = owner;
    await page.goto(`${base}/console/keys`);
    await page.fill('#key-name', 'Channel manager sync');
    await page.check('input[name=read_only]');
    await submit(page, '#create-key button[type=submit]');
    const key = ((await page.textContent('#new-key code')) ?? '').trim();
    assert.ok(key.length > 20);
    await snap(page, 'keys');
    assert.equal((await call(t, 'GET', '/v1/reservations', { key })).status, 200, 'the key reads');
    const refused = await call(t, 'POST', '/v1/blocklist', { key, body: { email: 'x@example.org' } });
    assert.equal(refused.status, 403, 'a read-only key changes nothing');
    await page.goto(`${base}/console/keys`);
    assert.equal(await page.locator('#new-key').count(), 0, 'the key is not shown again');
    assert.match((await page.textContent('#keys')) ?? '', /Channel manager sync.*Read only/s);
  });

  it("removes the colleague: her open session ends at once, and the owner's stays", async () => {
    const { page } = owner;
    await page.goto(`${base}/console/people`);
    await Promise.all([page.waitForURL(/done=removed/), page.locator(`tr[data-email="${ana.email}"] button`, { hasText: 'Remove' }).click()]);
    assert.equal(await page.locator(`tr[data-email="${ana.email}"]`).count(), 0);
    await colleague.page.goto(`${base}/console`);
    assert.match(colleague.page.url(), /\/console\/sign-in/, 'her next page asks her to sign in');
    await signIn(colleague.page, base, ana.email, ana.password);
    assert.match((await colleague.page.textContent('[role=alert]')) ?? '', /do not match an account/, 'and she cannot sign in again');
  });

  it('resets a forgotten password from the e-mailed link, once, ending the sessions signed in with the old one', async () => {
    const { page } = await newPage();
    await page.goto(`${base}/console/sign-in`);
    await submit(page, 'a[href="/console/forgot"]');
    await snap(page, 'forgot');
    const since = mailSince(t);
    await page.fill('#email', host.account.email);
    await submit(page, 'button[type=submit]');
    // No mail server here: the page says the link was not e-mailed, and who can pass one on.
    assert.match((await page.textContent('main')) ?? '', /no mail server set up, so no e-mail can reach .*saved in the service's outbox instead\. Ask an owner of your account/s);
    await snap(page, 'forgot-no-mail');
    const token = await eventually(async () => linkInNewMail(t, since, 'reset'), 'the reset e-mail');
    await page.goto(`${base}/console/reset/${token}`);
    await snap(page, 'reset');
    await page.fill('#password', 'a brand new passphrase');
    await page.fill('#confirm', 'a brand new passphrase');
    await submit(page, 'button[type=submit]');
    assert.match((await page.textContent('main')) ?? '', /Your new password is set/);

    await owner.page.goto(`${base}/console`);
    assert.match(owner.page.url(), /\/console\/sign-in/, 'the session signed in with the old password has ended');
    await signIn(page, base, host.account.email, PASSWORD);
    assert.match((await page.textContent('[role=alert]')) ?? '', /do not match an account/);
    await signIn(page, base, host.account.email, 'a brand new passphrase');
    assert.equal(await page.textContent('h1'), 'Waiting for your decision');
  });
});

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../../test/browser.js';
import { call, createTestAppWithWorker, dbKind, eventually, startReceiver, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { loadBundledLists } from '../../providers/sanctions/bundled.js';

/** A host's own tools and a reseller's accounts, worked through as a host would, with JavaScript on. */
describe(`host console tools in a real browser (${dbKind})`, { skip: haveChromium ? false : 'Chromium not installed (.ci/run installs it)' }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let host: Tenant;
  let page: Page;

  before(async () => {
    t = await createTestAppWithWorker();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    host = await tenant(t, { name: 'Cliffside Rentals' });
    await withPassword(t, host);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await signIn(page, base, host.account.email);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const submit = (selector: string) => Promise.all([page.waitForLoadState(), page.click(selector)]);

  it('adds, edits and removes a blocklist entry, and imports a CSV with a line it skips', async () => {
    await page.goto(`${base}/console/blocklist`);
    await page.fill('#b_email', 'left.owing@example.org');
    await page.fill('#b_reason', 'unpaid damage');
    await Promise.all([page.waitForURL(/done=added/), page.click('form[action="/console/blocklist"] button[type=submit]')]);
    const row = page.locator('tr', { hasText: 'left.owing@example.org' });
    assert.match((await row.textContent()) ?? '', /unpaid damage/);
    const listed = (await call(t, 'GET', '/v1/blocklist', { key: host.key })).json;
    assert.equal(listed.total, 1, 'the API sees what the console added');

    await Promise.all([page.waitForLoadState(), row.locator('a').first().click()]);
    await page.fill('#b_reason', 'unpaid damage, twice');
    await Promise.all([page.waitForURL(/done=saved/), page.click('main form button[type=submit]')]);
    assert.match((await page.locator('tr', { hasText: 'left.owing@example.org' }).textContent()) ?? '', /twice/);

    const csv = path.join(t.deps.config.dataDir, 'blocklist.csv');
    writeFileSync(csv, 'name,email,phone,document_number,reason\nIvo Brand,ivo@example.org,,,fake documents\nno one,,,,\nLena Stark,,+44 20 7946 0000,,party\n');
    await page.setInputFiles('#csv', csv);
    await page.click('form[action="/console/blocklist/import"] button[type=submit]');
    const result = await page.waitForSelector('#import-result');
    assert.match((await result.textContent()) ?? '', /2 entries added, 1 row skipped:.*line 3/s);
    await snap(page, 'blocklist');

    await page.goto(`${base}/console/blocklist`);
    await Promise.all([page.waitForURL(/done=removed/), page.locator('tr', { hasText: 'left.owing@example.org' }).locator('button', { hasText: 'Remove' }).click()]);
    assert.equal(await page.locator('tr', { hasText: 'left.owing@example.org' }).count(), 0);
    assert.equal((await call(t, 'GET', '/v1/blocklist', { key: host.key })).json.total, 2);
  });

  it('builds a rule without typing CEL, tries it on past bookings, saves it, and it fires on the next booking', async () => {
    for (const guest of [
      { first_name: 'Big', last_name: 'Party', email: 'p@example.com' },
      { first_name: 'Quiet', last_name: 'Couple', email: 'q@example.com' },
    ]) {
      const r = await call(t, 'POST', '/v1/reservations?sync=1', { key: host.key, body: { guest, number_of_guests: guest.first_name === 'Big' ? 12 : 2 } });
      assert.equal(r.status, 200, r.body);
    }
    await page.goto(`${base}/console/rules`);
    // CEL asked for on the empty form opens an empty editor, not a complaint about missing conditions.
    await submit('#to-cel');
    assert.equal(await page.locator('.error').count(), 0, 'no problem is said');
    assert.equal(await page.inputValue('textarea[name=expression]'), '');
    await page.goto(`${base}/console/rules`);
    await page.fill('#r_name', 'Large groups');
    await page.selectOption('#c0_field', 'reservation.number_of_guests');
    await page.selectOption('#c0_op', '>');
    await page.fill('#c0_value', 'eight');
    await submit('#dry-run');
    assert.match((await page.textContent('#r_problem')) ?? '', /number of guests is compared with a number; “eight” is not one/);
    assert.equal(await page.inputValue('#r_name'), 'Large groups', 'what the host wrote is kept');
    await page.fill('#c0_value', '8');
    await submit('#dry-run');
    assert.equal(await page.textContent('#r_cel code'), 'reservation.number_of_guests > 8', 'the builder shows the CEL it wrote');
    const dry = (await page.textContent('#dry-run-result')) ?? '';
    assert.match(dry, /It holds for 1;/);
    assert.match(dry, /Big Party/);
    assert.doesNotMatch(dry, /Quiet Couple/);
    await snap(page, 'rules');
    await Promise.all([page.waitForURL(/done=created/), page.click('button[name=intent][value=save]')]);
    const rules = (await call(t, 'GET', '/v1/rules', { key: host.key })).json;
    const saved = (Array.isArray(rules) ? rules : rules.items)[0];
    assert.equal(saved.expression, 'reservation.number_of_guests > 8');
    assert.equal(saved.enabled, true);
    const audit = (await call(t, 'GET', '/v1/audit?action=rules.', { key: host.key })).json;
    assert.deepEqual(
      audit.items.map((l: { action: string }) => l.action),
      ['rules.created'],
      'the tries leave no line in the audit, the save one',
    );
    assert.equal(audit.items[0].subject_id, saved.id, 'the line names the rule it made');
    await page.goto(`${base}/console/audit?action=rules.created`);
    assert.match((await page.textContent('td[data-label="On"]')) ?? '', /Large groups/, 'the log shows the rule by its name');
    const next = await call(t, 'POST', '/v1/reservations?sync=1', { key: host.key, body: { guest: { first_name: 'Next', last_name: 'Crowd', email: 'n@example.com' }, number_of_guests: 10 } });
    const status = (await call(t, 'GET', `/v1/reservations/${next.json.id}/status`, { key: host.key })).json;
    assert.ok(
      status.business_rules.some((r: { name?: string } | string) => (typeof r === 'string' ? r : r.name) === 'Large groups'),
      `the rule fires on the next booking: ${JSON.stringify(status.business_rules)}`,
    );

    // The saved rule opens in the builder; CEL by hand says the field it meant when it misspells one.
    await Promise.all([page.waitForLoadState(), page.locator('a', { hasText: 'Large groups' }).click()]);
    assert.equal(await page.inputValue('#c0_field'), 'reservation.number_of_guests');
    assert.equal(await page.inputValue('#c0_value'), '8');
    await submit('#to-cel');
    assert.equal(await page.inputValue('#r_expression'), 'reservation.number_of_guests > 8');
    await page.fill('#r_expression', 'reservation.number_of_gests > 8 | nights > 14');
    await submit('#dry-run');
    assert.match((await page.textContent('#r_problem')) ?? '', /write “\|\|” for or/);
    await page.fill('#r_expression', 'reservation.number_of_gests > 8');
    await submit('#dry-run');
    assert.match((await page.textContent('#r_problem')) ?? '', /“number_of_gests” is not a field a rule knows; did you mean reservation\.number_of_guests\?/);
    assert.equal(await page.getAttribute('#r_expression', 'aria-invalid'), 'true');
    await snap(page, 'rule-cel');
  });

  it('saves screening settings and guest portal screens, which the API then reports', async () => {
    await page.goto(`${base}/console/settings`);
    await page.selectOption('#s_tolerance', 'low');
    await page.fill('#s_age', '21');
    await page.uncheck('input[name=enabled_checks][value=social_verification]');
    await Promise.all([page.waitForURL(/done=screening/), page.click('form[action="/console/settings/screening"] button[type=submit]')]);
    const s = (await call(t, 'GET', '/v1/accounts/screening-settings', { key: host.key })).json;
    assert.equal(s.risk_tolerance, 'low');
    assert.equal(s.minimum_age, 21);
    assert.ok(s.disabled_checks.includes('social_verification'));
    assert.equal(await page.isChecked('input[name=enabled_checks][value=social_verification]'), false, 'the page shows what was saved');
    await page.fill('#s_age', '500');
    const refused = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/console/settings/screening')),
      page.evaluate(() => document.querySelector<HTMLFormElement>('form[action="/console/settings/screening"]')?.submit()),
    ]);
    assert.equal(refused[0].status(), 400, 'the server refuses what the browser would have refused');
    assert.match((await page.textContent('[role=alert]')) ?? '', /minimum_age/);
    await page.goto(`${base}/console/settings`);
    assert.match((await page.textContent('section[aria-labelledby=lists-h]')) ?? '', /No sanctions list is imported/);
  });

  it('registers a webhook, replaces its secret, and sends a delivery again from the log', async () => {
    const rx = await startReceiver();
    try {
      await page.goto(`${base}/console/webhooks`);
      // A URL the service will not send to: the problem is said on the form, and what was typed stays.
      await page.selectOption('#w_key', 'screening_webhook_url');
      await page.fill('#w_url', 'https://user:secret@example.com/hooks');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/console/webhooks') && r.request().method() === 'POST'),
        page.click('form[action="/console/webhooks"] button[type=submit]'),
      ]);
      assert.equal(refused.status(), 400);
      assert.match((await page.textContent('#w_problem')) ?? '', /^guestscreen cannot send webhooks to that URL: must not carry credentials \(user:password@\)\. Give the public address/);
      assert.equal(await page.inputValue('#w_url'), 'https://user:secret@example.com/hooks');
      assert.equal(await page.inputValue('#w_key'), 'screening_webhook_url');
      await snap(page, 'webhook-refused');
      await page.selectOption('#w_key', 'reservation_webhook_url');
      await page.fill('#w_url', `${rx.url}/reservations`);
      await Promise.all([page.waitForURL(/done=registered/), page.click('form[action="/console/webhooks"] button[type=submit]')]);
      assert.match((await page.textContent('tr[data-webhook=reservation_webhook_url]')) ?? '', /Reservations created and changed.*on/s);

      await call(t, 'POST', '/v1/reservations', { key: host.key, body: { guest: { first_name: 'Hook', last_name: 'Test' } } });
      await eventually(async () => rx.received.length > 0, 'the first delivery');
      await submit('#rotate');
      const secret = (await page.textContent('#new-secret')) ?? '';
      assert.match(secret, /^whsec_/);
      assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: host.key })).json.signing_secret, secret);

      await page.goto(`${base}/console/webhooks`);
      await eventually(async () => {
        await page.reload();
        return /delivered|succeeded/.test((await page.textContent('#deliveries')) ?? '');
      }, 'the delivery in the log');
      const before = rx.received.length;
      await Promise.all([page.waitForURL(/done=replayed/), page.locator('#deliveries button', { hasText: 'Send again' }).first().click()]);
      await eventually(async () => rx.received.length > before, 'the delivery sent again');
      await snap(page, 'webhooks');
    } finally {
      await rx.close();
    }
  });

  it('runs a background check to the end, follows it without reloading, and opens its PDF', async () => {
    await page.goto(`${base}/console/checks`);
    assert.match((await page.textContent('main')) ?? '', /Background checks are not set up on this guestscreen yet/, 'no list installed: the page says so instead of a form that fails');
    await loadBundledLists(t.deps);
    // Settings name the lists the screening reads, dated; the bundled OFAC SDN list of May 2024 is out of date.
    await page.goto(`${base}/console/settings`);
    assert.match((await page.textContent('#lists tr[data-source="OFAC SDN"]')) ?? '', /OFAC SDN.*3 May 2024.*\d+ days: out of date/s);
    assert.match((await page.textContent('[data-stale="OFAC SDN"]')) ?? '', /days old; this service warns after 30 days.*guestscreen data import sanctions sdn\.csv --aliases alt\.csv/s);
    await snap(page, 'settings');
    await page.goto(`${base}/console/checks`);
    await page.fill('#bg_first_name', 'Nicolas');
    await page.fill('#bg_last_name', 'Maduro Moros');
    await page.fill('#bg_year_of_birth', '1962');
    await Promise.all([page.waitForURL(/\/console\/checks\/background\/chk_/), page.click('form[action="/console/checks/background"] button[type=submit]')]);
    await page.waitForSelector('#pdf', { timeout: 20_000 });
    assert.match((await page.textContent('#check-status')) ?? '', /finished/);
    assert.match((await page.textContent('#report')) ?? '', /MADURO MOROS/i);
    const pdf = await page.request.get(`${page.url()}/pdf`);
    assert.equal(pdf.status(), 200);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');
    await snap(page, 'background-check');
    await page.goto(`${base}/console/checks`);
    assert.match((await page.textContent('table')) ?? '', /Nicolas Maduro Moros/);
    await snap(page, 'checks');
  });

  it("shows a possible sanctions match's listed entry whole beside the guest's document, and links to a background check filled in", async () => {
    // The lists were loaded by the test above.
    const r = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', {
      key: host.key,
      body: {
        check_in_date: '2027-06-01',
        check_out_date: '2027-06-03',
        guest: { first_name: 'Nicolas', last_name: 'Maduro Moros' },
        identification: { first_name: 'Nicolas', last_name: 'Maduro Moros', birth_date: '1962-11-23', nationality: 'VE', document_number: 'X1234567' },
      },
    });
    assert.equal(r.status, 200, r.body);
    await page.goto(`${base}/console/reservations/${r.json.id}`);
    const entries = (await page.textContent('section[aria-labelledby=entries-h]')) ?? '';
    assert.match(entries, /MADURO MOROS, Nicolas/);
    assert.match(entries, /List\s*OFAC SDN, \d+ \w+ \d{4} \(entry \d+\)/);
    assert.match(entries, /Born\s*23 November 1962/);
    assert.match(entries, /Countries\s*.*Venezuela/);
    assert.match(entries, /Programmes\s*.*VENEZUELA/);
    assert.match(entries, /The guest's document\s*Name\s*Nicolas Maduro Moros\s*Born\s*23 November 1962/);
    assert.match(entries, /Probable match\s*The guest's date of birth, year of birth or document number agrees with the list's/);
    await snap(page, 'reservation-listed-entry');
    // The name alone: a possible match, which asks for the guest's date of birth.
    const named = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', {
      key: host.key,
      body: { check_in_date: '2027-06-01', check_out_date: '2027-06-03', guest: { first_name: 'Nicolas', last_name: 'Maduro Moros' } },
    });
    const summary = (await call(t, 'GET', `/v1/reservations/${named.json.id}/summary`, { key: host.key })).json;
    assert.equal(summary.risk_color, 'orange', 'a name alone needs review, it does not decline');
    assert.match(summary.top_risks[0], /^Possible match: the guest's name is the same as “MADURO MOROS, Nicolas” on OFAC SDN, with no date of birth from the guest to compare/);
    await page.goto(`${base}/console/reservations/${named.json.id}`);
    assert.match((await page.textContent('section[aria-labelledby=entries-h]')) ?? '', /Possible match\s*The name alone, with no date of birth on both sides to compare/);
    assert.match((await page.textContent('main')) ?? '', /Ask the guest for their date of birth/);
    await snap(page, 'reservation-possible-match');
    await page.goto(`${base}/console/reservations/${r.json.id}`);
    await Promise.all([page.waitForURL(/\/console\/checks\?/), page.click('#background-check')]);
    assert.equal(await page.inputValue('#bg_first_name'), 'Nicolas');
    assert.equal(await page.inputValue('#bg_last_name'), 'Maduro Moros');
    assert.equal(await page.inputValue('#bg_year_of_birth'), '1962');
    assert.equal(await page.inputValue('#bg_country'), 'VE');
    // Ordered from the booking: it runs to the end, links back, and the booking's page lists it.
    assert.match((await page.textContent('#from-booking')) ?? '', /listed on its page/);
    await Promise.all([page.waitForURL(/\/console\/checks\/background\/chk_/), page.click('form[action="/console/checks/background"] button[type=submit]')]);
    await page.waitForSelector('#pdf', { timeout: 20_000 });
    assert.match((await page.textContent('#check-status')) ?? '', /finished/);
    await Promise.all([page.waitForURL(new RegExp(`/console/reservations/${r.json.id}$`)), page.click('#booking')]);
    const ordered = (await page.textContent('#ordered-checks')) ?? '';
    assert.match(ordered, /Background check: Nicolas Maduro Moros\s*started .*, finished: found something/);
    await snap(page, 'reservation-ordered-check');
    const check = /\/console\/checks\/background\/(chk_\w+)$/.exec((await page.getAttribute('#ordered-checks a', 'href')) ?? '')?.[1];
    assert.ok(check, 'the booking links to the check');
    await Promise.all([page.waitForURL(/\/console\/checks\?.*reservation_id=/), page.click('#news-search')]);
    assert.match(page.url(), /#adverse-media-h$/, 'the news search, below the background check');
    assert.ok(await page.isVisible('#from-booking'));
    // Erasing the guest's records erases what was ordered about them.
    assert.equal((await call(t, 'DELETE', `/v1/reservations/${r.json.id}`, { key: host.key })).status, 200);
    assert.equal((await call(t, 'GET', `/v1/background-check/results/${check}`, { key: host.key })).status, 404);
  });

  it('dismisses a possible sanctions match as a different person from the reservation page, with a note that names who did', async () => {
    const other = await tenant(t, { name: 'Lagoon Flats' });
    await withPassword(t, other);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    await signIn(p, base, other.account.email);
    const r = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', {
      key: other.key,
      body: { check_in_date: '2027-07-01', check_out_date: '2027-07-03', guest: { first_name: 'Nicolas', last_name: 'Maduro Moros' } },
    });
    await p.goto(`${base}/console/reservations/${r.json.id}`);
    // The name is on more than one list: each entry is set aside on its own.
    const listed = await p.$$eval('section[aria-labelledby=entries-h] article[data-match=possible]', (articles) => articles.map((a) => a.getAttribute('data-entry')));
    assert.ok(listed.length >= 1);
    for (const id of listed) {
      await p.goto(`${base}/console/reservations/${r.json.id}`);
      const entry = p.locator(`article[data-entry="${id}"]`);
      await entry.locator('input[name=reason]').fill('born 1991, per the passport');
      await Promise.all([p.waitForURL(/done=dismissed/), entry.locator('button', { hasText: 'A different person' }).click()]);
      assert.match((await p.textContent('[role=status]')) ?? '', /Dismissed as a different person/);
    }
    assert.match((await p.textContent('#notes')) ?? '', /Dismissed the possible match with OFAC SDN entry \d+ as a different person: born 1991, per the passport/);
    assert.match((await p.textContent('#notes')) ?? '', /Lagoon Flats/, 'the note names the person who dismissed it');
    await eventually(async () => {
      const summary = (await call(t, 'GET', `/v1/reservations/${r.json.id}/summary`, { key: other.key })).json;
      return summary.details.sanctions.status === 'PASS';
    }, 'the sanctions check passing without the dismissed match');
    await context.close();
  });

  it('lets a reseller create an account whose key works, suspend it, and make a signup link', async () => {
    const reseller = await tenant(t, { reseller: true, name: 'Coastline Group' });
    await withPassword(t, reseller);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    await signIn(p, base, reseller.account.email);
    await Promise.all([p.waitForLoadState(), p.click('nav a[href="/console/accounts"]')]);
    await p.fill('#a_name', 'Dune Cottages');
    await p.fill('#a_email', 'dunes@example.org');
    await p.fill('#a_password', 'a long enough password');
    await Promise.all([p.waitForLoadState(), p.click('form[action="/console/accounts"] button[type=submit]')]);
    const key = (await p.textContent('#new-key')) ?? '';
    const me = await call(t, 'GET', '/v1/accounts/me', { key });
    assert.equal(me.status, 200, 'the new key works in the API');
    assert.equal(me.json.name, 'Dune Cottages');
    assert.equal(me.json.billing.parent_account, reseller.account.id);

    const row = p.locator(`tr[data-account="${me.json.id}"]`);
    await Promise.all([p.waitForURL(/done=suspended/), row.locator('button', { hasText: 'Suspend' }).click()]);
    assert.match((await p.locator(`tr[data-account="${me.json.id}"]`).textContent()) ?? '', /suspended/);
    assert.equal((await call(t, 'GET', '/v1/reservations', { key })).status, 403, 'a suspended account is refused');

    await p.click('input[name=hidepw]');
    await Promise.all([p.waitForLoadState(), p.click('form[action="/console/accounts/signup-link"] button[type=submit]')]);
    const link = (await p.textContent('#signup-url')) ?? '';
    assert.match(link, /\/signup\/[\w-]{20,}$/);
    assert.equal((await fetch(base + new URL(link).pathname)).status, 200, 'the signup link opens');
    await snap(p, 'accounts');
    await p.goto(`${base}/console/accounts/keys`);
    assert.match((await p.textContent('#keys')) ?? '', new RegExp(key));

    const res = await page.goto(`${base}/console/accounts`);
    assert.equal(res?.status(), 403, 'a host that is not a reseller has no accounts page');
    assert.equal(await page.locator('nav a[href="/console/accounts"]').count(), 0);
    await context.close();
  });
});

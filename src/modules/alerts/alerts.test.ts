import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, decodeQuotedPrintable, eventually, startSmtp, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import type { JobContext } from '../../jobs/worker.js';
import { hashPassword } from '../../lib/passwords.js';
import { acceptInvitation, invite, setOwnerPassword, userActor, type UserRow } from '../users/service.js';
import { alertHourly, lastDigestTime, setAlertMode, setPortalAlertHours } from './service.js';

describe(`the account's people told of guests who need them (${dbKind})`, () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let host: Tenant;
  let owner: UserRow;
  let reviewer: UserRow;
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  const mailsTo = (email: string) =>
    smtp.mails
      .filter((m) => m.to === email)
      .map((m) => decodeQuotedPrintable(m.data))
      .filter((m) => !/invited you/.test(m));
  /** The hourly job as the worker runs it, at the time given. */
  const hourly = (at: Date) => alertHourly({}, { deps: { ...t.deps, clock: () => at } } as JobContext);

  before(async () => {
    smtp = await startSmtp();
    // Three seconds for the screening to settle: the flapping booking below is screened three times within them.
    t = await createTestAppWithWorker({ GUESTSCREEN_SMTP_URL: smtp.url, GUESTSCREEN_ALERT_SETTLE_SECONDS: '3' });
    host = await tenant(t, { name: 'Quay Stays' });
    owner = await setOwnerPassword(t.deps, t.deps.db, host.account, await hashPassword('owner password'), null);
    const inv = await invite(t.deps, host.account, userActor(owner), { email: 'rita@quay.example', role: 'reviewer' });
    reviewer = (await acceptInvitation(t.deps, inv.link.split('/').pop()!, { name: 'Rita', password: 'rita password' })).user;
    await setAlertMode(t.deps, reviewer, 'digest');
    await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { email: 'banned@example.net', reason: 'left without paying' } });
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('e-mails each person who wants it once when a guest turns red, with the guest, the stay, the reason and a link', async () => {
    const r = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: host.key,
      body: { check_in_date: day(5), check_out_date: day(8), listing_nickname: 'Quay Loft', guest: { first_name: 'Rex', last_name: 'Banned', email: 'banned@example.net' } },
    });
    assert.equal(r.status, 200, r.body);
    const mail = await eventually(async () => mailsTo(host.account.email)[0], 'the e-mail to the owner');
    assert.match(mail, /Subject: Rex Banned needs your decision/);
    assert.match(mail, /Quay Loft/);
    assert.match(mail, /Rex Banned is red: .*blocklist/is);
    assert.ok(mail.includes(`/console/reservations/${r.json.id}`), 'with a link to the reservation page');
    // Screening again finds the same: nobody is told twice.
    await call(t, 'POST', `/v1/reservations/${r.json.id}/screen?sync=1`, { key: host.key });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(mailsTo(host.account.email).length, 1);
    assert.equal(mailsTo('rita@quay.example').length, 0, 'the reviewer chose a digest');
  });

  it('sends a daily digest at its hour, leaving out guests decided meanwhile', async () => {
    const decided = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: host.key,
      body: { check_in_date: day(6), guest: { first_name: 'Dora', last_name: 'Decided', email: 'banned@example.net' } },
    });
    const approved = await call(t, 'POST', `/v1/reservations/${decided.json.id}/status`, { key: host.key, body: { supervised: 'approve', reason: 'known guest' } });
    assert.equal(approved.status, 200, approved.body);
    const digestAt = new Date(lastDigestTime(new Date(Date.now() + 86_400_000), t.deps.config.alertDigestHour).getTime() + 60_000);
    await hourly(digestAt);
    const digests = mailsTo('rita@quay.example');
    assert.equal(digests.length, 1);
    assert.match(digests[0]!, /Subject: 1 guest needs you today/);
    assert.match(digests[0]!, /Rex Banned needs your decision/);
    assert.doesNotMatch(digests[0]!, /Dora Decided/);
    await hourly(new Date(digestAt.getTime() + 3_600_000));
    assert.equal(mailsTo('rita@quay.example').length, 1, 'one digest a day');
  });

  it("tells of a guest portal still unfinished the account's hours before the check-in day, once", async () => {
    const r = await call(t, 'POST', '/v1/reservations', { key: host.key, body: { check_in_date: day(3), guest: { first_name: 'Paula', last_name: 'Late', email: 'paula@example.org' } } });
    assert.equal(r.status, 200, r.body);
    const told = () => mailsTo(host.account.email).filter((m) => m.includes('Paula Late'));
    await setPortalAlertHours(t.deps, host.account, 24);
    await hourly(new Date());
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(told().length, 0, 'not yet: the check-in day is more than 24 hours away');
    await setPortalAlertHours(t.deps, host.account, 72);
    await hourly(new Date());
    const mail = await eventually(async () => told()[0], 'the portal e-mail');
    assert.match(mail, /Subject: Paula Late: guest portal unfinished/);
    await hourly(new Date());
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(told().length, 1, 'once');
  });

  it('waits for the screening to settle and sends one e-mail of the colour it settles on, though it went orange, red and orange again', async () => {
    await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { name: 'Flora Flapping', reason: 'broke the lock' } });
    const r = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: host.key,
      body: { check_in_date: day(11), guest: { first_name: 'Flora', last_name: 'Flapping', email: 'flora@example.org' } },
    });
    assert.equal(r.status, 200, r.body);
    const colour = async () => (await call(t, 'GET', `/v1/reservations/${r.json.id}/summary`, { key: host.key })).json.risk_color;
    assert.equal(await colour(), 'orange');
    // A check finishes: the e-mail turns up on the blocklist (red); another: it was a mistake, taken off (orange).
    const entry = await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { email: 'flora@example.org', reason: 'a mistake' } });
    await call(t, 'POST', `/v1/reservations/${r.json.id}/screen?sync=1`, { key: host.key });
    assert.equal(await colour(), 'red');
    await call(t, 'DELETE', `/v1/blocklist/${entry.json.id}`, { key: host.key });
    await call(t, 'POST', `/v1/reservations/${r.json.id}/screen?sync=1`, { key: host.key });
    assert.equal(await colour(), 'orange');
    const told = () => mailsTo(host.account.email).filter((m) => m.includes('Flora Flapping needs'));
    const mail = await eventually(async () => told()[0], 'the e-mail once the screening settled');
    assert.match(mail, /Flora Flapping is orange/);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    assert.equal(told().length, 1, 'one e-mail, of the colour it settled on');
  });

  it('tells again when a stronger finding comes at the same colour, naming it; the same finding again tells nobody', async () => {
    await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { name: 'Olga Namesake', reason: 'damaged the flat' } });
    const r = await call(t, 'POST', '/v1/reservations?sync=1', {
      key: host.key,
      body: { check_in_date: day(9), guest: { first_name: 'Olga', last_name: 'Namesake', email: 'olga@example.org', phone: '+44 7700 900123' } },
    });
    assert.equal(r.status, 200, r.body);
    const told = () => mailsTo(host.account.email).filter((m) => m.includes('Olga Namesake needs'));
    const first = await eventually(async () => told()[0], 'the first e-mail');
    assert.match(first, /Olga Namesake is orange: Guest's name is the same as your blocklist entry/);
    // The phone turns up on the blocklist: stronger evidence, the same colour.
    await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { phone: '+447700900123', reason: 'threatened the neighbours' } });
    const again = await call(t, 'POST', `/v1/reservations/${r.json.id}/screen?sync=1`, { key: host.key });
    assert.equal(again.status, 200, again.body);
    const summary = await call(t, 'GET', `/v1/reservations/${r.json.id}/summary`, { key: host.key });
    assert.equal(summary.json.risk_color, 'orange', summary.body);
    const second = await eventually(async () => told()[1], 'the e-mail of the stronger finding');
    assert.match(second, /Olga Namesake is orange: Guest's phone number matches your blocklist entry \(threatened the neighbours\)/);
    assert.match(second, /Also found: Guest's name is the same/);
    await call(t, 'POST', `/v1/reservations/${r.json.id}/screen?sync=1`, { key: host.key });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(told().length, 2, 'nobody is told twice of the same finding');
  });
});

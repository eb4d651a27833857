import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, decodeQuotedPrintable, eventually, startReceiver, startSmtp, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

type Message = { id: string; tag: string; status: string; via: string; method: string; sendAfter: string; message: { text: string } };

describe(`check-in details, held until the booking is verified (${dbKind})`, () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sms: Awaited<ReturnType<typeof startReceiver>>;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let me: Tenant;

  before(async () => {
    smtp = await startSmtp();
    sms = await startReceiver(() => ({ status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sid: 'SM1', status: 'queued' }) }));
    hooks = await startReceiver();
    t = await createTestAppWithWorker({
      GUESTSCREEN_SMTP_URL: smtp.url,
      GUESTSCREEN_SMS_URL: sms.url,
      GUESTSCREEN_SMS_ACCOUNT_SID: 'AC1',
      GUESTSCREEN_SMS_AUTH_TOKEN: 'tok',
      GUESTSCREEN_SMS_FROM: '+15005550006',
    });
    me = await tenant(t);
    await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'stargate_webhook_url', webhook_url: `${hooks.url}/stargate` } });
    const put = await call(t, 'PUT', '/v1/listings/casa-azul/check-in', {
      key: me.key,
      body: { address: 'Calle del Sol 4, 2º B, Sevilla', door_code: '4817#', wifi_name: 'CasaAzul', wifi_password: 'naranjas-2027', directions: 'The key box is left of the door.' },
    });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.json.send_hours_before, 48);
  });
  after(async () => {
    await t.close();
    await sms.close();
    await hooks.close();
    await smtp.close();
  });

  const book = async (guest: Record<string, string>, opts: { checkIn?: number; skipGp?: boolean; listing?: string } = {}) => {
    const res = await call(t, 'POST', `/v1/reservations${opts.skipGp ? '?skip_gp=1' : ''}`, {
      key: me.key,
      body: {
        listing_id: opts.listing ?? 'casa-azul',
        listing_nickname: 'Casa Azul',
        check_in_date: day(opts.checkIn ?? 1),
        check_out_date: day((opts.checkIn ?? 1) + 3),
        guest: { first_name: 'Lucía', last_name: 'García', language: 'es', ...guest },
      },
    });
    assert.equal(res.status, 200, res.body);
    return res.json.id as string;
  };
  const messages = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/stargate`, { key: me.key })).json as Message[];
  const checkIn = async (id: string) => (await messages(id)).find((m) => m.tag === 'check_in');
  const status = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/status`, { key: me.key })).json.status as string;
  const decide = (id: string, supervised: 'approve' | 'decline') => call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised } });
  const notes = async (id: string) => ((await call(t, 'GET', `/v1/reservations/${id}/notes`, { key: me.key })).json as { text: string }[]).map((n) => n.text);

  it('sends them by e-mail, in the guest’s language, as soon as screening verifies a booking whose release time has come', async () => {
    const id = await book({ email: 'lucia.verified@example.es' }, { skipGp: true });
    await eventually(async () => ((await status(id)) === 'verified' ? true : undefined), 'verified by screening');
    const mail = await eventually(async () => smtp.mails.find((m) => m.to === 'lucia.verified@example.es' && m.data.includes('4817#')), 'the e-mail with the door code');
    const body = decodeQuotedPrintable(mail.data);
    assert.match(body, /Código de la puerta: 4817#/);
    assert.match(body, /Contraseña del wifi: naranjas-2027/);
    assert.match(body, /Calle del Sol 4/);
    const sent = await eventually(async () => {
      const m = await checkIn(id);
      return m?.status === 'sent' ? m : undefined;
    }, 'sent in stargate');
    assert.equal(sent.via, 'smtp');
    assert.ok(!sent.message.text.includes('4817#'), 'what is kept of the message has no door code');
    assert.ok(!sent.message.text.includes('naranjas-2027'), 'nor the Wi-Fi password');
    const hook = await eventually(async () => hooks.received.find((r) => r.url === '/stargate' && r.body.includes(sent.id) && r.headers['webhook-event'] === 'guest_message.sent'), 'the webhook');
    assert.equal(JSON.parse(hook.body).tag, 'check_in');
  });

  it('texts them to a guest with only a phone once the host approves a booking still waiting, even after the release time (late approval)', async () => {
    const id = await book({ phone: '+34 612 345 678' });
    await eventually(async () => ((await status(id)) === 'pending' ? true : undefined), 'pending: the guest portal is not done');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await checkIn(id), undefined, 'nothing is queued before the booking is verified');
    assert.equal((await decide(id, 'approve')).status, 200);
    const text = await eventually(async () => sms.received.find((r) => new URLSearchParams(r.body).get('Body')?.includes('4817#')), 'the SMS');
    const form = new URLSearchParams(text.body);
    assert.equal(form.get('To'), '+34 612 345 678');
    assert.match(form.get('Body') ?? '', /Código de la puerta: 4817#/);
    assert.equal((await eventually(async () => ((await checkIn(id))?.status === 'sent' ? checkIn(id) : undefined), 'sent'))?.method, 'sms');
  });

  it('queues them for the release time when the host approves early, and a decline before then sends nothing and tells the host', async () => {
    const id = await book({ email: 'lucia.declined@example.es' }, { checkIn: 10 });
    assert.equal((await decide(id, 'approve')).status, 200);
    const queued = await checkIn(id);
    assert.equal(queued?.status, 'queued');
    assert.equal(queued?.sendAfter, new Date(Date.parse(`${day(10)}T00:00:00Z`) - 48 * 3600_000).toISOString());
    assert.equal((await decide(id, 'decline')).status, 200);
    assert.equal((await checkIn(id))?.status, 'canceled');
    assert.ok((await notes(id)).some((n) => /check-in details were not sent to the guest: the booking was declined/.test(n)));
    const hook = await eventually(async () => hooks.received.find((r) => r.url === '/stargate' && r.headers['webhook-event'] === 'guest_message.canceled' && r.body.includes(id)), 'the webhook');
    assert.equal(JSON.parse(hook.body).status, 'canceled');
    // Even once the release time comes (the job brought forward), nothing goes.
    await t.deps.db
      .updateTable('jobs')
      .set({ run_at: new Date(0).toISOString() })
      .where('kind', '=', 'message.send')
      .where('state', '=', 'available')
      .execute();
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(!smtp.mails.some((m) => m.to === 'lucia.declined@example.es' && m.data.includes('4817#')));
  });

  it('never sends them for a declined booking, nor for a cancelled one', async () => {
    const declined = await book({ email: 'lucia.never@example.es' });
    assert.equal((await decide(declined, 'decline')).status, 200);
    const verified = await book({ email: 'lucia.cancelled@example.es' }, { checkIn: 10, skipGp: true });
    await eventually(async () => ((await checkIn(verified))?.status === 'queued' ? true : undefined), 'queued for the release time');
    assert.equal((await call(t, 'PUT', `/v1/reservations/${verified}`, { key: me.key, body: { status: 'CANCELED' } })).status, 200);
    assert.equal((await checkIn(verified))?.status, 'canceled');
    assert.ok((await notes(verified)).some((n) => /not sent to the guest: the booking was cancelled/.test(n)));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await checkIn(declined), undefined);
    assert.ok(!smtp.mails.some((m) => /lucia\.(never|cancelled)/.test(m.to) && m.data.includes('4817#')));
  });

  it('refuses instructions and a profile it cannot use, naming the field', async () => {
    const bad = [
      ['/v1/listings/casa-azul/check-in', { door_code: 'x'.repeat(101) }, /door_code/],
      ['/v1/listings/casa-azul/check-in', { send_hours_before: 1e12 }, /send_hours_before/],
      ['/v1/listings/casa-azul/check-in', { directions: 'in\u0000side' }, /directions|NUL|control/i],
      ['/v1/accounts/host-profile', { accent_color: 'teal' }, /accent_color/],
      ['/v1/accounts/host-profile', { logo: 'data:image/svg+xml;base64,PHN2Zz4=' }, /logo/],
      ['/v1/accounts/host-profile', { logo: 'data:image/png;base64,aGVsbG8gd29ybGQ=' }, /logo: the data is not/],
      ['/v1/accounts/host-profile', { house_rules: 'x'.repeat(20_001) }, /house_rules/],
    ] as const;
    for (const [url, body, error] of bad) {
      const res = await call(t, 'PUT', url, { key: me.key, body });
      assert.equal(res.status, 400, `${url} ${JSON.stringify(body).slice(0, 60)}: ${res.body}`);
      assert.match(res.json.error, error);
    }
  });

  it('sends nothing for a listing without instructions, and keeps the instructions encrypted', async () => {
    const id = await book({ email: 'lucia.nolisting@example.es' }, { skipGp: true, listing: 'no-instructions' });
    await eventually(async () => ((await status(id)) === 'verified' ? true : undefined), 'verified');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await checkIn(id), undefined);
    const row = await t.deps.db.selectFrom('listings').selectAll().where('listing_id', '=', 'casa-azul').executeTakeFirstOrThrow();
    assert.ok(row.check_in_enc && !row.check_in_enc.includes('4817'), 'the door code is not stored in the clear');
    // Listing ids are each account's own: another account's casa-azul is another listing.
    const stranger = await tenant(t);
    const theirs = await call(t, 'GET', '/v1/listings/casa-azul/check-in', { key: stranger.key });
    assert.equal(theirs.status, 200);
    assert.equal(theirs.json.door_code, null);
  });
});

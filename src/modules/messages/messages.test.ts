import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, decodeQuotedPrintable as unfold, eventually, startReceiver, startSmtp, tenant, type TestApp } from '../../../test/harness.js';
import type { Worker } from '../../jobs/worker.js';
import { startWorker } from '../../runtime.js';

const stay = (guest: Record<string, string>) => ({
  listing_nickname: 'Casa do Mar',
  check_in_date: '2027-03-10',
  check_out_date: '2027-03-14',
  guest: { first_name: 'Rita', last_name: 'Alves', ...guest },
});

async function messagesOf(t: TestApp, key: string, id: string) {
  return (await call(t, 'GET', `/v1/reservations/${id}/stargate`, { key })).json as { tag: string; status: string; via: string; method: string }[];
}

describe(`guest messages (${dbKind})`, () => {
  describe('with no transport configured', () => {
    let t: TestApp;
    let worker: Worker;
    before(async () => {
      t = await createTestApp();
      worker = startWorker(t.deps);
    });
    after(async () => {
      await worker.stop();
      await t.close();
    });

    it('writes the invitation into the outbox rather than dropping it', async () => {
      const me = await tenant(t);
      const { id, guest_portal_url } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: stay({ email: 'rita@example.pt' }) })).json;
      const sent = await eventually(async () => (await messagesOf(t, me.key, id)).find((m) => m.tag === 'invitation' && m.status === 'sent'), 'the invitation');
      assert.equal(sent.via, 'outbox');
      const dir = path.join(t.env.GUESTSCREEN_DATA_DIR!, 'outbox');
      const files = await readdir(dir);
      const eml = await readFile(
        path.join(
          dir,
          files.find((f) => f.endsWith('.eml'))!,
        ),
        'utf8',
      );
      assert.match(eml, /^To: rita@example\.pt$/m);
      assert.match(eml, /^Subject: Check-in for Casa do Mar$/m);
      assert.ok(unfold(eml).includes(guest_portal_url));
      const reminder = (await messagesOf(t, me.key, id)).find((m) => m.tag === 'reminder');
      assert.equal(reminder?.status, 'queued', 'the reminder waits for its day');
    });

    it('queues nothing for an inquiry or a guest without contact details, and cancels on cancellation', async () => {
      const me = await tenant(t);
      const inquiry = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...stay({ email: 'i@example.test' }), status: 'INQUIRY' } })).json;
      assert.deepEqual(await messagesOf(t, me.key, inquiry.id), []);
      const silent = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: stay({}) })).json;
      assert.deepEqual(await messagesOf(t, me.key, silent.id), []);

      const confirmed = await call(t, 'PUT', `/v1/reservations/${inquiry.id}`, { key: me.key, body: { status: 'CONFIRMED' } });
      assert.equal(confirmed.status, 200);
      await eventually(async () => (await messagesOf(t, me.key, inquiry.id)).some((m) => m.tag === 'invitation' && m.status === 'sent'), 'an invitation once confirmed');
      await call(t, 'PUT', `/v1/reservations/${inquiry.id}`, { key: me.key, body: { status: 'CANCELED' } });
      const reminder = (await messagesOf(t, me.key, inquiry.id)).find((m) => m.tag === 'reminder');
      assert.equal(reminder?.status, 'canceled');
    });

    it('withdraws the reminder when the host declines the guest', async () => {
      const me = await tenant(t);
      const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: stay({ email: 'declined@example.test' }) })).json;
      assert.equal((await messagesOf(t, me.key, id)).find((m) => m.tag === 'reminder')?.status, 'queued');
      const declined = await call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised: 'decline', reason: 'no ID' } });
      assert.equal(declined.status, 200, declined.body);
      assert.equal((await messagesOf(t, me.key, id)).find((m) => m.tag === 'reminder')?.status, 'canceled');
    });
  });

  describe('over SMTP', () => {
    let t: TestApp;
    let worker: Worker;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let hooks: Awaited<ReturnType<typeof startReceiver>>;

    before(async () => {
      smtp = await startSmtp();
      hooks = await startReceiver();
      t = await createTestApp({ GUESTSCREEN_SMTP_URL: smtp.url, GUESTSCREEN_MAIL_FROM: 'Casa do Mar <stay@casa.example>' });
      worker = startWorker(t.deps);
    });
    after(async () => {
      await worker.stop();
      await t.close();
      await hooks.close();
      await smtp.close();
    });

    it('sends the invitation through the SMTP server and tells stargate_webhook_url', async () => {
      const me = await tenant(t);
      await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'stargate_webhook_url', webhook_url: `${hooks.url}/stargate` } });
      const { id, guest_portal_url } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: stay({ email: 'rita.smtp@example.pt' }) })).json;
      const mail = await eventually(async () => smtp.mails.find((m) => m.to === 'rita.smtp@example.pt'), 'the e-mail');
      assert.match(mail.data, /^From: Casa do Mar <stay@casa\.example>/m);
      assert.ok(unfold(mail.data).includes(guest_portal_url));
      const sent = await eventually(async () => (await messagesOf(t, me.key, id)).find((m) => m.status === 'sent'), 'sent status');
      assert.equal(sent.via, 'smtp');
      const hook = await eventually(async () => hooks.received.find((r) => r.url === '/stargate' && r.body.includes(id)), 'the stargate event');
      assert.equal(JSON.parse(hook.body).status, 'sent');
      assert.equal(hook.headers['webhook-event'], 'guest_message.sent');
    });
  });

  describe('over a Twilio-style SMS API', () => {
    let t: TestApp;
    let worker: Worker;
    let twilio: Awaited<ReturnType<typeof startReceiver>>;
    let failNext = 1;

    before(async () => {
      twilio = await startReceiver(() => {
        if (failNext-- > 0) {
          return {
            status: 429,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ code: 20429, message: 'Too Many Requests', more_info: 'https://www.twilio.com/docs/errors/20429', status: 429 }),
          };
        }
        return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sid: 'SM123', status: 'queued' }) };
      });
      t = await createTestApp({
        GUESTSCREEN_SMS_URL: twilio.url,
        GUESTSCREEN_SMS_ACCOUNT_SID: 'AC123',
        GUESTSCREEN_SMS_AUTH_TOKEN: 'tok',
        GUESTSCREEN_SMS_FROM: '+15005550006',
      });
      worker = startWorker(t.deps);
    });
    after(async () => {
      await worker.stop();
      await t.close();
      await twilio.close();
    });

    it('texts a guest who has only a phone, retrying after the provider’s 429', async () => {
      const me = await tenant(t);
      const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: stay({ phone: '+351912345678' }) })).json;
      // The retry backoff is 30 s in production; bring the retry forward instead of waiting.
      await eventually(async () => {
        await t.deps.db
          .updateTable('jobs')
          .set({ run_at: new Date(0).toISOString() })
          .where('kind', '=', 'message.send')
          .where('attempt', '>', 0)
          .where('state', '=', 'available')
          .execute();
        return (await messagesOf(t, me.key, id)).find((m) => m.tag === 'invitation' && m.status === 'sent');
      }, 'the SMS');
      const sms = twilio.received.filter((r) => r.url === '/2010-04-01/Accounts/AC123/Messages.json');
      assert.equal(sms.length, 2);
      const form = new URLSearchParams(sms[1]!.body);
      assert.equal(form.get('To'), '+351912345678');
      assert.equal(form.get('From'), '+15005550006');
      assert.match(form.get('Body') ?? '', /\/gp\//);
      assert.equal(sms[1]!.headers.authorization, `Basic ${Buffer.from('AC123:tok').toString('base64')}`);
      const m = (await messagesOf(t, me.key, id)).find((x) => x.tag === 'invitation')!;
      assert.equal(m.method, 'sms');
      assert.equal(m.via, 'sms');
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { call, createTestApp, dbKind, eventually, startReceiver, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { withTx } from '../../db/connection.js';
import type { Worker } from '../../jobs/worker.js';
import { startWorker } from '../../runtime.js';
import { emitCallback } from './service.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

describe(`webhook delivery (${dbKind})`, () => {
  let t: TestApp;
  let worker: Worker;
  before(async () => {
    t = await createTestApp({ GUESTSCREEN_WEBHOOK_RETRY_SCHEDULE: '0.05,0.05,0.05' });
    worker = startWorker(t.deps);
  });
  after(async () => {
    await worker.stop();
    await t.close();
  });

  const register = (who: Tenant, key: string, url: string) => call(t, 'POST', '/v1/accounts/webhooks', { key: who.key, body: { webhook_key: key, webhook_url: url } });
  const secretOf = async (who: Tenant) => (await call(t, 'GET', '/v1/accounts/webhooks', { key: who.key })).json.signing_secret as string;
  const deliveries = async (who: Tenant) => (await call(t, 'GET', '/v1/accounts/webhooks/deliveries?size=100', { key: who.key })).json;
  const verify = (secret: string, r: { body: string; headers: Record<string, unknown> }) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;

  let rx: Receiver;
  before(async () => {
    rx = await startReceiver();
  });
  after(() => rx.close());

  it('posts the created reservation, signed so the standardwebhooks library verifies it', async () => {
    const me = await tenant(t);
    await register(me, 'reservation_webhook_url', `${rx.url}/reservations`);
    const created = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { confirmation_code: 'WH-1', guest: { first_name: 'Lea', last_name: 'Roux' } } })).json;
    const got = await eventually(async () => rx.received.find((r) => r.url === '/reservations' && r.body.includes(created.id)), 'the delivery');
    const body = verify(await secretOf(me), got);
    assert.deepEqual(body, created);
    assert.equal(got.headers['webhook-event'], 'reservation.created');
    assert.match(String(got.headers['webhook-id']), /^evt_/);
    // The worker records the outcome after the receiver has answered, so the record may lag the request.
    const done = await eventually(async () => (await deliveries(me)).items.find((x: { state: string }) => x.state === 'succeeded'), 'the delivery recorded');
    assert.equal(done.attempts[0].status_code, 200);
  });

  it('sends the screening body when a manual decision changes', async () => {
    const me = await tenant(t);
    await register(me, 'screening_webhook_url', `${rx.url}/screening`);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Sam', last_name: 'Idris' } } })).json;
    await call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised: 'decline' } });
    const got = await eventually(async () => rx.received.find((r) => r.url === '/screening' && r.body.includes(id) && r.body.includes('"supervised":"decline"')), 'the screening event');
    const body = verify(await secretOf(me), got);
    assert.deepEqual(Object.keys(body).sort(), [
      'business_rules',
      'decided_at',
      'decided_by',
      'guestportal_completed',
      'id',
      'notes',
      'reason',
      'risk_color',
      'status',
      'supervised',
      'supervised_reason',
      'top_recommendations',
      'top_risks',
      'url',
    ]);
    assert.equal(body.status, 'declined');
    assert.equal(body.supervised, 'decline');
    // The account's own key made the decision: the webhook names it.
    const decidedBy = body.decided_by as { type: string; id: string; name: string };
    assert.equal(decidedBy.type, 'api_key');
    assert.equal(decidedBy.name, 'API key');
    assert.match(decidedBy.id, /^key_/);
  });

  it('retries on failure with the configured schedule and records every attempt', async () => {
    const flaky = await startReceiver((_r, n) => (n < 3 ? { status: 500, body: 'oops' } : { status: 204 }));
    try {
      const me = await tenant(t);
      await register(me, 'reservation_webhook_url', `${flaky.url}/hook`);
      await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Ryo', last_name: 'Sato' } } });
      const d = await eventually(async () => (await deliveries(me)).items.find((x: { state: string }) => x.state === 'succeeded'), 'success on the third attempt');
      assert.deepEqual(
        d.attempts.map((a: { status_code: number }) => a.status_code),
        [500, 500, 204],
      );
      assert.equal(d.attempts[0].error, 'HTTP 500');
      assert.ok(d.attempts.every((a: { latency_ms: number }) => a.latency_ms >= 0));
      assert.equal(new Set(flaky.received.map((r) => r.headers['webhook-id'])).size, 1, 'retries keep the webhook-id');
    } finally {
      await flaky.close();
    }
  });

  it('does not follow a redirect and counts it as a failure', async () => {
    const redirecting = await startReceiver(() => ({ status: 302, headers: { location: `${rx.url}/elsewhere` } }));
    try {
      const me = await tenant(t);
      await register(me, 'reservation_webhook_url', `${redirecting.url}/hook`);
      await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Ola', last_name: 'Berg' } } });
      const d = await eventually(async () => (await deliveries(me)).items.find((x: { state: string }) => x.state === 'failed'), 'the delivery to fail');
      assert.equal(d.attempts.length, 4, 'one try and three retries');
      assert.equal(d.attempts[0].error, 'HTTP 302 (redirects are not followed)');
      assert.ok(!rx.received.some((r) => r.url === '/elsewhere'));
    } finally {
      await redirecting.close();
    }
  });

  it('disables the URL when the receiver answers 410, until it is registered again', async () => {
    const gone = await startReceiver(() => ({ status: 410 }));
    try {
      const me = await tenant(t);
      await register(me, 'reservation_webhook_url', `${gone.url}/hook`);
      await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Gus', last_name: 'Gone' } } });
      await eventually(async () => (await deliveries(me)).items.find((x: { state: string }) => x.state === 'failed'), 'the 410');
      const hooks = (await call(t, 'GET', '/v1/accounts/webhooks', { key: me.key })).json.webhooks;
      assert.equal(hooks[0].enabled, false);
      assert.match(hooks[0].disabled_reason, /410 Gone/);
      assert.equal(gone.received.length, 1, 'no retries after 410');
      await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Gus', last_name: 'Again' } } });
      assert.equal((await deliveries(me)).total, 1, 'a disabled URL gets nothing');
      await register(me, 'reservation_webhook_url', `${rx.url}/back`);
      assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: me.key })).json.webhooks[0].enabled, true);
    } finally {
      await gone.close();
    }
  });

  it('replays a failed delivery once the receiver is back', async () => {
    const down = await startReceiver();
    const deadUrl = `${down.url}/hook`;
    await down.close();
    const me = await tenant(t);
    await register(me, 'reservation_webhook_url', deadUrl);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Ana', last_name: 'Down' } } })).json;
    const failed = await eventually(async () => (await deliveries(me)).items.find((x: { state: string }) => x.state === 'failed'), 'attempts to run out');
    assert.match(failed.attempts[0].error, /ECONNREFUSED/);
    await register(me, 'reservation_webhook_url', `${rx.url}/replayed`);
    const replay = await call(t, 'POST', `/v1/accounts/webhooks/deliveries/${failed.id}/replay`, { key: me.key });
    assert.equal(replay.status, 200);
    const got = await eventually(async () => rx.received.find((r) => r.url === '/replayed' && r.body.includes(id)), 'the replay');
    assert.equal(got.headers['webhook-id'], failed.event_id, 'the same event id, so receivers can dedupe');
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const me = await tenant(t);
    const old = await secretOf(me);
    const rotated = await call(t, 'POST', '/v1/accounts/webhooks/secret/rotate', { key: me.key });
    assert.equal(rotated.status, 200);
    const fresh = rotated.json.signing_secret as string;
    assert.notEqual(fresh, old);
    assert.equal(await secretOf(me), fresh);
    await register(me, 'reservation_webhook_url', `${rx.url}/rotated`);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Rot', last_name: 'Ate' } } })).json;
    const got = await eventually(async () => rx.received.find((r) => r.url === '/rotated' && r.body.includes(id)), 'the delivery');
    assert.equal(String(got.headers['webhook-signature']).split(' ').length, 2);
    verify(fresh, got);
    verify(old, got);
  });

  it('tells listing_webhook_url about a new listing and a rename, once each', async () => {
    const me = await tenant(t);
    await register(me, 'listing_webhook_url', `${rx.url}/listings`);
    const base = { listing_id: `L-${me.account.id.slice(-6)}`, guest: { first_name: 'Li', last_name: 'Sting' } };
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...base, listing_nickname: 'Blue Door' } });
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...base, listing_nickname: 'Blue Door' } });
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...base, listing_nickname: 'Red Door' } });
    const mine = () => rx.received.filter((r) => r.url === '/listings' && r.body.includes(base.listing_id));
    await eventually(async () => mine().length === 2, 'two listing events');
    const kinds = mine()
      .map((r) => r.headers['webhook-event'])
      .sort();
    assert.deepEqual(kinds, ['listing.created', 'listing.renamed']);
    const renamed = JSON.parse(mine().find((r) => r.headers['webhook-event'] === 'listing.renamed')!.body);
    assert.equal(renamed.previous_nickname, 'Blue Door');
    assert.equal(renamed.listing_nickname, 'Red Door');
  });

  it("tells a reseller's account_webhook_url about accounts created and updated under it", async () => {
    const reseller = await tenant(t, { reseller: true });
    await register(reseller, 'account_webhook_url', `${rx.url}/accounts`);
    const child = (await call(t, 'POST', '/v1/accounts/register', { key: reseller.key, body: { name: 'Sub Co', email: 'sub@example.test' } })).json;
    await call(t, 'PUT', `/v1/accounts/${child.id}?suspended=true`, { key: reseller.key });
    const mine = () => rx.received.filter((r) => r.url === '/accounts' && r.body.includes(child.id));
    await eventually(async () => mine().length === 2, 'two account events');
    const updated = mine().find((r) => r.headers['webhook-event'] === 'account.updated')!;
    assert.equal(verify(await secretOf(reseller), updated).is_suspended, true);
  });

  it('posts the screening body to the per-request callback URL when the run finishes, signed the same way', async () => {
    const me = await tenant(t);
    const created = await call(t, 'POST', `/v1/reservations?callback=${encodeURIComponent(`${rx.url}/callback`)}&skip_gp=1`, {
      key: me.key,
      body: { guest: { first_name: 'Cal', last_name: 'Back', email: 'cal.back@gmail.com' } },
    });
    assert.equal(created.status, 200);
    const row = await t.deps.db.selectFrom('reservations').select(['callback_url', 'skip_gp']).where('id', '=', created.json.id).executeTakeFirstOrThrow();
    assert.equal(row.callback_url, `${rx.url}/callback`);
    assert.equal(Boolean(row.skip_gp), true);
    const got = await eventually(async () => rx.received.find((r) => r.url === '/callback' && r.body.includes(created.json.id)), 'the callback');
    const body = verify(await secretOf(me), got);
    assert.equal(body.id, created.json.id);
    assert.equal(body.status, 'verified');
    assert.equal(got.headers['webhook-event'], 'screening.finished');
  });

  it('delivers an event to a callback URL directly through the delivery path', async () => {
    const me = await tenant(t);
    await withTx(t.deps.db, (tx) => emitCallback(tx, t.deps, `${rx.url}/direct`, { accountId: me.account.id, type: 'screening.finished', subjectId: null, body: { id: 'res_x', status: 'review' } }));
    const got = await eventually(async () => rx.received.find((r) => r.url === '/direct'), 'the callback');
    assert.deepEqual(verify(await secretOf(me), got), { id: 'res_x', status: 'review' });
  });

  it('refuses at registration a webhook URL on a private address when private targets are not allowed', async () => {
    const strict = await createTestApp({ GUESTSCREEN_ALLOW_PRIVATE_TARGETS: 'false' });
    try {
      const me = await tenant(strict);
      for (const url of ['http://127.0.0.1:8080/hook', 'http://10.0.0.5/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
        const r = await call(strict, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'reservation_webhook_url', webhook_url: url } });
        assert.equal(r.status, 400, url);
        assert.match(r.json.error, /^body\.webhook_url: refused /);
      }
      const cb = await call(strict, 'POST', '/v1/reservations?callback=http://192.168.1.10/cb', { key: me.key, body: { guest: { first_name: 'A', last_name: 'B' } } });
      assert.equal(cb.status, 400);
      assert.match(cb.json.error, /^query\.callback: refused .*private/);
    } finally {
      await strict.close();
    }
  });
});

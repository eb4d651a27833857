import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, eventually, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import type { JobRow } from '../../jobs/repo.js';
import { runCheckr } from './service.js';
import { timeSlicer } from '../../lib/time-slice.js';

const KEY = 'ck_test_1234';

/**
 * A local Checkr (PROVIDERS.md section 12): Basic auth with the key as user, candidates,
 * invitations and reports, idempotency keys honoured; the test moves an invitation along as
 * the guest and Checkr would.
 */
function fakeCheckr() {
  const candidates = new Map<string, Record<string, unknown>>();
  const invitations = new Map<string, Record<string, unknown>>();
  const reports = new Map<string, Record<string, unknown>>();
  const idempotent = new Map<string, unknown>();
  let n = 0;
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.headers.authorization !== `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`) return json(res, 401, { error: 'Bad authentication error' });
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const key = req.headers['idempotency-key'];
      if (req.method === 'POST' && typeof key === 'string' && idempotent.has(key)) return json(res, 201, idempotent.get(key));
      const created = (body: Record<string, unknown>) => {
        if (typeof key === 'string') idempotent.set(key, body);
        json(res, 201, body);
      };
      if (req.method === 'POST' && path === '/v1/candidates') {
        const body = JSON.parse(raw) as Record<string, unknown>;
        if (!body.email) return json(res, 400, { error: 'Email is required' });
        const id = `cand_${++n}`;
        candidates.set(id, body);
        return created({ id, object: 'candidate', ...body });
      }
      if (req.method === 'POST' && path === '/v1/invitations') {
        const body = JSON.parse(raw) as Record<string, unknown>;
        if (!candidates.has(String(body.candidate_id))) return json(res, 404, { error: 'Candidate not found' });
        const id = `inv_${++n}`;
        const inv = { id, object: 'invitation', status: 'pending', invitation_url: `https://apply.checkr.test/invite/${id}`, ...body };
        invitations.set(id, inv);
        return created(inv);
      }
      const inv = /^\/v1\/invitations\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && inv) return invitations.has(inv[1]!) ? json(res, 200, invitations.get(inv[1]!)) : json(res, 404, { error: 'Not found' });
      const rep = /^\/v1\/reports\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && rep) return reports.has(rep[1]!) ? json(res, 200, reports.get(rep[1]!)) : json(res, 404, { error: 'Not found' });
      json(res, 404, { error: `fake Checkr: no route for ${req.method} ${path}` });
    });
  });
  return {
    candidates,
    invitations,
    start: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`))),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    /** The guest completes the invitation; Checkr's report is complete with this result. */
    complete(invitationId: string, result: 'clear' | 'consider') {
      const reportId = `rep_${++n}`;
      const i = invitations.get(invitationId)!;
      Object.assign(i, { status: 'completed', report_id: reportId });
      reports.set(reportId, { id: reportId, object: 'report', status: 'complete', result, adjudication: null, package: i.package, candidate_id: i.candidate_id, completed_at: '2026-06-03T12:00:00Z' });
      return reportId;
    },
    expire(invitationId: string) {
      invitations.get(invitationId)!.status = 'expired';
    },
  };
}

describe(`criminal records through Checkr in background checks (${dbKind})`, () => {
  const checkr = fakeCheckr();
  let t: TestApp;
  let host: Tenant;

  before(async () => {
    const url = await checkr.start();
    t = await createTestAppWithWorker({ GUESTSCREEN_CHECKR_URL: url, GUESTSCREEN_CHECKR_API_KEY: KEY, GUESTSCREEN_CHECKR_PACKAGE: 'tasker_standard' });
    host = await tenant(t);
  });
  after(async () => {
    await t.close();
    await checkr.stop();
  });

  const results = (id: string) => call(t, 'GET', `/v1/background-check/results/${id}`, { key: host.key });
  const criminal = (json: { report_items: { name: string; status: string; items: { title: string; subtitle?: string; description?: string }[] }[] }) =>
    json.report_items.find((s) => s.name === 'Criminal records');
  const signed = (body: string, key = KEY) => ({ 'content-type': 'application/json', 'x-checkr-signature': createHmac('sha256', key).update(body).digest('hex') });
  const submit = (body: Record<string, unknown>) => call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: host.key, body });
  const invited = async (id: string) => {
    const pending = await eventually(async () => {
      const r = await results(id);
      return r.json.report_items.length > 0 && r.json;
    }, 'the invitation');
    assert.equal(pending.status, 'PENDING');
    assert.equal(criminal(pending)?.status, 'PENDING');
    const order = await t.deps.db.selectFrom('checkr_orders').selectAll().where('check_id', '=', id).executeTakeFirstOrThrow();
    return order;
  };

  it("invites the guest through Checkr, waits, and finishes with the report when Checkr's signed webhook says so", async () => {
    const r = await submit({ first_name: 'Dana', last_name: 'Whitlock', email: 'dana@example.com', country: 'US', state: 'CA', city: 'Oakland' });
    assert.equal(r.status, 200, r.body);
    const order = await invited(r.json.id);
    assert.deepEqual(checkr.candidates.get(order.candidate_id), { first_name: 'Dana', last_name: 'Whitlock', email: 'dana@example.com', no_middle_name: true });
    const invitation = checkr.invitations.get(order.invitation_id)!;
    assert.equal(invitation.package, 'tasker_standard');
    assert.deepEqual(invitation.work_locations, [{ country: 'US', state: 'CA', city: 'Oakland' }]);
    const poll = await t.deps.db.selectFrom('jobs').select(['run_at', 'kind']).where('unique_key', '=', `checkr-poll:${r.json.id}`).executeTakeFirstOrThrow();
    assert.ok(Date.parse(poll.run_at) > Date.now() + 10 * 60_000, 'the next look is scheduled a quarter of an hour on');

    const reportId = checkr.complete(order.invitation_id, 'consider');
    const event = JSON.stringify({ id: 'evt_1', object: 'event', type: 'report.completed', data: { object: { id: reportId, object: 'report', candidate_id: order.candidate_id } } });
    const forged = await t.app.inject({ method: 'POST', url: '/webhooks/checkr', headers: signed(event, 'not-the-key'), payload: event });
    assert.equal(forged.statusCode, 401);
    assert.match(forged.json().error, /X-Checkr-Signature/);
    const hook = await t.app.inject({ method: 'POST', url: '/webhooks/checkr', headers: signed(event), payload: event });
    assert.equal(hook.statusCode, 200, hook.body);
    assert.deepEqual(hook.json(), { received: true, matched: true });

    const done = await eventually(async () => {
      const x = await results(r.json.id);
      return x.json.status === 'FINISHED' && x.json;
    }, 'the finished check');
    assert.equal(done.risk_status, 'REVIEW');
    const section = criminal(done)!;
    assert.equal(section.status, 'REVIEW');
    assert.equal(section.items[0]?.title, `Records to consider (report ${reportId})`);
    assert.equal(section.items[0]?.subtitle, 'package tasker_standard, completed 3 June 2026, 12:00 UTC');
    assert.ok(done.pdf);
    const saved = await t.deps.db.selectFrom('checkr_orders').select('report_id').where('check_id', '=', r.json.id).executeTakeFirstOrThrow();
    assert.equal(saved.report_id, reportId);
  });

  it('acknowledges an event about a candidate it does not know, and refuses one that is not signed', async () => {
    const event = JSON.stringify({ type: 'report.completed', data: { object: { id: 'rep_x', object: 'report', candidate_id: 'cand_elsewhere' } } });
    const r = await t.app.inject({ method: 'POST', url: '/webhooks/checkr', headers: signed(event), payload: event });
    assert.deepEqual([r.statusCode, r.json()], [200, { received: true, matched: false }]);
    const unsigned = await t.app.inject({ method: 'POST', url: '/webhooks/checkr', headers: { 'content-type': 'application/json' }, payload: event });
    assert.equal(unsigned.statusCode, 401);
  });

  it('finishes with criminal records not run when the invitation expires, found by the scheduled look', async () => {
    const r = await submit({ first_name: 'Quinn', last_name: 'Abara', email: 'quinn@example.com' });
    const order = await invited(r.json.id);
    assert.equal(checkr.invitations.get(order.invitation_id)!.work_locations, undefined, 'no country, no work location');
    checkr.expire(order.invitation_id);
    await runCheckr({ check_id: r.json.id, poll: true }, { deps: t.deps, db: t.deps.db, job: { attempt: 1, max_attempts: 5 } as JobRow, signal: new AbortController().signal, breathe: timeSlicer() });
    const done = (await results(r.json.id)).json;
    assert.equal(done.status, 'FINISHED');
    assert.equal(done.risk_status, 'CLEARED');
    assert.deepEqual([criminal(done)?.status, criminal(done)?.items[0]?.title], ['NOT_RUN', 'Not searched: the person did not give their consent before the invitation expired']);
    // Erasing the check erases its order.
    assert.equal((await call(t, 'DELETE', `/v1/background-check/results/${r.json.id}`, { key: host.key })).status, 200);
    assert.equal(await t.deps.db.selectFrom('checkr_orders').select('check_id').where('check_id', '=', r.json.id).executeTakeFirst(), undefined);
  });

  it('says why criminal records did not run when the check has no e-mail to invite', async () => {
    const r = await submit({ first_name: 'Ada', last_name: 'Byron' });
    const done = await eventually(async () => {
      const x = await results(r.json.id);
      return x.json.status === 'FINISHED' && x.json;
    }, 'the finished check');
    assert.deepEqual(
      [criminal(done)?.status, criminal(done)?.items[0]?.title],
      ['NOT_RUN', 'Not searched: the check was ordered without the person’s e-mail, which the criminal-records provider needs to ask for their consent'],
    );
    assert.equal(checkr.candidates.size, 2);
  });
});

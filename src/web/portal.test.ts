import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, eventually, startReceiver, tenant, type Tenant, type TestApp } from '../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
// A whole 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

type Field = string | { data: Buffer; type: string; filename: string };

describe(`guest portal pages (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  before(async () => {
    t = await createTestAppWithWorker();
    me = await tenant(t);
  });
  after(() => t.close());

  const book = async (extra: Record<string, unknown> = {}, guest: Record<string, unknown> = {}) => {
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { check_in_date: day(20), check_out_date: day(23), listing_nickname: 'Harbour Loft', guest: { first_name: 'Rita', last_name: 'Moreira', ...guest }, ...extra },
    });
    assert.equal(r.status, 200, r.body);
    return { id: r.json.id as string, path: new URL(r.json.guest_portal_url).pathname };
  };

  /** Posts a form as a browser does: multipart, files with their names and types. */
  const post = async (url: string, fields: Record<string, Field>) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) {
      if (typeof v === 'string') form.append(k, v);
      else form.append(k, new Blob([new Uint8Array(v.data)], { type: v.type }), v.filename);
    }
    const encoded = new Response(form);
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
      payload: Buffer.from(await encoded.arrayBuffer()),
    });
    return { status: res.statusCode, body: res.body, location: res.headers.location };
  };
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.body, headers: res.headers };
  };
  const api = (path: string) => call(t, 'GET', path, { key: me.key });

  const about = { first_name: 'Rita', last_name: 'Moreira', email: 'Rita.Moreira@example.pt', phone: '+351 912 345 678', action: 'save' };
  const passport = {
    document_type: 'passport',
    document_number: 'CB1234567',
    first_name: 'Rita',
    last_name: 'Moreira',
    nationality: 'PRT',
    birth_date: '1990-04-12',
    expiry_date: day(2000),
    action: 'save',
  };

  it('walks the default screens, submits, fills the booking and screens it again', async (c) => {
    const hook = await startReceiver();
    // Closed whatever happens: an open receiver would keep this file's process alive after a failure.
    c.after(() => hook.close());
    await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'guest_portal_webhook_url', webhook_url: `${hook.url}/gp` } });
    const { id, path } = await book({}, { email: 'rita.moreira@example.pt' });
    const reminder = async () => ((await api(`/v1/reservations/${id}/stargate`)).json as { tag: string; status: string }[]).find((m) => m.tag === 'reminder')?.status;
    assert.equal(await reminder(), 'queued');

    const first = await get(path);
    assert.equal(first.status, 200);
    assert.equal(first.headers['referrer-policy'], 'no-referrer');
    assert.match(first.body, /<h1>About you<\/h1>/);
    assert.match(first.body, /Step 1 of 3/);
    assert.match(first.body, /Harbour Loft/);
    assert.match(first.body, /name="first_name" value="Rita"/, 'what the booking knows is filled in');
    assert.match(first.body, /id="privacy">Your host receives what you enter here and your document, kept for them by this check-in service to check your booking, until they delete the booking\./);

    // A missing phone is named, and nothing is kept.
    const bad = await post(`${path}/step/AboutYou`, { ...about, phone: '' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /Mobile phone: this is required\./);
    assert.match(bad.body, /value="Rita.Moreira@example.pt"/, 'what was typed is kept');
    assert.equal((await api(`/v1/reservations/${id}/summary`)).json.guest_portal_status, 'NOT_STARTED');

    const saved = await post(`${path}/step/AboutYou`, about);
    assert.equal(saved.status, 303);
    assert.equal(saved.location, path);
    const progress = (await api(`/v1/reservations/${id}/summary`)).json;
    assert.equal(progress.guest_portal_status, 'IN_PROGRESS');
    assert.equal(progress.guest_portal_last_screen, 'AboutYou');

    assert.match((await get(path)).body, /<h1>Your identity document<\/h1>/);
    const expired = await post(`${path}/step/IDVerification`, { ...passport, expiry_date: '2024-02-30' });
    assert.equal(expired.status, 400);
    assert.match(expired.body, /Expiry date: enter a date as YYYY-MM-DD\./);
    assert.equal((await post(`${path}/step/IDVerification`, passport)).status, 303);
    // The host wrote no house rules: the guest is told so, and confirms the number of guests only.
    const rules = (await get(path)).body;
    assert.match(rules, /Your host has written no house rules of their own\. Please confirm only that no more guests will stay than booked\./);
    assert.match(rules, /No more guests will stay than booked\./);
    assert.doesNotMatch(rules, /Read the house rules below/);
    assert.equal((await post(`${path}/step/HouseRules`, { action: 'skip' })).status, 400, 'a required step cannot be skipped');
    assert.match((await post(`${path}/step/HouseRules`, { action: 'save' })).body, /tick the box to continue/);
    assert.equal((await post(`${path}/step/HouseRules`, { accepted: 'yes', action: 'save' })).status, 303);

    const review = await get(path);
    assert.match(review.body, /Review and submit/);
    assert.match(review.body, /About you: done/);
    assert.equal((await post(`${path}/submit`, {})).status, 303);
    assert.match((await get(path)).body, /Thank you/);
    assert.equal((await post(`${path}/submit`, {})).status, 303, 'submitting again changes nothing');
    assert.equal(await reminder(), 'canceled', 'no reminder to finish what is finished');

    const gp = (await api(`/v1/reservations/${id}/guestportal`)).json;
    assert.equal(gp.completed, true);
    assert.equal(gp.full_name, 'Rita Moreira');
    assert.equal(gp.phone, '+351 912 345 678');
    assert.equal(gp.last_step, 'HouseRules');
    assert.ok(gp.completed_at);
    assert.equal(gp.screens.IDVerification.answers.document_number, 'CB1234567');

    // The booking lacked the phone and document: the portal filled them.
    const r = (await api(`/v1/reservations/${id}`)).json;
    assert.equal(r.guest.email, 'rita.moreira@example.pt');
    assert.equal(r.guest.phone, '+351 912 345 678');
    assert.equal(r.identification.document_number, 'CB1234567');
    assert.equal(r.guest.first_name, 'Rita', 'what the PMS sent stays');

    const notes = (await api(`/v1/reservations/${id}/notes`)).json as { text: string }[];
    assert.equal(notes.filter((n) => n.text === 'The guest completed the guest portal.').length, 1);

    // Screening runs again with the portal complete: the document is checked and the rules accepted.
    // Its trigger is guest_portal, or created when the first run was still queued and the two
    // requests coalesced into one (a loaded machine), so the run is known by what it saw.
    const run = await eventually(async () => {
      const runs = (await api(`/v1/reservations/${id}/decisions`)).json as { trigger: string; checks: Record<string, { status: string }> }[];
      return runs.find((x) => x.checks.house_rules?.status === 'PASS');
    }, 'a screening run after the portal');
    assert.equal(run.checks.house_rules?.status, 'PASS');
    assert.notEqual(run.checks.identification_document?.status, 'INCOMPLETE');
    const summary = (await api(`/v1/reservations/${id}/summary`)).json;
    assert.equal(summary.guest_portal_status, 'COMPLETED');
    assert.notEqual(summary.verification_status, 'pending');

    const delivered = await eventually(async () => hook.received.find((x) => x.url === '/gp'), 'the guest-portal webhook');
    assert.equal(delivered.headers['webhook-event'] ?? JSON.parse(delivered.body).id, delivered.headers['webhook-event'] ?? id);
    const body = JSON.parse(delivered.body);
    assert.equal(body.id, id);
    assert.equal(body.completed, true);
    assert.equal(body.email, 'Rita.Moreira@example.pt');
    assert.equal(hook.received.filter((x) => x.url === '/gp').length, 1);
    await call(t, 'DELETE', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'guest_portal_webhook_url', webhook_url: `${hook.url}/gp` } });
  });

  it('asks what the settings for the source say, takes uploads encrypted, and lets optional steps be skipped', async () => {
    const set = await call(t, 'PUT', '/v1/accounts/settings/guest-portal-screens/guest_portal_screens_by_source', {
      key: me.key,
      body: {
        config_key: 'guest_portal_screens_by_source',
        config_data: [
          {
            source: 'Vrbo',
            guest_portal_screens: { AboutYou: 'disabled', IDVerification: 'disabled', HouseRules: 'disabled', FileUpload: 'required', GuestList: 'optional', TimeInfoEdit: 'optional' },
          },
        ],
      },
    });
    assert.equal(set.status, 200, set.body);
    const { id, path } = await book({ source: 'vrbo', number_of_guests: 3 });
    assert.deepEqual(
      Object.entries((await api(`/v1/reservations/${id}/screens`)).json)
        .filter(([, v]) => v !== 'disabled')
        .map(([k]) => k),
      ['FileUpload', 'GuestList', 'TimeInfoEdit'],
    );
    assert.match((await get(path)).body, /<h1>Documents<\/h1>/);

    const fake = await post(`${path}/step/FileUpload`, { action: 'save', document: { data: Buffer.from('not an image'), type: 'image/png', filename: 'id.png' } });
    assert.equal(fake.status, 400);
    assert.match(fake.body, /Document: upload a JPEG, PNG, WebP or HEIC image, or a PDF\./);
    const empty = await post(`${path}/step/FileUpload`, { action: 'save', document: { data: Buffer.alloc(0), type: 'image/png', filename: 'id.png' } });
    assert.equal(empty.status, 400, 'an empty file the guest chose is refused, not taken as a document');
    assert.match(empty.body, /Document: the file is empty or cut short\./);
    const big = await post(`${path}/step/FileUpload`, { action: 'save', document: { data: Buffer.concat([PNG, Buffer.alloc(16 * 1024 * 1024)]), type: 'image/png', filename: 'big.png' } });
    assert.equal(big.status, 413);
    assert.match(big.body, /larger than 15 MB/);
    assert.equal((await post(`${path}/step/FileUpload`, { action: 'save', document: { data: PNG, type: 'application/octet-stream', filename: 'passport scan.png' } })).status, 303);

    // Two more guests booked: the list asks for both names.
    const list = await get(path);
    assert.match(list.body, /Guest 3: full name/);
    const half = await post(`${path}/step/GuestList`, { action: 'save', guest_1_name: 'Ana Moreira' });
    assert.match(half.body, /Guest 3: full name: this is required\./);
    assert.equal((await post(`${path}/step/GuestList`, { action: 'save', guest_1_name: 'Ana Moreira', guest_2_name: 'João Moreira', guest_2_email: 'joao@example.pt' })).status, 303);
    assert.equal((await post(`${path}/step/TimeInfoEdit`, { action: 'skip' })).status, 303);
    assert.equal((await post(`${path}/submit`, {})).status, 303);

    const gp = (await api(`/v1/reservations/${id}/guestportal`)).json;
    assert.deepEqual(gp.guests, [
      { name: 'Ana Moreira', email: '' },
      { name: 'João Moreira', email: 'joao@example.pt' },
    ]);
    assert.equal(gp.screens.TimeInfoEdit.skipped, true);
    const file = gp.screens.FileUpload.answers.document;
    assert.equal(file.content_type, 'image/png', 'the bytes decide the type, not the browser');
    assert.equal(file.size, PNG.length);

    const download = await t.app.inject({ method: 'GET', url: `/v1/reservations/${id}/guestportal/files/${file.id}`, headers: { 'x-api-key': me.key } });
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-type'], 'image/png');
    assert.equal(download.headers['x-content-type-options'], 'nosniff', 'a browser may not take the file for another type');
    assert.match(String(download.headers['content-security-policy']), /sandbox/);
    assert.match(String(download.headers['content-disposition']), /passport_scan\.png/);
    assert.deepEqual(download.rawPayload, PNG);
    const other = await tenant(t);
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}/guestportal/files/${file.id}`, { key: other.key })).status, 404);

    // At rest, neither the answers nor the file are readable.
    const row = await t.deps.db.selectFrom('guest_portal_files').select('data_enc').where('id', '=', file.id).executeTakeFirstOrThrow();
    assert.equal(Buffer.from(row.data_enc).includes(PNG.subarray(0, 8)), false);
    const answers = await t.deps.db.selectFrom('guest_portal').select('answers_enc').where('reservation_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(answers.answers_enc.includes('Ana Moreira'), false);

    // Erasing the booking erases what the guest gave.
    assert.equal((await call(t, 'DELETE', `/v1/reservations/${id}`, { key: me.key })).status, 200);
    assert.equal((await t.deps.db.selectFrom('guest_portal_files').select('id').where('reservation_id', '=', id).execute()).length, 0);
    assert.equal((await t.deps.db.selectFrom('guest_portal').select('reservation_id').where('reservation_id', '=', id).execute()).length, 0);
    assert.equal((await get(path)).status, 404);
  });

  it('explains links that cannot be used, and refuses to submit before the required steps', async () => {
    const missing = await get('/gp/0000000000000000000000000000000000');
    assert.equal(missing.status, 404);
    assert.match(missing.body, /This link cannot be used/);

    const { id, path } = await book({}, { email: 'rita@example.pt' });
    const early = await post(`${path}/submit`, {});
    assert.equal(early.status, 400);
    assert.match(early.body, /Complete these steps first: About you, Your identity document and House rules\./);
    assert.equal((await get(`${path}?step=CreditCheck`)).status, 404, 'a step the settings leave out');
    assert.equal((await post(`${path}/step/Nonsense`, { action: 'save' })).status, 404);

    assert.equal((await call(t, 'PUT', `/v1/reservations/${id}`, { key: me.key, body: { status: 'CANCELED' } })).status, 200);
    const canceled = await get(path);
    assert.equal(canceled.status, 410);
    assert.match(canceled.body, /This booking was cancelled/);

    const { path: past } = await book({ check_in_date: day(-40), check_out_date: day(-35) });
    assert.equal((await get(past)).status, 410);
  });
});

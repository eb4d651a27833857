import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { faker } from '@faker-js/faker';
import sharp from 'sharp';
import { call, createTestAppWithWorker, dbKind, eventually, multipartBody, tenant, type Tenant, type TestApp, setPortalScreens } from '../../../test/harness.js';
import { generateDocuments, type GeneratedPhoto } from '../../../bench/documents/generate.js';
import { purgeDocumentPhotos } from './service.js';

describe(`identity documents read from their photos (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  let dir: string;
  let photos: GeneratedPhoto[];
  const send = async (url: string, parts: Parameters<typeof multipartBody>[0], key = me.key) => {
    const { payload, headers } = multipartBody(parts);
    const res = await t.app.inject({ method: 'POST', url, payload, headers: { ...headers, 'x-api-key': key } });
    return { status: res.statusCode, json: res.json<any>(), body: res.body }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const jpeg = (data: Buffer, name = 'front') => ({ name, filename: 'photo.jpg', type: 'image/jpeg', data });
  const count = async () =>
    Number(
      (
        await t.deps.db
          .selectFrom('identity_verifications')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  before(async () => {
    t = await createTestAppWithWorker();
    me = await tenant(t);
    dir = mkdtempSync(path.join(tmpdir(), 'documents-test-'));
    // A passport and an ID card (its back, and its front apart), photographed turned, in
    // perspective, on a table; and a passport shown on a screen, photographed.
    photos = await generateDocuments(dir, 2, 5, { screens: 1, fronts: true });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A Windows bitmap's two headers (Windows' 40-byte one), the pixels after them left to the caller. */
  const bitmap = (width: number, height: number, o: { bits: number; compression?: number; length: number }) => {
    const b = Buffer.alloc(o.length);
    b.write('BM', 0, 'latin1');
    b.writeUInt32LE(b.length, 2);
    b.writeUInt32LE(54, 10);
    b.writeUInt32LE(40, 14);
    b.writeInt32LE(width, 18);
    b.writeInt32LE(height, 22);
    b.writeUInt16LE(1, 26);
    b.writeUInt16LE(o.bits, 28);
    b.writeUInt32LE(o.compression ?? 0, 30);
    return b;
  };

  const booking = async (first: string, last: string) => {
    const r = await call(t, 'POST', '/v1/reservations?skip_gp=1', {
      key: me.key,
      body: { confirmation_code: `ID-${faker.string.alphanumeric(8)}`, check_in_date: '2027-03-01', check_out_date: '2027-03-04', guest: { first_name: first, last_name: last } },
    });
    assert.equal(r.status, 200, r.body);
    return r.json.id as string;
  };
  const finished = (id: string) =>
    eventually(
      async () => {
        const r = await call(t, 'GET', `/v1/identity-verifications/${id}`, { key: me.key });
        return r.json.status !== 'pending' && r.json;
      },
      'the reading finished',
      30_000,
    );

  it("reads a passport's zone, answers every field with its check, and screens the booking with it", async () => {
    const [passport] = photos;
    const truth = passport!.truth;
    const given = truth.givenNames.split('<')[0]!;
    const id = await booking(given, truth.surname.replace(/</g, ' '));
    const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(passport!.file))]);
    assert.equal(sent.status, 202, sent.body);
    assert.equal(sent.json.status, 'pending');
    const v = await finished(sent.json.id);
    assert.equal(v.status, 'finished');
    assert.equal(v.reservation_id, id);
    assert.deepEqual(v.document.zone, truth.lines);
    assert.equal(v.document.document_number.value, truth.documentNumber);
    assert.equal(v.document.document_number.check, 'valid');
    assert.equal(v.document.birth_date.value, truth.birthDate);
    assert.equal(v.document.expiry_date.value, truth.expiryDate);
    assert.equal(v.document.composite, 'valid');
    assert.equal(v.document.valid, true);
    assert.equal(v.document.name_confirmed, true, 'the name printed on the page is the zone’s');
    assert.deepEqual(v.problems, []);
    // The printed page, read apart from the zone, says the same name and dates.
    assert.deepEqual(v.document.printed, {
      surname: { printed: truth.surname.replace(/</g, ' ').trim(), agrees: 'same' },
      given_names: { printed: truth.givenNames.replace(/</g, ' ').trim(), agrees: 'same' },
      birth_date: 'same',
      expiry_date: 'same',
    });
    const summary = await eventually(async () => {
      const s = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
      return /read from its photo/.test(s.details?.identification_document?.value ?? '') && s;
    }, 'the booking screened with the document');
    assert.equal(summary.details.identification_document.status, 'PASS', JSON.stringify(summary.details.identification_document));
    // The screening webhook says a document was read, and nothing read from it.
    const { screeningEventBody } = await import('../screening/verdict.js');
    const { findById } = await import('../bookings/index.js');
    const body = await screeningEventBody(t.deps.db, t.deps, (await findById(t.deps.db, me.account.id, id))!);
    assert.deepEqual(body.identity_document, { verification_id: sent.json.id, valid: true });
    assert.ok(!JSON.stringify(body).includes(truth.documentNumber), 'no field read rides along');
    // The decision record keeps what the run read (sealed at rest), not the photo.
    const runs = (await call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key })).json;
    const run = runs.find((x: { trigger: string }) => x.trigger === 'document_read');
    assert.equal(run.document.verification_id, sent.json.id);
    assert.equal(run.document.read.document_number.value, truth.documentNumber);
    assert.deepEqual(run.document.problems, []);
    const stored = await t.deps.db.selectFrom('screening_runs').select('document_enc').where('reservation_id', '=', id).where('trigger', '=', 'document_read').executeTakeFirstOrThrow();
    assert.ok(stored.document_enc && !stored.document_enc.includes(truth.documentNumber), 'sealed at rest');
    // The document cut out of the photo is kept beside it, sealed, for the host's page.
    const sides = await t.deps.db.selectFrom('identity_images').select(['side', 'content_type']).where('verification_id', '=', sent.json.id).orderBy('side').execute();
    assert.deepEqual(sides, [
      { side: 'document', content_type: 'image/jpeg' },
      { side: 'front', content_type: 'image/jpeg' },
    ]);
  });

  it("says so when the document read is another person's", async () => {
    const id = await booking('Jonathan', 'Ashworth');
    const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(photos[0]!.file))]);
    assert.equal(sent.status, 202);
    await finished(sent.json.id);
    const summary = await eventually(async () => {
      const s = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
      return s.top_risks?.some((r: string) => /not the guest Jonathan Ashworth/.test(r)) && s;
    }, 'the name finding');
    assert.notEqual(summary.details.identification_document.status, 'PASS');
  });

  it('reads an ID card from its back, one-off, and keeps nothing', async () => {
    const card = photos[1]!;
    assert.equal(card.truth.format, 'TD1');
    const before = await count();
    const r = await send('/v1/identity/read', [jpeg(readFileSync(card.file), 'image')]);
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json.document.zone, card.truth.lines);
    assert.equal(r.json.document.format, 'TD1');
    assert.equal(r.json.document.valid, true);
    assert.equal(r.json.document.printed, null, "an ID card's back prints no name beside its zone");
    assert.equal(r.json.document.name_confirmed, false, 'the name was read from the zone only');
    assert.equal(await count(), before, 'neither the photo, its crop nor what was read is kept');
    assert.equal(await t.deps.db.selectFrom('identity_images').select('id').where('verification_id', '=', r.json.id).executeTakeFirst(), undefined);
    assert.equal((await call(t, 'GET', `/v1/identity-verifications/${r.json.id}`, { key: me.key })).status, 404);
  });

  it("reads an ID card's front beside the zone on its back, and the two agree", async () => {
    const card = photos[1]!;
    const given = card.truth.givenNames.split('<')[0]!;
    const id = await booking(given, card.truth.surname.replace(/</g, ' '));
    const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(card.front!)), jpeg(readFileSync(card.file), 'back')]);
    assert.equal(sent.status, 202, sent.body);
    const v = await finished(sent.json.id);
    assert.deepEqual(v.document.zone, card.truth.lines);
    // The names printed on the front are the zone's (the dates are found on most fronts, not all: bench/documents).
    assert.deepEqual(v.document.printed.surname, { printed: card.truth.surname.replace(/</g, ' ').trim(), agrees: 'same' });
    assert.deepEqual(v.document.printed.given_names, { printed: card.truth.givenNames.replace(/</g, ' ').trim(), agrees: 'same' });
    assert.equal(v.document.name_confirmed, true);
  });

  it("says the name was read from the zone only where only an ID card's back was sent, and passes the check", async () => {
    const card = photos[1]!;
    const id = await booking(card.truth.givenNames.split('<')[0]!, card.truth.surname.replace(/</g, ' '));
    const v = await finished((await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(card.file))])).json.id);
    assert.deepEqual([v.document.valid, v.document.name_confirmed], [true, false]);
    const run = await eventually(async () => {
      const runs = (await call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key })).json;
      return runs.find((x: { trigger: string }) => x.trigger === 'document_read');
    }, 'the booking screened with the card');
    const check = run.checks.identification_document;
    assert.equal(check.status, 'PASS', JSON.stringify(check));
    const note = check.findings.find((f: { code: string }) => f.code === 'id.name_zone_only');
    assert.match(note?.text ?? '', /was read from the machine-readable lines of the document only, which have no check digit for a name/);
  });

  it('answers a one-off read still going when the wait ends with 202 and where to ask, never a server error, and forgets it once answered', async () => {
    const config = t.deps.config as { identityReadWaitMs: number };
    const waited = config.identityReadWaitMs;
    // A wait far shorter than any read: the photo is merely slow.
    config.identityReadWaitMs = 150;
    const slowRead = async () => {
      // A worker still busy with the previous tests' jobs may not take it within so short a
      // wait (503: no worker got to it); one that has taken it answers 202.
      for (let attempt = 0; ; attempt++) {
        const r = await send('/v1/identity/read', [jpeg(readFileSync(photos[0]!.file), 'image')]);
        if (r.status !== 503 || attempt === 4) return r;
      }
    };
    try {
      const r = await slowRead();
      assert.equal(r.status, 202, r.body);
      assert.equal(r.json.status, 'pending');
      const res = await t.app.inject({ method: 'GET', url: `/v1/identity-verifications/${r.json.id}`, headers: { 'x-api-key': me.key } });
      assert.equal(res.statusCode, 200);
      const done = await finished(r.json.id);
      assert.deepEqual(done.document.zone, photos[0]!.truth.lines);
      // Answered once done, then forgotten: nothing of the photo or the read is kept.
      assert.equal((await call(t, 'GET', `/v1/identity-verifications/${r.json.id}`, { key: me.key })).status, 404);
      assert.equal(await t.deps.db.selectFrom('identity_images').select('id').where('verification_id', '=', r.json.id).executeTakeFirst(), undefined);
      // One its caller never comes back for is forgotten by the chore after a quarter of an hour.
      const left = await slowRead();
      assert.equal(left.status, 202, left.body);
      const { forgetOneOffReads } = await import('./service.js');
      assert.equal(await forgetOneOffReads(t.deps), 0, 'kept while its caller may ask');
      const later = { ...t.deps, clock: () => new Date(Date.now() + 16 * 60_000) };
      assert.equal(await forgetOneOffReads(later), 1);
      assert.equal((await call(t, 'GET', `/v1/identity-verifications/${left.json.id}`, { key: me.key })).status, 404);
    } finally {
      config.identityReadWaitMs = waited;
    }
  });

  it('tells a photo of a screen showing the document, and the host is told why', async () => {
    const shown = photos[2]!;
    assert.deepEqual(shown.distortions.slice(0, 1), ['screen']);
    const given = shown.truth.givenNames.split('<')[0]!;
    const id = await booking(given, shown.truth.surname.replace(/</g, ' '));
    const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(shown.file))]);
    const v = await finished(sent.json.id);
    assert.equal(v.problems[0]?.code, 'screen_photo', JSON.stringify(v.problems));
    assert.match(v.problems[0].message, /photo is of a screen showing the document: photograph the document itself/);
    const found = await eventually(async () => {
      const s = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
      const check = s.details?.identification_document;
      return check?.status !== 'INCOMPLETE' && check;
    }, 'the screening with the photo');
    assert.equal(found.status, 'REVIEW');
    assert.match(found.value, /photographed on a screen, not in hand: the photo has the colour bands a screen makes/);
    assert.match(found.help, /Ask the guest for a photo of the document itself/);
    // The documents photographed in hand are not said to be screens.
    for (const p of photos.slice(0, 2)) {
      const r = await send('/v1/identity/read', [jpeg(readFileSync(p.file), 'image')]);
      assert.ok(!r.json.problems.some((x: { code: string }) => x.code === 'screen_photo'), p.id);
    }
  });

  it('reads documents scanned flat in other print, and takes none of them for a screen', async () => {
    // White and tinted pages, full frame or on a scanner's white, coloured guilloche behind the zone, bold or small print.
    const scans = await generateDocuments(path.join(dir, 'scans'), 0, 9, { scans: 4 });
    for (const scan of scans) {
      const r = await send('/v1/identity/read', [jpeg(readFileSync(scan.file), 'image')]);
      assert.equal(r.status, 200, r.body);
      assert.deepEqual(r.json.document?.zone, scan.truth.lines, `${scan.id} [${scan.distortions.join(', ')}]`);
      assert.deepEqual(r.json.problems, [], scan.id);
    }
  });

  it('says what is wrong with a photo that shows no document', async () => {
    const table = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#8a6d4b' } })
      .jpeg()
      .toBuffer();
    const r = await send('/v1/identity/read', [jpeg(table, 'image')]);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.document, null);
    // A plain table is no document, not a blurred one.
    assert.deepEqual(
      r.json.problems.map((p: { code: string }) => p.code),
      ['no_document'],
    );
    assert.match(r.json.problems[0].message, /No passport or ID card was found in the photo/);
  });

  it('reads a photo by its bytes, not its name: a bitmap named .jpg, and a JPEG cut short as far as it goes', async () => {
    const card = photos[1]!;
    const good = readFileSync(card.file);
    // A 24-bit Windows bitmap of the same pixels, written here as any program writes one: rows
    // bottom up, blue green red, each row padded to four bytes.
    const { data: rgb, info } = await sharp(good).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const row = Math.ceil((info.width * 3) / 4) * 4;
    const bmp = bitmap(info.width, info.height, { bits: 24, length: 54 + row * info.height });
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const from = (y * info.width + x) * 3;
        const to = 54 + (info.height - 1 - y) * row + x * 3;
        bmp[to] = rgb[from + 2]!;
        bmp[to + 1] = rgb[from + 1]!;
        bmp[to + 2] = rgb[from]!;
      }
    }
    const readBitmap = await send('/v1/identity/read', [jpeg(bmp, 'image')]);
    assert.equal(readBitmap.status, 200, readBitmap.body);
    assert.deepEqual(readBitmap.json.document.zone, card.truth.lines, 'the bitmap named .jpg is read as the photo it is');
    // Without its end marker (a transfer that lost the last bytes), the JPEG reads as the whole one.
    const noEnd = await send('/v1/identity/read', [jpeg(good.subarray(0, good.lastIndexOf(Buffer.from([0xff, 0xd9]))), 'image')]);
    assert.equal(noEnd.status, 200, noEnd.body);
    assert.deepEqual(noEnd.json.document.zone, card.truth.lines);
    // Cut at half, it is read as far as it goes (the rest grey, as a viewer shows it): no refusal.
    const half = await send('/v1/identity/read', [jpeg(good.subarray(0, Math.floor(good.length / 2)), 'image')]);
    assert.equal(half.status, 200, half.body);
  });

  it('refuses what is no photo with a 4xx naming the problem, and writes nothing', async () => {
    const id = await booking('Ann', 'Example');
    const good = readFileSync(photos[0]!.file);
    const png = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    // A PNG header claiming 30000 × 30000 pixels: a decompression bomb.
    const bomb = Buffer.from(png);
    bomb.writeUInt32BE(30000, 16);
    bomb.writeUInt32BE(30000, 20);
    const gif = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#fff' } })
      .gif()
      .toBuffer();
    const cases: [string, Buffer, number, RegExp][] = [
      ['empty', Buffer.alloc(0), 400, /empty/],
      ['a PDF named .jpg', Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'.repeat(40)), 415, /PDF/],
      ['a decompression bomb', bomb, 422, /30000 × 30000 pixels/],
      // A bitmap's header asking for 24 million pixels in a file of a few bytes (a compressed one may).
      ['a bitmap of 6000 × 4000', bitmap(6000, 4000, { bits: 8, compression: 1, length: 2048 }), 422, /bitmap has 6000 × 4000 pixels/],
      // A real PNG, too small to read: it says so, with a status that means so (not "not a photo").
      [
        'a PNG of 120 × 40',
        await sharp({ create: { width: 120, height: 40, channels: 3, background: '#fff' } })
          .png()
          .toBuffer(),
        422,
        /120 × 40 pixels, too small/,
      ],
      ['a GIF', gif, 415, /GIF/],
      ['HEIC', Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic'), Buffer.alloc(600)]), 415, /HEIC.*JPEG/],
      ['16 MB', Buffer.concat([good, Buffer.alloc(16 * 1024 * 1024)]), 413, /15 MB/],
    ];
    const before = await count();
    for (const [what, data, status, message] of cases) {
      const r = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(data)]);
      assert.equal(r.status, status, `${what}: ${r.body}`);
      assert.match(r.json.error, message, what);
      const once = await send('/v1/identity/read', [jpeg(data, 'image')]);
      assert.equal(once.status, status, `${what} (one-off read): ${once.body}`);
      assert.match(once.json.error, /^image: /, 'the one-off read names its own part');
    }
    const json = await call(t, 'POST', `/v1/reservations/${id}/identity-documents`, { key: me.key, body: { front: 'x' } });
    assert.equal(json.status, 415);
    assert.match(json.json.error, /multipart\/form-data/);
    const stray = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(good, 'portrait')]);
    assert.equal(stray.status, 400);
    assert.match(stray.json.error, /portrait: unknown part/);
    assert.equal((await send('/v1/reservations/res_nope/identity-documents', [jpeg(good)])).status, 404);
    assert.equal(await count(), before, 'no refused photo left a record');
  });

  it("deletes a document's photos the account's number of days after check-out, keeps what was read, and says so in the history", async () => {
    const stay = async (checkIn: string, checkOut: string) => {
      const r = await call(t, 'POST', '/v1/reservations?skip_gp=1', {
        key: me.key,
        body: { confirmation_code: `RT-${faker.string.alphanumeric(8)}`, check_in_date: checkIn, check_out_date: checkOut, guest: { first_name: 'Ann', last_name: 'Example' } },
      });
      const sent = await send(`/v1/reservations/${r.json.id}/identity-documents`, [jpeg(readFileSync(photos[0]!.file))]);
      await finished(sent.json.id);
      return { reservation: r.json.id as string, reading: sent.json.id as string };
    };
    const settings = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: me.key, body: { document_photo_days: 10 } });
    assert.equal(settings.status, 200, settings.body);
    assert.equal(settings.json.document_photo_days, 10);
    assert.deepEqual(settings.json.accepted_documents, ['passport', 'id_card']);
    const today = t.deps.clock().toISOString().slice(0, 10);
    const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
    const old = await stay(day(-14), day(-11));
    const recent = await stay(day(-6), day(-3));
    // The worker's own hourly round may have run first (30 s after its start): the state is what counts.
    await purgeDocumentPhotos(t.deps);
    const gone = (await call(t, 'GET', `/v1/identity-verifications/${old.reading}`, { key: me.key })).json;
    assert.ok(gone.images_deleted_at, 'the photos of a stay that ended 11 days ago are gone');
    assert.equal(gone.document.valid, true, 'what was read stays');
    assert.equal(await t.deps.db.selectFrom('identity_images').select('id').where('verification_id', '=', old.reading).executeTakeFirst(), undefined);
    const notes = (await call(t, 'GET', `/v1/reservations/${old.reservation}/notes`, { key: me.key })).json;
    assert.ok(JSON.stringify(notes).includes("The identity document's photos and the guest's selfie were deleted, 10 days after check-out"), JSON.stringify(notes));
    assert.equal((await call(t, 'GET', `/v1/identity-verifications/${recent.reading}`, { key: me.key })).json.images_deleted_at, null, 'a stay that ended 3 days ago keeps them');

    // A photo the guest sent through the portal is kept twice (the portal's answer and the reading's): both go.
    const screens = { IDCollection: 'required' };
    await setPortalScreens(t, me.key, screens);
    const portalStay = await call(t, 'POST', '/v1/reservations?skip_gp=1', {
      key: me.key,
      body: { confirmation_code: `RP-${faker.string.alphanumeric(8)}`, check_in_date: day(-14), check_out_date: day(-11), guest: { first_name: 'Ann', last_name: 'Example' } },
    });
    // One truth about what the portal takes: the hint, the refusals and the API agree.
    const step = `${new URL(portalStay.json.guest_portal_url).pathname}/step/IDCollection`;
    const shown = await t.app.inject({ url: `${new URL(portalStay.json.guest_portal_url).pathname}?step=IDCollection` });
    assert.match(shown.body, /A JPEG, PNG or WebP photo, at most 15 MB\./);
    assert.doesNotMatch(shown.body, /HEIC or PDF|\D5 MB/);
    const sendPortal = (data: Buffer, filename: string) => {
      const f = multipartBody([{ name: 'document_front', filename, type: 'application/octet-stream', data }]);
      return t.app.inject({ method: 'POST', url: step, payload: f.payload, headers: f.headers });
    };
    const pdf = await sendPortal(Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'.repeat(40)), 'scan.pdf');
    assert.equal(pdf.statusCode, 415);
    assert.match(pdf.body, /Send a JPEG, PNG or WebP photo/);
    const tiny = await sendPortal(
      await sharp({ create: { width: 120, height: 40, channels: 3, background: '#fff' } })
        .png()
        .toBuffer(),
      'thumb.png',
    );
    assert.equal(tiny.statusCode, 422);
    assert.match(tiny.body, /This photo is too small to read/);
    const form = multipartBody([{ name: 'document_front', filename: 'passport.jpg', type: 'image/jpeg', data: readFileSync(photos[0]!.file) }]);
    const posted = await t.app.inject({ method: 'POST', url: step, payload: form.payload, headers: form.headers });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.match(String(posted.headers.location), /\/reading$/, 'the guest is sent to the reading of the photo');
    const portalFiles = () => t.deps.db.selectFrom('guest_portal_files').select('id').where('reservation_id', '=', portalStay.json.id).where('screen', '=', 'IDCollection').execute();
    assert.equal((await portalFiles()).length, 1, 'the upload is kept as the answer');
    const reading = await eventually(
      () => t.deps.db.selectFrom('identity_verifications').select(['id', 'status']).where('reservation_id', '=', portalStay.json.id).where('status', '!=', 'pending').executeTakeFirst(),
      'the portal photo was read',
      30_000,
    );
    await purgeDocumentPhotos(t.deps);
    assert.equal((await portalFiles()).length, 0, "the portal's copy is deleted with the reading's");
    assert.ok((await call(t, 'GET', `/v1/identity-verifications/${reading.id}`, { key: me.key })).json.images_deleted_at);
    await setPortalScreens(t, me.key, {});
    await call(t, 'PUT', '/v1/accounts/screening-settings', { key: me.key, body: { document_photo_days: 30 } });
  });

  it("keeps one account's readings from another", async () => {
    const id = await booking('Ann', 'Example');
    const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(photos[0]!.file))]);
    const other = await tenant(t);
    assert.equal((await call(t, 'GET', `/v1/identity-verifications/${sent.json.id}`, { key: other.key })).status, 404);
    assert.equal((await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(photos[0]!.file))], other.key)).status, 404);
    await finished(sent.json.id);
  });

  describe("the guest's selfie against the document's portrait", () => {
    // Public-domain portraits (test/fixtures/faces/SOURCES.md).
    const collins = readFileSync(new URL('../../../test/fixtures/faces/collins.jpg', import.meta.url));
    const hopper = readFileSync(new URL('../../../test/fixtures/faces/hopper.jpg', import.meta.url));
    let passport: GeneratedPhoto;
    before(async () => {
      passport = (await generateDocuments(path.join(dir, 'portraits'), 1, 5, { portraits: [collins] }))[0]!;
    });
    /** The camera's frames of a photo held still before it: a little larger and smaller, never turning or blinking. */
    const still = () => Promise.all([480, 460, 500].map((width) => sharp(collins).resize(width).jpeg().toBuffer()));

    it('compares them in the same job as the reading, in words, with each liveness signal for what it shows', async () => {
      const truth = passport.truth;
      const id = await booking(truth.givenNames.split('<')[0]!, truth.surname.replace(/</g, ' '));
      const frames = await still();
      const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(passport.file)), jpeg(collins, 'selfie'), ...frames.map((f) => jpeg(f, 'selfie_frames'))]);
      assert.equal(sent.status, 202, sent.body);
      const v = await finished(sent.json.id);
      assert.equal(v.document.valid, true);
      assert.equal(v.face.status, 'finished');
      assert.equal(v.face.verdict, 'same_person');
      assert.equal(v.face.words, 'very likely the same person');
      assert.ok(v.face.similarity > v.face.threshold);
      const signals = Object.fromEntries(v.liveness.signals.map((s: { code: string; result: string }) => [s.code, s.result]));
      // Frames of a still photo: no head turn, no blink.
      assert.deepEqual(signals, { one_face: 'passed', not_the_document: 'passed', head_turn: 'failed', blink: 'failed', screen: 'passed' });
      assert.equal(v.liveness.frames, 3);
      assert.match(v.liveness.words, /not proof/);
      assert.match(v.liveness.signals.find((s: { code: string }) => s.code === 'head_turn').message, /did not turn/);

      // What is kept: the verdict and the signals, sealed; never a face's descriptor.
      const row = await t.deps.db.selectFrom('identity_verifications').select(['face_enc', 'account_id']).where('id', '=', sent.json.id).executeTakeFirstOrThrow();
      const kept = t.deps.secrets.open(row.face_enc!, `identity_face:${row.account_id}:${sent.json.id}`);
      assert.doesNotMatch(kept, /descriptor/);
      assert.ok(kept.length < 2000);
    });

    it("compares the selfie with an ID card's front, and says the portrait is missing when only its back was sent", async () => {
      const card = (await generateDocuments(path.join(dir, 'card-portrait'), 2, 6, { portraits: [collins, collins], fronts: true }))[1]!;
      assert.equal(card.truth.format, 'TD1');
      const id = await booking(card.truth.givenNames.split('<')[0]!, card.truth.surname.replace(/</g, ' '));
      // The back alone, sent as the one photo a passport would be.
      const backOnly = await finished((await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(card.file)), jpeg(collins, 'selfie')])).json.id);
      assert.deepEqual(backOnly.document.zone, card.truth.lines);
      assert.equal(backOnly.face.verdict, 'cannot_tell');
      assert.match(backOnly.face.words, /only the back of the ID card was sent, and it has no portrait/);
      assert.equal(backOnly.face.reasons[0].code, 'no_document_face');
      assert.match(backOnly.face.reasons[0].message, /Only the back of the ID card was sent/);
      const both = await finished((await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(card.front!)), jpeg(readFileSync(card.file), 'back'), jpeg(collins, 'selfie')])).json.id);
      assert.equal(both.face.verdict, 'same_person', JSON.stringify(both.face));
    });

    /** A booking in the name on the document, so that what the selfie adds is what the screening says first. */
    const itsBooking = () => booking(passport.truth.givenNames.split('<')[0]!, passport.truth.surname.replace(/</g, ' '));

    it('tells a selfie that is the document held up to the camera', async () => {
      const id = await itsBooking();
      const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(passport.file)), jpeg(readFileSync(passport.file), 'selfie')]);
      const v = await finished(sent.json.id);
      const copy = v.liveness.signals.find((s: { code: string }) => s.code === 'not_the_document');
      assert.equal(copy.result, 'failed');
      assert.match(copy.message, /held up to the camera/);
      const summary = await eventually(async () => {
        const s = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
        return s.details?.identification_document?.status === 'FAIL' && s;
      }, 'the booking screened with the selfie');
      assert.equal(summary.details.identification_document.value, 'The selfie looks like the document held up to the camera, not the guest’s own face');
    });

    it("says another person's selfie is not the document's, and a selfie alone cannot be sent", async () => {
      const id = await itsBooking();
      const sent = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(passport.file)), jpeg(hopper, 'selfie')]);
      const v = await finished(sent.json.id);
      assert.notEqual(v.face.verdict, 'same_person');
      assert.ok(v.face.similarity < v.face.threshold);
      assert.equal(v.liveness.signals.find((s: { code: string }) => s.code === 'not_the_document').result, 'passed');
      assert.equal(v.liveness.signals.find((s: { code: string }) => s.code === 'head_turn').result, 'not_checked');
      // What the selfie adds is said in the host's words.
      const summary = await eventually(async () => {
        const s = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
        return /selfie/.test(s.details?.identification_document?.value ?? '') && s;
      }, 'the booking screened with the selfie');
      assert.notEqual(summary.details.identification_document.status, 'PASS');
      assert.match(summary.details.identification_document.value, /^(The guest’s selfie is not the person on the document|Whether the guest’s selfie is the person on the document cannot be told)/);

      const before = await count();
      const alone = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(hopper, 'selfie')]);
      assert.equal(alone.status, 400);
      assert.match(alone.json.error, /^front: /);
      const frames = await send(`/v1/reservations/${id}/identity-documents`, [jpeg(readFileSync(passport.file)), jpeg(hopper, 'selfie_frames')]);
      assert.equal(frames.status, 400);
      assert.match(frames.json.error, /^selfie: /);
      const text = await send(`/v1/reservations/${id}/identity-documents`, [
        jpeg(readFileSync(passport.file)),
        { name: 'selfie', filename: 'me.txt', type: 'text/plain', data: Buffer.from('hello\u0000') },
      ]);
      assert.equal(text.status, 415);
      assert.match(text.json.error, /^selfie: /);
      assert.equal(await count(), before);
    });

    it('compares two photos one-off, answers the same person or not with the threshold, and keeps nothing', async () => {
      const before = await count();
      const turned = await sharp(collins).rotate(15, { background: '#777' }).resize(560).modulate({ brightness: 0.85 }).jpeg({ quality: 65 }).toBuffer();
      const same = await send('/v1/identity/compare', [jpeg(collins, 'image_a'), jpeg(turned, 'image_b')]);
      assert.equal(same.status, 200, same.body);
      assert.equal(same.json.same_person, true);
      assert.equal(same.json.words, 'very likely the same person');
      assert.ok(same.json.similarity > same.json.threshold);
      const other = await send('/v1/identity/compare', [jpeg(collins, 'image_a'), jpeg(hopper, 'image_b')]);
      assert.equal(other.status, 200);
      assert.notEqual(other.json.same_person, true);
      const blank = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#c8b9a5' } })
        .jpeg()
        .toBuffer();
      const none = await send('/v1/identity/compare', [jpeg(collins, 'image_a'), jpeg(blank, 'image_b')]);
      assert.equal(none.json.same_person, null);
      assert.deepEqual(
        none.json.reasons.map((r: { code: string; image: string }) => `${r.image}:${r.code}`),
        ['image_b:no_face'],
      );
      const missing = await send('/v1/identity/compare', [jpeg(collins, 'image_a')]);
      assert.equal(missing.status, 400);
      assert.match(missing.json.error, /^image_b: /);
      const pdf = await send('/v1/identity/compare', [jpeg(collins, 'image_a'), { name: 'image_b', filename: 'b.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.4\n') }]);
      assert.equal(pdf.status, 415);
      assert.match(pdf.json.error, /^image_b: /);
      assert.equal(await count(), before);
    });
  });
});

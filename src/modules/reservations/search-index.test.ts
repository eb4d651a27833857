import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { withTx } from '../../db/connection.js';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { createReservation } from './service.js';

// On SQLite the full-text index is written once per transaction, right before its commit
// (migration 0008): these are the ways a write reaches it, each checked through search.
describe(`text search follows every write (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;

  before(async () => {
    t = await createTestApp();
    me = await tenant(t);
  });
  after(() => t.close());

  const found = async (term: string) => {
    const r = await call(t, 'GET', `/v1/reservations?search=${encodeURIComponent(term)}&size=100`, { key: me.key });
    assert.equal(r.status, 200);
    return (r.json.items as { id: string }[]).map((i) => i.id).sort();
  };
  const input = (code: string, first: string, last: string) => ({
    confirmation_code: code,
    check_in_date: '2027-03-01',
    check_out_date: '2027-03-04',
    guest: { first_name: first, last_name: last, email: `${code.toLowerCase()}@example.com` },
  });
  const create = async (code: string, first: string, last: string) => {
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: input(code, first, last),
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return r.json.id as string;
  };

  it('finds reservations created together in one group commit, and after an update only by the new name', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => create(`SIX-${i}`, 'Ottoline', `Quibble${i}`)));
    assert.deepEqual(await found('ottoli'), [...ids].sort());
    const renamed = ids.slice(0, 5);
    // Updates and creates in flight together: some land in the same transaction as others' creates.
    const [fresh] = await Promise.all([
      create('SIX-NEW', 'Ottoline', 'Newcomer'),
      ...renamed.map(async (id) => assert.equal((await call(t, 'PUT', `/v1/reservations/${id}`, { key: me.key, body: { guest: { first_name: 'Wilhelmina' } } })).status, 200)),
    ]);
    assert.deepEqual(await found('wilhelm'), [...renamed].sort());
    assert.deepEqual(await found('ottoli'), [...ids.slice(5), fresh].sort());
    assert.deepEqual(await found('quibble3'), [ids[3]]);
  });

  it('finds a reservation created and renamed in the same transaction by its last name only', async () => {
    const id = await withTx(t.deps.db, async (tx) => {
      const r = await createReservation({ ...t.deps, db: tx }, me.account, input('SAME-TX', 'Bartholomew', 'Firstname'));
      await tx.updateTable('reservations').set({ guest_full_name: 'Bartholomew Secondname' }).where('id', '=', r.id).execute();
      return r.id;
    });
    assert.deepEqual(await found('secondna'), [id]);
    assert.deepEqual(await found('firstna'), []);
  });

  it('finds a name written outside any transaction', async () => {
    const id = await create('NO-TX', 'Cornelius', 'Plain');
    await t.deps.db.updateTable('reservations').set({ guest_full_name: 'Cornelius Autocommit' }).where('id', '=', id).execute();
    assert.deepEqual(await found('autocomm'), [id]);
    assert.deepEqual(await found('plain'), []);
  });

  it('leaves nothing behind for a transaction that rolled back', async () => {
    await assert.rejects(
      withTx(t.deps.db, async (tx) => {
        await tx.updateTable('reservations').set({ guest_full_name: 'Rolled Back' }).where('confirmation_code', '=', 'NO-TX').execute();
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.deepEqual(await found('rolled'), []);
    assert.equal((await found('autocomm')).length, 1);
    if (dbKind === 'sqlite') {
      const stale = await sql<{ n: number }>`select count(*) as n from reservations_fts_stale`.execute(t.deps.db);
      assert.equal(stale.rows[0]!.n, 0);
    }
  });

  it('moves a reservation in the text search order when its check-in date changes, and finds it once', async () => {
    const early = await create('MOVE-1', 'Evangeline', 'Early');
    const later = await create('MOVE-2', 'Evangeline', 'Later');
    const order = async () => {
      const r = await call(t, 'GET', '/v1/reservations?search=evangeline', { key: me.key });
      return (r.json.items as { id: string }[]).map((i) => i.id);
    };
    assert.deepEqual(new Set(await order()), new Set([early, later]));
    const moved = await call(t, 'PUT', `/v1/reservations/${early}`, { key: me.key, body: { check_in_date: '2027-09-01', check_out_date: '2027-09-03' } });
    assert.equal(moved.status, 200, JSON.stringify(moved.json));
    assert.deepEqual(await order(), [early, later]);
    await withTx(t.deps.db, async (tx) => {
      // Moved twice and renamed in one transaction, then erased in the next: nothing is left behind.
      await tx.updateTable('reservations').set({ check_in_date: '2026-01-05' }).where('id', '=', early).execute();
      await tx.updateTable('reservations').set({ check_in_date: '2026-01-06', guest_full_name: 'Evangeline Moved' }).where('id', '=', early).execute();
    });
    assert.deepEqual(await order(), [later, early]);
    assert.equal((await call(t, 'DELETE', `/v1/reservations/${early}`, { key: me.key })).status, 200);
    assert.deepEqual(await order(), [later]);
    if (dbKind === 'sqlite') {
      const left = await sql<{ n: number }>`select count(*) as n from reservations_fts where reservations_fts match '"evangeline"'`.execute(t.deps.db);
      assert.equal(left.rows[0]!.n, 1);
    }
  });

  it('orders one check-in day by id even where ids and rows were made in the opposite order (an import)', async () => {
    // Rows made later with smaller ids: the index holds a day's rows by row, the answer is by id.
    // Twelve in one day: more than a page and the keys read past it, so the rest of the day is read.
    const ids = [...'lkjihgfedcba'].map((c) => `res_0search0order0${c}`);
    for (const [i, id] of ids.entries()) {
      await sql`insert into reservations (id, account_id, pms, confirmation_code, status, guest_full_name, check_in_date, gp_token, guestportal_completed, verification_status, created_at, updated_at)
        values (${id}, ${me.account.id}, 'import', ${`IMPORT-${i}`}, 'CONFIRMED', 'Philippa Imported', '2027-05-05', ${`gpt_import_${i}`}, ${dbKind === 'sqlite' ? 0 : false}, 'pending', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(
        t.deps.db,
      );
    }
    const pages: string[] = [];
    for (let from = 0; from < 12; from += 2) {
      const r = await call(t, 'GET', `/v1/reservations?search=philippa&from=${from}&size=2`, { key: me.key });
      assert.equal(r.status, 200, r.body);
      assert.equal(r.json.total, 12);
      pages.push(...r.json.items.map((i: { id: string }) => i.id));
    }
    assert.deepEqual(pages, ids);
  });

  it('finds the same after its index is merged in steps, and a merged index is left alone', async () => {
    // Each create commits on its own: a segment of the index each, until FTS5 merges them.
    for (let i = 0; i < 12; i++) await create(`MERGE-${i}`, 'Leopoldine', `Segment${i}`);
    const beforeMerge = await found('leopoldine');
    assert.equal(beforeMerge.length, 12);
    const steps = await t.deps.dialect.compactSearchIndex(t.deps.db, { minSegments: 2, pages: 1, pauseMs: 0 });
    if (dbKind === 'sqlite') {
      assert.ok(steps > 1, `merged in steps (${steps})`);
      const segments = await sql<{ n: number }>`select count(distinct segid) as n from reservations_fts_idx`.execute(t.deps.db);
      assert.equal(segments.rows[0]!.n, 1);
    } else {
      assert.equal(steps, 0, 'PostgreSQL has nothing to merge');
    }
    assert.deepEqual(await found('leopoldine'), beforeMerge);
    assert.equal((await found('segment7')).length, 1);
    assert.equal(await t.deps.dialect.compactSearchIndex(t.deps.db, { minSegments: 2 }), 0);
  });

  it('forgets an erased reservation, whether it was indexed already or not', async () => {
    const id = await create('ERASE-1', 'Desdemona', 'Gone');
    assert.equal((await call(t, 'DELETE', `/v1/reservations/${id}`, { key: me.key })).status, 200);
    assert.deepEqual(await found('desdemo'), []);
    await withTx(t.deps.db, async (tx) => {
      const r = await createReservation({ ...t.deps, db: tx }, me.account, input('ERASE-2', 'Desdemona', 'Twice'));
      await tx.deleteFrom('reservations').where('id', '=', r.id).execute();
    });
    assert.deepEqual(await found('desdemo'), []);
  });
});

// The full-text index keys rows by account and check-in day while seq and the account's number
// fit their bits (SEARCH_KEY in dialect.ts); a row past them is keyed by seq alone and text
// search goes the general way for everyone, finding it and the rest.
describe("text search past the index keys' bounds (sqlite)", { skip: dbKind !== 'sqlite' && 'SQLite only' }, () => {
  let t: TestApp;
  let me: Tenant;
  before(async () => {
    t = await createTestApp();
    me = await tenant(t);
  });
  after(() => t.close());

  it('finds a reservation whose row number is past 2^27 and the ones before it, in order', async () => {
    const post = async (code: string, checkIn: string) => {
      const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { confirmation_code: code, check_in_date: checkIn, guest: { first_name: 'Perpetua', last_name: code } } });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      return r.json.id as string;
    };
    const before = await post('BOUND-1', '2027-01-01');
    await sql`update sqlite_sequence set seq = 134217727 where name = 'reservations'`.execute(t.deps.db);
    const past = await post('BOUND-2', '2027-06-01');
    const seq = await sql<{ seq: number }>`select seq from reservations where id = ${past}`.execute(t.deps.db);
    assert.equal(seq.rows[0]!.seq, 134217728);
    const r = await call(t, 'GET', '/v1/reservations?search=perpetua', { key: me.key });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.total, 2);
    assert.deepEqual(
      r.json.items.map((i: { id: string }) => i.id),
      [past, before],
    );
    assert.equal((await call(t, 'DELETE', `/v1/reservations/${past}`, { key: me.key })).status, 200);
    const after = await call(t, 'GET', '/v1/reservations?search=perpetua', { key: me.key });
    assert.deepEqual(
      after.json.items.map((i: { id: string }) => i.id),
      [before],
    );
  });
});

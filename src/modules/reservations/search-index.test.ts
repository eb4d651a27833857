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

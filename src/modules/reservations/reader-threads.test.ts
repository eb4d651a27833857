import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { searchReservations } from '../bookings/index.js';
import { withTx } from '../../db/connection.js';
import { readersOf, SqliteReaders } from '../../db/sqlite/readers.js';

describe('reader threads for SQLite searches', { skip: dbKind !== 'sqlite' && 'SQLite only' }, () => {
  let t: TestApp;
  let me: Tenant;
  let file: string;

  before(async () => {
    t = await createTestApp({ GUESTSCREEN_SQLITE_READERS: '2' });
    me = await tenant(t);
    file = path.join(t.env.GUESTSCREEN_DATA_DIR!, 'guestscreen.db');
  });
  after(() => t.close());

  const create = async (last: string, status = 'CONFIRMED') => {
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { status, check_in_date: '2027-03-01', guest: { first_name: 'Ada', last_name: last } } });
    assert.equal(r.status, 200, r.body);
    return r.json.id as string;
  };

  it('answers a search from a reader thread and finds a reservation acknowledged just before it', async () => {
    const readers = readersOf(t.deps.db)!;
    assert.ok(readers, 'the service opened reader threads');
    let asked = 0;
    const run = readers.run.bind(readers);
    const procedure = readers.call.bind(readers);
    readers.run = (queries) => (asked++, run(queries));
    readers.call = (name, args) => (asked++, procedure(name, args));
    try {
      for (const name of ['Quillfeather', 'Quillon', 'Brightwater']) {
        const id = await create(name);
        const r = await call(t, 'GET', `/v1/reservations?search=${name.slice(0, 5)}`, { key: me.key });
        assert.equal(r.status, 200, r.body);
        assert.ok(
          r.json.items.some((x: { id: string }) => x.id === id),
          `${name} found right after its create`,
        );
      }
      const both = await call(t, 'GET', '/v1/reservations?search=quill&size=1', { key: me.key });
      assert.equal(both.json.total, 2);
      assert.equal(both.json.items.length, 1);
      const filtered = await call(t, 'GET', '/v1/reservations?status=CONFIRMED&startDate=2027-03-01&endDate=2027-03-01', { key: me.key });
      assert.equal(filtered.json.total, 3);
      assert.equal(asked, 5);
    } finally {
      readers.run = run;
      readers.call = procedure;
    }
  });

  it('reads inside a transaction on its connection: they see its own uncommitted writes, the readers do not', async () => {
    const id = await create('Uncommitted', 'INQUIRY');
    const filters = { status: 'CANCELED', dateField: 'check_in_date', offset: 0, limit: 20 } as const;
    let before = -1;
    await withTx(t.deps.db, async (tx) => {
      assert.equal(readersOf(tx), undefined);
      await tx.updateTable('reservations').set({ status: 'CANCELED' }).where('id', '=', id).execute();
      const inside = await searchReservations(tx, 'sqlite', me.account.id, filters);
      assert.deepEqual(
        inside.rows.map((r) => r.id),
        [id],
      );
      before = (await searchReservations(t.deps.db, 'sqlite', me.account.id, filters)).total;
      // A text search in steps (db/sqlite/procedures.ts) runs each step on the transaction's connection.
      const text = await searchReservations(tx, 'sqlite', me.account.id, { text: 'uncommitted', dateField: 'check_in_date', offset: 0, limit: 20 });
      assert.deepEqual([text.total, text.rows.map((r) => r.id)], [1, [id]]);
    });
    assert.equal(before, 0, 'a reader does not see what is not committed');
    assert.equal((await searchReservations(t.deps.db, 'sqlite', me.account.id, filters)).total, 1);
  });

  it('fails a query with SQLite’s own message and keeps answering', async () => {
    const readers = new SqliteReaders(file, 1);
    try {
      await assert.rejects(readers.run([{ sql: 'select * from no_such_table', parameters: [] }]), /no such table: no_such_table/);
      await assert.rejects(readers.run([{ sql: 'delete from reservations', parameters: [] }]), /only runs statements that return rows/);
      const [rows] = await readers.run([{ sql: 'select count(*) as n from reservations where status = ?', parameters: ['CONFIRMED'] }]);
      assert.deepEqual(rows, [{ n: 3 }]);
    } finally {
      await readers.close();
    }
  });

  it('fails what a dead thread was answering, not hangs, and answers the next read from a new thread', async () => {
    const readers = new SqliteReaders(file, 1);
    try {
      const slow = readers.run([{ sql: 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 50000000) select count(*) from c', parameters: [] }]);
      const threads = (readers as unknown as { readers: { worker: { terminate(): Promise<number> } }[] }).readers;
      await threads[0]!.worker.terminate();
      await assert.rejects(slow, /a reader thread stopped/);
      const [rows] = await readers.run([{ sql: 'select 41 + 1 as n', parameters: [] }]);
      assert.deepEqual(rows, [{ n: 42 }]);
    } finally {
      await readers.close();
    }
    await assert.rejects(readers.run([{ sql: 'select 1', parameters: [] }]), /closed/);
  });
});

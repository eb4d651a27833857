import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestApp, dbKind, type TestApp } from '../../test/harness.js';

describe(`database connection (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('keeps answering a prepared select * after another process adds a column to its table', async () => {
    const read = () => t.deps.db.selectFrom('rules').selectAll().where('account_id', '=', t.root.account.id).execute();
    for (let i = 0; i < 3; i++) assert.deepEqual(await read(), []);
    // As a rolling deploy would: the new version migrates while this process keeps running.
    if (t.deps.dialect.kind === 'postgres') {
      const other = new pg.Client({ connectionString: t.env.DATABASE_URL });
      await other.connect();
      await other.query('alter table rules add column later_added text');
      await other.end();
    } else {
      await t.deps.db.schema.alterTable('rules').addColumn('later_added', 'text').execute();
    }
    for (let i = 0; i < 3; i++) assert.deepEqual(await read(), []);
  });

  it('parses every column of a named statement, and follows its table when columns are added', { skip: dbKind !== 'postgres' }, async () => {
    const db = t.deps.db;
    await sql`create table shape_probe (id integer primary key, amount bigint, flag boolean, at timestamptz, note text)`.execute(db);
    await sql`insert into shape_probe values (1, 9007199254740993, true, '2026-11-23T10:00:00Z', null), (2, 5, false, null, 'b')`.execute(db);
    // Several at once, so that several pooled connections prepare the statement.
    const read = (id: number) => sql<Record<string, unknown>>`select * from shape_probe where id = ${id}`.execute(db).then((r) => r.rows[0]);
    for (let round = 0; round < 2; round++) {
      const [one, two] = await Promise.all([read(1), read(2), read(1), read(2)]);
      assert.deepEqual(one, { id: 1, amount: '9007199254740993', flag: true, at: new Date('2026-11-23T10:00:00Z'), note: null });
      assert.deepEqual(two, { id: 2, amount: '5', flag: false, at: null, note: 'b' });
    }
    const other = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await other.connect();
    await other.query(`alter table shape_probe add column later_added text default 'x'`);
    await other.end();
    // More at once than connections prepared it before: new ones prepare the statement anew,
    // under the same name, with the added column.
    for (let round = 0; round < 2; round++) {
      const rows = await Promise.all(Array.from({ length: 10 }, (_, i) => read(1 + (i % 2))));
      for (const row of rows) assert.equal(row?.later_added, 'x');
      assert.equal(rows[0]?.flag, true);
      assert.equal(rows[1]?.note, 'b');
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
});

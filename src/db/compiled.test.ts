import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, dbKind, tenant, type TestApp } from '../../test/harness.js';
import type { Db } from './connection.js';
import { withTx } from './connection.js';
import { byShape, compiledOnce, insertRows } from './compiled.js';

describe(`queries compiled once (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('runs with each call its own values, in their places, next to the values the query fixed', async () => {
    const a = await tenant(t, { name: 'Alpha Stays' });
    const b = await tenant(t, { name: 'Beta Stays' });
    // The argument comes second in the SQL's parameters, after a value the builder fixed.
    const byName = compiledOnce((db: Db, name: string) => db.selectFrom('accounts').select(['id', 'name']).where('is_active', '=', true).where('name', '=', name));
    assert.deepEqual(await byName(t.deps.db, 'Alpha Stays'), [{ id: a.account.id, name: 'Alpha Stays' }]);
    assert.deepEqual(await byName(t.deps.db, 'Beta Stays'), [{ id: b.account.id, name: 'Beta Stays' }]);
    assert.deepEqual(await byName(t.deps.db, 'Nobody'), []);
  });

  it('refuses a query that does not use each argument as a value', async () => {
    const transformed = compiledOnce((db: Db, name: string) => db.selectFrom('accounts').select('id').where('name', '=', name.toUpperCase()));
    await assert.rejects(transformed(t.deps.db, 'x'), /uses 0 of its 1 arguments as values/);
  });

  it('runs queries compiled once per shape with each call its own values by name, in a transaction too', async () => {
    const a = await tenant(t, { name: 'Gamma Stays' });
    const b = await tenant(t, { name: 'Delta Stays' });
    const names = (db: Db, list: string[]) => {
      const values = Object.fromEntries(list.map((n, i) => [`n${i}`, n]));
      const [q] = byShape(db, `test-names:${list.length}`, values, (v) => [
        db
          .selectFrom('accounts')
          .select('id')
          .where('is_active', '=', true)
          .where(
            'name',
            'in',
            list.map((_, i) => v(`n${i}`)),
          )
          .orderBy('id'),
      ]);
      return db.executeQuery(q!.compile()).then((r) => r.rows.map((row) => (row as { id: string }).id));
    };
    assert.deepEqual(await names(t.deps.db, ['Gamma Stays']), [a.account.id]);
    assert.deepEqual(await names(t.deps.db, ['Delta Stays']), [b.account.id]);
    assert.deepEqual(await withTx(t.deps.db, (tx) => names(tx, ['Gamma Stays', 'Delta Stays'])), [a.account.id, b.account.id].sort());
    // A value the queries leave out, or transform, is refused the first time the shape is built.
    assert.throws(() => byShape(t.deps.db, 'test-unused', { x: 1 }, () => [t.deps.db.selectFrom('accounts').select('id')]), /do not use exactly its values/);
  });

  it('inserts rows of each shape with their own values, in a transaction too, and ignores conflicts when asked', async () => {
    const now = new Date().toISOString();
    const job = (id: string, extra: { unique_key?: string; last_error?: string } = {}) => ({
      id,
      kind: 'webhook.deliver',
      payload: '{}',
      state: 'available',
      attempt: 0,
      max_attempts: 3,
      run_at: now,
      created_at: now,
      updated_at: now,
      ...extra,
    });
    assert.equal(await insertRows(t.deps.db, 'jobs', [job('job_ir_1'), job('job_ir_2')]), 2);
    // Another shape (one column more) and another number of rows, inside a transaction.
    assert.equal(await withTx(t.deps.db, (tx) => insertRows(tx, 'jobs', [job('job_ir_3', { last_error: 'x' })])), 1);
    assert.equal(await insertRows(t.deps.db, 'jobs', [job('job_ir_4', { unique_key: 'ir' })], { ignoreConflicts: true }), 1);
    assert.equal(await insertRows(t.deps.db, 'jobs', [job('job_ir_5', { unique_key: 'ir' })], { ignoreConflicts: true }), 0);
    await assert.rejects(insertRows(t.deps.db, 'jobs', [job('job_ir_1')]), (err: { code?: string }) => /CONSTRAINT|23505/.test(String(err.code)));
    const rows = await t.deps.db.selectFrom('jobs').select(['id', 'last_error', 'unique_key']).where('id', 'like', 'job_ir_%').orderBy('id').execute();
    assert.deepEqual(rows, [
      { id: 'job_ir_1', last_error: null, unique_key: null },
      { id: 'job_ir_2', last_error: null, unique_key: null },
      { id: 'job_ir_3', last_error: 'x', unique_key: null },
      { id: 'job_ir_4', last_error: null, unique_key: 'ir' },
    ]);
  });

  it('refuses rows whose columns differ', async () => {
    const now = new Date().toISOString();
    const base = { kind: 'webhook.deliver', payload: '{}', state: 'available', attempt: 0, max_attempts: 3, run_at: now, created_at: now, updated_at: now };
    await assert.rejects(
      insertRows(t.deps.db, 'jobs', [
        { id: 'job_ir_6', ...base },
        { id: 'job_ir_7', ...base, last_error: 'x' },
      ]),
      /same columns/,
    );
  });
});

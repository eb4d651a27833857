import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, dbKind, tenant, type TestApp } from '../../test/harness.js';
import type { Db } from './connection.js';
import { compiledOnce } from './compiled.js';

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
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { createTestApp, databaseUrl, dbKind } from '../../test/harness.js';

describe(`migrations (${dbKind})`, () => {
  // Kysely's own introspection named every table of every schema, and failed when another
  // session dropped a schema meanwhile (a flaky CI run on PostgreSQL, where each test file drops
  // its schema as others migrate theirs).
  it('migrates a new schema while other sessions create and drop theirs', { skip: !databaseUrl }, async () => {
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    let stop = false;
    let dropped = 0;
    const churn = (async () => {
      for (let i = 0; !stop; i++) {
        const name = `churn_${process.pid}_${i}`;
        await admin.query(`create schema ${name}; create table ${name}.a (id serial primary key, x text, y text); create table ${name}.b (id serial primary key)`);
        await admin.query(`drop schema ${name} cascade`);
        dropped++;
      }
    })();
    const failures: string[] = [];
    try {
      for (let made = 0; made < 6; made++) {
        try {
          const t = await createTestApp();
          await t.close();
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    } finally {
      stop = true;
      await churn;
      await admin.end();
    }
    assert.ok(dropped > 10, `schemas were dropped meanwhile (${dropped})`);
    assert.deepEqual(failures, []);
  });
});

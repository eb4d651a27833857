import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { dbKind } from '../../../test/harness.js';
import { withTx } from '../connection.js';
import type { DatabaseHandle, Tx } from '../types.js';
import { openSqliteFile } from './driver.js';
import { openSqlite, WriteBatcher } from './open.js';

const rowsIn = (file: string) => {
  const db = openSqliteFile(file, { fileMustExist: true });
  try {
    return (db.prepare('select count(*) as n from t').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('SQLite write-ahead log: flushes and checkpoints off the writing thread', { skip: dbKind !== 'sqlite' }, () => {
  let dir: string;
  let handle: DatabaseHandle;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'guestscreen-wal-'));
    // One reader thread: the process has threads to spare, so a checkpoint thread runs too.
    handle = openSqlite(path.join(dir, 'guestscreen.db'), 1);
    await sql`create table t (x integer)`.execute(handle.db);
  });
  after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a batch's writers only once the log is flushed, and starts the next batch after that flush", async () => {
    let release!: () => void;
    const flushes: Promise<void>[] = [];
    const claims: number[] = [];
    const batcher = new WriteBatcher(handle.db, {
      claimNextCommit: () => claims.push(flushes.length),
      flush: () => {
        const p = new Promise<void>((resolve) => (release = resolve));
        flushes.push(p);
        return p;
      },
    });
    const insert = (x: number) => batcher.run((tx: Tx) => sql`insert into t values (${x})`.execute(tx));
    const heard: number[] = [];
    const first = [insert(1), insert(2)].map((p, i) => p.then(() => heard.push(i + 1)));
    while (flushes.length === 0) await new Promise((r) => setImmediate(r));
    // Committed (another connection reads both rows), but not yet flushed: nobody has heard back.
    assert.equal(rowsIn(path.join(dir, 'guestscreen.db')), 2);
    const later = insert(3).then(() => heard.push(3));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(heard, []);
    assert.equal(rowsIn(path.join(dir, 'guestscreen.db')), 2, 'the next batch waits for the flush');
    release();
    await Promise.all(first);
    assert.deepEqual(heard.sort(), [1, 2]);
    while (flushes.length === 1) await new Promise((r) => setImmediate(r));
    release();
    await later;
    assert.deepEqual(heard, [1, 2, 3]);
    assert.deepEqual(claims, [0, 1], 'each batch claimed its own commit');
  });

  it('a write whose transaction fails hears the failure, and the next write commits', async () => {
    await assert.rejects(
      withTx(handle.db, async (tx) => {
        await sql`insert into t values (100)`.execute(tx);
        await sql`insert into no_such_table values (1)`.execute(tx);
      }),
      /no such table/,
    );
    await withTx(handle.db, (tx) => sql`insert into t values (101)`.execute(tx));
    const rows = await sql<{ x: number }>`select x from t where x >= 100`.execute(handle.db);
    assert.deepEqual(
      rows.rows.map((r) => r.x),
      [101],
    );
  });

  it('copies committed writes into the database file by itself, with no more writes to trigger it', async () => {
    for (let i = 0; i < 20; i++) await withTx(handle.db, (tx) => sql`insert into t values (${1000 + i})`.execute(tx));
    const total = (await sql<{ n: number }>`select count(*) as n from t`.execute(handle.db)).rows[0]!.n;
    // The database file alone, without its log, holds what has been checkpointed.
    const alone = path.join(dir, 'alone.db');
    let seen = 0;
    for (let waited = 0; waited < 10_000 && seen < total; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      copyFileSync(path.join(dir, 'guestscreen.db'), alone);
      // Until the first checkpoint, the file does not have the table yet.
      seen = (() => {
        try {
          return rowsIn(alone);
        } catch {
          return 0;
        }
      })();
    }
    assert.equal(seen, total);
  });
});

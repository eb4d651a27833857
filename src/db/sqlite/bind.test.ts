import assert from 'node:assert/strict';
import { openSqliteFile } from './driver.js';
import { describe, it } from 'node:test';
import { rowsOf } from './bind.js';

describe('rows read as arrays and made into objects', () => {
  const db = openSqliteFile(':memory:');
  db.exec("create table t (id integer primary key, name text, price real, flag integer, data blob); insert into t values (1, 'Ada', 12.5, 1, x'00ff'), (2, null, null, 0, null)");

  it('answers what better-sqlite3 answers: names, order, types, nulls and blobs', () => {
    const sql = 'select id, name, price, flag, data, id * 2 as "twice id" from t order by id';
    assert.deepEqual(rowsOf(db.prepare(sql)).all([]), db.prepare(sql).all());
    assert.deepEqual([...rowsOf(db.prepare(sql)).iterate([])], db.prepare(sql).all());
  });

  it('binds booleans and keeps the last of a name given twice, as better-sqlite3 does', () => {
    const sql = 'select id, name, name as id from t where flag = ?';
    assert.deepEqual(rowsOf(db.prepare(sql)).all([true]), db.prepare(sql).all(1));
    assert.deepEqual(rowsOf(db.prepare(sql)).all([true]), [{ id: 'Ada', name: 'Ada' }]);
  });

  it('answers the column a migration added to a statement prepared before it', () => {
    const sql = 'select * from t where id = ?';
    const rows = rowsOf(db.prepare(sql));
    assert.deepEqual(Object.keys(rows.all([1])[0]!), ['id', 'name', 'price', 'flag', 'data']);
    db.exec("alter table t add column nickname text default 'Countess'");
    assert.deepEqual(rows.all([1]), db.prepare(sql).all(1));
    assert.equal(rows.all([1])[0]!.nickname, 'Countess');
  });

  it('takes a column named __proto__ as a column, not as the prototype', () => {
    const [row] = rowsOf(db.prepare(`select name as "__proto__", 'x"y' as "a""b" from t where id = 1`)).all([]);
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.entries(row!), [
      ['__proto__', 'Ada'],
      ['a"b', 'x"y'],
    ]);
  });
});

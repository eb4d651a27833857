/**
 * An experiment, not part of `npm run bench`: would a B-tree index of every word's suffixes serve
 * text search better than SQLite's FTS5 trigram index? It answers the substring searches of the
 * benchmark from (account, suffix) ranges, so it needs no look-up of each match's row to check
 * its account, the part that costs FTS5 most. Run on a copy of a seeded database:
 *
 *   node --import tsx bench/gram-index.ts <guestscreen.db> <account id>
 *
 * It prints what one search costs both ways, and what each costs a create: the suffix index
 * writes some 47 entries a reservation at scattered places, FTS5 one segment per transaction.
 */
import { openSqliteFile } from '../src/db/sqlite/driver.js';
import { copyFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SEARCH_KEY_SEQ, sqliteSearchKey } from '../src/db/sqlite/search-index.js';
import { benchTerms } from './bounds.js';

const [source, accountId] = process.argv.slice(2);
if (!source || !accountId) throw new Error('usage: gram-index.ts <guestscreen.db> <account id>');
const file = path.join(tmpdir(), `gram-index-${process.pid}.db`);
copyFileSync(source, file);
const db = openSqliteFile(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('temp_store = MEMORY');
const terms = await benchTerms(file, accountId);

const time = (label: string, fn: (term: string) => unknown, n = 2000) => {
  for (let i = 0; i < 200; i++) fn(terms[i % terms.length]!);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(terms[i % terms.length]!);
  process.stdout.write(`${label.padEnd(58)} ${(Number(process.hrtime.bigint() - t0) / 1000 / n).toFixed(1)} µs\n`);
};

interface Row {
  seq: number;
  account_id: string;
  check_in_date: string | null;
  t: string;
}
const rows = db
  .prepare("select seq, account_id, check_in_date, lower(concat_ws(' ', guest_full_name, guest_email, guest_phone, confirmation_code, listing_nickname)) as t from reservations order by seq")
  .all() as Row[];
/** Every suffix of three characters or more of every word: a substring of a word is a prefix of one of them. */
const suffixes = (r: Row) => {
  const out = new Set<string>();
  for (const word of r.t.split(/[^\p{L}\p{N}]+/u)) for (let i = 0; i + 3 <= word.length; i++) out.add(word.slice(i));
  return out;
};
const upper = (t: string) => t.slice(0, -1) + String.fromCodePoint(t.codePointAt(t.length - 1)! + 1);
const ORDER = 'order by check_in_date desc, id desc';

// Reads, FTS5 as the service queries it.
const match = `+account_id = ? and seq in (select ${SEARCH_KEY_SEQ} from reservations_fts where reservations_fts match ?)`;
const phrase = (t: string) => `"${t}"`;
const ftsCount = db.prepare(`select count(*) from reservations where ${match}`).pluck();
const ftsPage = db.prepare(`select seq from reservations where ${match} ${ORDER} limit 20`).pluck();
time('FTS5 trigram: count', (t) => ftsCount.get(accountId, phrase(t)));
time('FTS5 trigram: the first page of keys', (t) => ftsPage.all(accountId, phrase(t)));

db.exec('create table grams (account_id text not null, gram text not null, check_in_date text, seq integer not null, primary key (account_id, gram, check_in_date, seq)) without rowid');
const insert = db.prepare('insert or ignore into grams values (?, ?, ?, ?)');
const loaded = rows.slice(0, rows.length - 2000);
const fresh = rows.slice(rows.length - 2000);
const sizeBefore = statSync(file).size;
db.transaction(() => {
  for (const r of loaded) for (const g of suffixes(r)) insert.run(r.account_id, g, r.check_in_date, r.seq);
})();
db.pragma('wal_checkpoint(TRUNCATE)');
const entries = db.prepare('select count(*) from grams').pluck().get() as number;
process.stdout.write(
  `suffix index: ${entries} entries for ${loaded.length} reservations (${(entries / loaded.length).toFixed(1)} each), the file grew by ${Math.round((statSync(file).size - sizeBefore) / 2 ** 20)} MB\n`,
);
const gramCount = db.prepare('select count(distinct seq) from grams where account_id = ? and gram >= ? and gram < ?').pluck();
const gramPage = db.prepare('select seq from grams where account_id = ? and gram >= ? and gram < ? group by seq order by max(check_in_date) desc limit 20').pluck();
time('suffix index: count', (t) => gramCount.get(accountId, t, upper(t)));
time('suffix index: the first page of keys', (t) => gramPage.all(accountId, t, upper(t)));

// Writes: the last 2,000 reservations, 30 to a transaction as the service's group commit does.
const writes = (label: string, write: (r: Row) => void) => {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < fresh.length; i += 30) db.transaction(() => fresh.slice(i, i + 30).forEach(write))();
  process.stdout.write(`${label.padEnd(58)} ${(Number(process.hrtime.bigint() - t0) / 1000 / fresh.length).toFixed(1)} µs a create\n`);
};
writes('suffix index: index 2,000 new reservations', (r) => {
  for (const g of suffixes(r)) insert.run(r.account_id, g, r.check_in_date, r.seq);
});
// Under the keys the service gives them (migration 0013).
const keyOf = `(select ${sqliteSearchKey('r')} from reservations r where r.seq = ?)`;
const ftsDelete = db.prepare(`delete from reservations_fts where rowid = ${keyOf}`);
const ftsInsert = db.prepare(`insert into reservations_fts(rowid, search_text) values (${keyOf}, ?)`);
db.transaction(() => fresh.forEach((r) => ftsDelete.run(r.seq)))();
db.pragma('wal_checkpoint(TRUNCATE)');
writes('FTS5 trigram: index the same 2,000', (r) => ftsInsert.run(r.seq, r.t));
db.close();
for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });

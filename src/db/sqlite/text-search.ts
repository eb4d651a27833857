/**
 * SQLite's text search in the default order (newest check-in first), answered from the
 * full-text index's keys (SEARCH_KEY in search-index.ts, migration 0013): an account's matches are
 * one range of the index, in check-in order, so the count and the page's place come from the
 * index alone, and only the rows of the days the page spans are read and sorted by date and id.
 * Over 100,000 reservations, a search read every match's row before, 350 on average.
 *
 * It runs as a read in steps (procedures.ts), on a reader thread where there is one, so
 * the index is read in one snapshot with no message to the thread between steps.
 */
import type { ReadSteps } from './procedures.js';
import { SEARCH_KEY as K } from './search-index.js';

export interface CheckInSearch {
  accountId: string;
  /** The FTS5 phrase (ftsPhrase). */
  phrase: string;
  offset: number;
  limit: number;
  /** The columns to answer, as SQL. */
  columns: string;
}

/** The page, or `general` when some rows are keyed by seq alone and only the general search finds them all. */
export type CheckInAnswer = { total: number; rows: unknown[] } | { general: true };

interface Key {
  /** The account's number and the check-in day: key >> 27. */
  slot: number;
  seq: number;
}

/** Keys read past the page's end (see below). */
const PAST_PAGE = 8;

export function* searchByCheckIn(a: CheckInSearch): ReadSteps<CheckInAnswer> {
  const [[head]] = (yield [
    {
      sql:
        `select (select ord from reservations_fts_accounts where account_id = ?) as ord, ` +
        `exists (select 1 from reservations where seq >= ${K.seqLimit}) or exists (select 1 from reservations_fts_accounts where ord >= ${K.ordLimit}) as overflow`,
      parameters: [a.accountId],
    },
  ]) as [[{ ord: number | null; overflow: number }]];
  if (head.overflow) return { general: true };
  if (head.ord === null) return { total: 0, rows: [] };

  // The account's range of the index, walked from its newest check-in down.
  const inAccount = `reservations_fts match ? and rowid between ? << ${K.ordShift} and (? << ${K.ordShift}) | ${K.keyedBase - 1}`;
  const want = a.offset + a.limit;
  // A few keys past the page: the day after its last one is usually among them, and then that
  // last day is known whole without reading the index again.
  const [top] = (yield [
    {
      sql: `select rowid >> ${K.dayShift} as slot, rowid & ${K.seqMask} as seq from reservations_fts where ${inAccount} order by rowid desc limit ?`,
      parameters: [a.phrase, head.ord, head.ord, want + PAST_PAGE],
    },
  ]) as [Key[]];
  const complete = top.length < want + PAST_PAGE;
  const total = complete ? top.length : ((yield [{ sql: `select count(*) as n from reservations_fts where ${inAccount}`, parameters: [a.phrase, head.ord, head.ord] }]) as [[{ n: number }]])[0][0].n;
  const page = top.slice(a.offset, want);
  if (page.length === 0) return { total, rows: [] };

  // The page's rows are among the matches of the days it spans; those of later days come before it.
  const first = page[0]!.slot;
  const last = page.at(-1)!.slot;
  const seqs = new Set<number>();
  let before = 0;
  for (const k of top) {
    if (k.slot > first) before++;
    else if (k.slot >= last) seqs.add(k.seq);
  }
  if (!complete && top.at(-1)!.slot === last) {
    // The last day may go on past the keys read.
    const [rest] = (yield [
      {
        sql: `select rowid & ${K.seqMask} as seq from reservations_fts where reservations_fts match ? and rowid between ? << ${K.dayShift} and (? << ${K.dayShift}) | ${K.seqMask}`,
        parameters: [a.phrase, last, last],
      },
    ]) as [{ seq: number }[]];
    for (const r of rest) seqs.add(r.seq);
  }
  // The account is checked on the rows too: the keys say it already, but a tenant's data never
  // rests on an index alone. The unary + keeps the planner on the rows by seq: given the
  // account, it walked the account's check-in index instead.
  const [rows] = (yield [
    {
      sql: `select ${a.columns} from reservations where seq in (select value from json_each(?)) and +account_id = ? order by check_in_date desc, id desc limit ? offset ?`,
      parameters: [JSON.stringify([...seqs]), a.accountId, a.limit, a.offset - before],
    },
  ]) as [unknown[]];
  return { total, rows };
}

import type { Db } from '../../db/connection.js';
import type { Snapshot } from './types.js';
import { latestBookings } from './repo.js';

/** How many of the account's most recent bookings the price and length medians look at. */
export const HISTORY_WINDOW = 500;
/** How long a window may go without a full reload (changes made in other processes). */
const RELOAD_MS = 60_000;
/**
 * Accounts whose window a process keeps, the most recently screened first out last. A full
 * window is about 100 KB (501 rows with their ids), so this holds at most about 20 MB.
 */
const MAX_ACCOUNTS = 200;

interface Past {
  id: string;
  created_at: string;
  total_price: number | null;
  nights: number | null;
}

interface Window {
  /** Newest first; one more than the window, so that leaving out the booking screened still leaves a full one. */
  rows: Past[];
  ids: Set<string>;
  loadedAt: number;
}

/**
 * The account's recent bookings, for the medians of the fraud check. Reading the 500 rows was a
 * large share of every screening run's database time, and the window hardly moves between runs: each run now reads only what was created since the last one.
 * Bookings created anywhere are seen at once; a price or length changed in this process drops
 * the window (forgetHistory), one changed by another process reaches it within a minute.
 */
class HistoryCache {
  readonly #windows = new Map<string, Window>();
  /** Counts forget() calls: a window read while one happened may hold what was just changed. */
  #forgets = 0;

  constructor(private readonly db: Db) {}

  async stats(accountId: string, excludeId: string, now: number): Promise<Omit<Snapshot['history'], 'sameContactLast24h'>> {
    const window = await this.#window(accountId, now);
    const recent: Past[] = [];
    for (const row of window.rows) {
      if (row.id === excludeId) continue;
      recent.push(row);
      if (recent.length === HISTORY_WINDOW) break;
    }
    return {
      reservations: recent.length,
      medianTotalPrice: median(recent.map((x) => x.total_price)),
      medianNights: median(recent.map((x) => x.nights)),
    };
  }

  forget(accountId: string): void {
    this.#forgets++;
    this.#windows.delete(accountId);
  }

  async #window(accountId: string, now: number): Promise<Window> {
    const cached = this.#windows.get(accountId);
    if (cached) {
      // Least recently used goes first: a Map keeps insertion order, so re-insert on use.
      this.#windows.delete(accountId);
      this.#windows.set(accountId, cached);
    }
    if (!cached || now - cached.loadedAt > RELOAD_MS) {
      const forgets = this.#forgets;
      const rows = await latestBookings(this.db, accountId, HISTORY_WINDOW + 1);
      const fresh = { rows, ids: new Set(rows.map((r) => r.id)), loadedAt: now };
      if (forgets !== this.#forgets) return fresh; // used for this run, not kept
      this.#windows.delete(accountId);
      if (this.#windows.size >= MAX_ACCOUNTS) this.#windows.delete(this.#windows.keys().next().value!);
      this.#windows.set(accountId, fresh);
      return fresh;
    }
    // What was created since: from the newest row held (rows of that same instant may be new too).
    const newest = cached.rows[0]?.created_at;
    const added = (await latestBookings(this.db, accountId, HISTORY_WINDOW + 1, newest)).filter((r) => !cached.ids.has(r.id));
    if (added.length > 0) {
      const rows = [...added, ...cached.rows].sort((a, b) => (a.created_at === b.created_at ? cmp(b.id, a.id) : cmp(b.created_at, a.created_at)));
      for (const gone of rows.splice(HISTORY_WINDOW + 1)) cached.ids.delete(gone.id);
      for (const row of added) cached.ids.add(row.id);
      cached.rows = rows;
    }
    return cached;
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function median(values: (number | null)[]): number | null {
  const xs = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return xs.length === 0 ? null : xs[Math.floor(xs.length / 2)]!;
}

const caches = new WeakMap<Db, HistoryCache>();

function cacheFor(db: Db): HistoryCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new HistoryCache(db)));
  return cache;
}

/** Size and medians of the account's last 500 bookings, the one being screened left out. */
export function accountHistory(db: Db, accountId: string, excludeId: string, now: Date) {
  return cacheFor(db).stats(accountId, excludeId, now.getTime());
}

/** Call after changing a booking's price or length, or erasing one, in this process. */
export function forgetHistory(db: Db, accountId: string): void {
  caches.get(db)?.forget(accountId);
}

import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

/**
 * Random bytes for the ids and tokens, drawn from the system's CSPRNG 4 KiB at a time: ulidx's
 * own source asks crypto for one byte per character, a visible share of a create's CPU (and so
 * was randomBytes() for each portal token). A byte over 256 maps evenly onto ulid's 32
 * characters.
 */
const pool = Buffer.alloc(4096);
let next = pool.length;
/** n bytes no one else gets; use them at once, before the pool refills. */
function pooledBytes(n: number): Buffer {
  if (next + n > pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  next += n;
  return pool.subarray(next - n, next);
}
const pooledRandom = () => pooledBytes(1)[0]! / 256;

const ulid = monotonicFactory(pooledRandom);

export type IdPrefix = 'acc' | 'key' | 'sgn' | 'res' | 'evt' | 'job' | 'req' | 'not' | 'pay' | 'fil' | 'chk' | 'dis' | 'sif' | 'idv' | 'img' | 'usr' | 'ses' | 'alr' | 'est' | 'rep' | 'rcp';

/** Prefixed, time-ordered identifiers: `acc_01jd…`. Sorting by id sorts by creation time. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/**
 * A guest-portal token: the time in base 36, then 18 random bytes (144 bits) that make it
 * unguessable. New tokens sort after old ones, so their unique index grows at its end: with
 * 24 purely random bytes, every reservation created dirtied a page of its own in that index,
 * a fifth of the pages a batch of creates wrote to the WAL.
 */
export function newPortalToken(): string {
  return Date.now().toString(36).padStart(9, '0') + pooledBytes(18).toString('base64url');
}

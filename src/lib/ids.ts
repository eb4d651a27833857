import { monotonicFactory } from 'ulidx';

const ulid = monotonicFactory();

export type IdPrefix = 'acc' | 'key' | 'sgn' | 'res' | 'evt' | 'job' | 'req' | 'not' | 'pay';

/** Prefixed, time-ordered identifiers: `acc_01jd…`. Sorting by id sorts by creation time. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

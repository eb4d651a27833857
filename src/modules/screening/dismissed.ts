import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { normaliseName } from '../../lib/names/names.js';
import { entryContent } from '../../providers/sanctions/index.js';
import * as repo from './repo.js';

/** The guest as a dismissal remembers them: a digest of their normalised booked name. */
export function guestKey(first: string | null, last: string | null): string | null {
  const name = normaliseName([first, last].filter(Boolean).join(' '));
  return name ? createHash('sha256').update(name).digest('hex') : null;
}

/** The sanctions entries dismissed for this guest that the lists have not changed since, as `list\u0000entry id`. */
export async function dismissedEntries(deps: Deps, accountId: string, first: string | null, last: string | null): Promise<Set<string>> {
  const key = guestKey(first, last);
  if (!key) return new Set();
  const out = new Set<string>();
  for (const d of await repo.dismissalsOf(deps.db, accountId, key)) {
    if ((await entryContent(deps, d.list, d.entry_id)) === d.entry_content) out.add(`${d.list}\u0000${d.entry_id}`);
  }
  return out;
}

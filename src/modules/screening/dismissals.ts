import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { entryContent, sanctionsLists } from '../../providers/sanctions/index.js';
import type { Actor } from '../../lib/actor.js';
import type { ReservationRow } from '../../db/schema.js';
import { guestKey } from './dismissed.js';
import { insertNote } from '../notes/index.js';
import * as repo from './repo.js';
import { requestScreening } from './run.js';

/**
 * A host's word that a sanctions entry is not their guest: remembered for the guest (every stay
 * of theirs in the account) and the entry as it is now, noted in the reservation's history, and
 * the reservation screened again. The entry alerts again once an import changes it.
 */
export async function dismissSanctionsHit(deps: Deps, author: Actor, r: ReservationRow, input: { list: string; entry_id: string; reason?: string | undefined }) {
  const content = await entryContent(deps, input.list, input.entry_id);
  if (!content) {
    const lists = (await sanctionsLists(deps)).map((l) => `'${l.source}'`).join(', ');
    throw badRequest(`body.entry_id: no entry ${input.entry_id} on a list '${input.list}' (lists: ${lists || 'none imported'})`);
  }
  const key = guestKey(r.guest_first_name, r.guest_last_name);
  if (!key) throw badRequest('the reservation has no guest name to remember the dismissal for');
  const at = iso(deps.clock());
  const text = `Dismissed the possible match with ${input.list} entry ${input.entry_id} as a different person${input.reason ? `: ${input.reason}` : ''}. It alerts again if the list changes the entry.`;
  await withTx(
    deps.db,
    async (tx) => {
      await repo.upsertDismissal(tx, {
        id: newId('dis'),
        account_id: r.account_id,
        guest_key: key,
        list: input.list,
        entry_id: input.entry_id,
        entry_content: content,
        reservation_id: r.id,
        author_id: author.id,
        created_at: at,
      });
      await insertNote(tx, { id: newId('not'), reservation_id: r.id, text, author_id: author.id, author_name: author.name, author_type: author.type, created_at: at });
      await requestScreening(tx, deps, r.id, 'manual');
    },
    { subject: r.id },
  );
  return { list: input.list, entry_id: input.entry_id, dismissed_at: at, note: text };
}

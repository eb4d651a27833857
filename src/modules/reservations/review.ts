import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { Actor } from '../../lib/actor.js';
import { audit } from '../audit/index.js';
import { planCheckIn, withdrawPortalMessages } from '../messages/index.js';
import { insertNote, listNotes } from '../notes/index.js';
import { emitScreeningEvent } from '../screening/index.js';
import { resolveScreens } from '../settings/index.js';
import * as repo from '../bookings/index.js';
import type { ReservationRow } from '../bookings/index.js';

export type Supervised = 'approve' | 'decline';

/**
 * The host's decision, with their reason if they gave one: kept on the reservation, in the note
 * that records the decision, and in the screening webhook's body.
 */
export async function setManualDecision(deps: Deps, author: Actor, r: ReservationRow, decision: Supervised, reason?: string): Promise<ReservationRow> {
  const now = iso(deps.clock());
  const previous = r.supervised;
  const why = reason?.trim() || null;
  const what =
    previous && previous !== decision ? `Manual decision changed from ${previous} to ${decision} by ${author.name}` : `Manually ${decision === 'approve' ? 'approved' : 'declined'} by ${author.name}`;
  const text = why ? `${what}: ${why}` : `${what}.`;
  const decidedBy = JSON.stringify({ type: author.type, id: author.id, name: author.name });
  const updated = { ...r, supervised: decision, supervised_reason: why, decided_by: decidedBy, decided_at: now, updated_at: now };
  await withTx(deps.db, async (tx) => {
    await repo.updateReservation(tx, r.id, { supervised: decision, supervised_reason: why, decided_by: decidedBy, decided_at: now, updated_at: now });
    await insertNote(tx, { id: newId('not'), reservation_id: r.id, text, author_id: author.id, author_name: author.name, author_type: author.type, created_at: now });
    await audit(tx, { account_id: r.account_id, actor: author, action: decision === 'approve' ? 'reservation.approved' : 'reservation.declined', subject_id: r.id, at: now });
    await emitScreeningEvent(tx, deps, updated);
    await planCheckIn(tx, deps, updated);
    if (decision === 'decline') await withdrawPortalMessages(tx, deps, r.id, 'declined');
  });
  return updated;
}

export async function addHostNote(deps: Deps, author: Actor, r: ReservationRow, text: string) {
  const note = { id: newId('not'), reservation_id: r.id, text, author_id: author.id, author_name: author.name, author_type: author.type, created_at: iso(deps.clock()) };
  await withTx(deps.db, async (tx) => {
    await insertNote(tx, note);
    await audit(tx, { account_id: r.account_id, actor: author, action: 'reservation.note_added', subject_id: r.id, at: note.created_at });
  });
  return notesView(deps, r);
}

export async function notesView(deps: Deps, r: ReservationRow) {
  const rows = await listNotes(deps.db, r.id);
  return rows.map((n) => ({ text: n.text, author_id: n.author_id, author_name: n.author_name, author_type: n.author_type, timestamp: n.created_at }));
}

export async function screensView(deps: Deps, r: ReservationRow) {
  const { screens } = await resolveScreens(deps.db, r.account_id, r.source, () => repo.hasEarlierWithContact(deps.db, r));
  return screens;
}

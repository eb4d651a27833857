import type { Insertable, Selectable } from 'kysely';
import { insertRows } from '../../db/compiled.js';
import type { Db, Tx } from '../../db/connection.js';
import type { GuestMessagesTable } from '../../db/schema.js';

export type MessageRow = Selectable<GuestMessagesTable>;

export function findMessage(db: Db, id: string): Promise<MessageRow | undefined> {
  return db.selectFrom('guest_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function hasMessages(db: Db, reservationId: string): Promise<boolean> {
  return Boolean(await db.selectFrom('guest_messages').select('id').where('reservation_id', '=', reservationId).limit(1).executeTakeFirst());
}

export async function insertMessages(db: Db, rows: Insertable<GuestMessagesTable>[]): Promise<void> {
  await insertRows(db, 'guest_messages', rows);
}

export function listMessages(db: Db, reservationId: string): Promise<MessageRow[]> {
  return db.selectFrom('guest_messages').selectAll().where('reservation_id', '=', reservationId).orderBy('send_after').orderBy('id').execute();
}

export async function cancelMessage(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('guest_messages').set({ state: 'canceled', updated_at: at }).where('id', '=', id).execute();
}

/** A canceled reservation's queued messages are not sent. */
/** Cancels the reservation's queued messages, of the tags given or all. */
export async function cancelQueued(db: Db, reservationId: string, at: string, tags?: readonly string[]): Promise<void> {
  await db
    .updateTable('guest_messages')
    .set({ state: 'canceled', updated_at: at })
    .where('reservation_id', '=', reservationId)
    .where('state', '=', 'queued')
    .$if(tags !== undefined, (q) => q.where('tag', 'in', tags!))
    .execute();
}

export async function recordSendError(db: Db, id: string, error: string, at: string): Promise<void> {
  await db.updateTable('guest_messages').set({ error, updated_at: at }).where('id', '=', id).execute();
}

/** Marks a message sent; `content`, when given, is what to keep of it (the check-in details, masked, as sent). */
export async function markSent(tx: Tx, id: string, via: string, at: string, content?: { subject: string; text: string; html: string }): Promise<void> {
  await tx
    .updateTable('guest_messages')
    .set({ state: 'sent', via, error: null, updated_at: at, ...content })
    .where('id', '=', id)
    .execute();
}

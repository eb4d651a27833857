import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/connection.js';
import { countAll } from '../../db/dialect.js';
import type { BlocklistEntriesTable } from '../../db/schema.js';

export type EntryRow = Selectable<BlocklistEntriesTable>;

/** Inserts the entries not already on their account's blocklist (by fingerprint); the ids of those inserted. */
export async function insertEntries(db: Db, entries: Insertable<BlocklistEntriesTable>[]): Promise<string[]> {
  if (!entries.length) return [];
  const rows = await db
    .insertInto('blocklist_entries')
    .values(entries)
    .onConflict((oc) => oc.columns(['account_id', 'fingerprint']).doNothing())
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export function findByFingerprint(db: Db, accountId: string, fingerprint: string): Promise<EntryRow | undefined> {
  return db.selectFrom('blocklist_entries').selectAll().where('account_id', '=', accountId).where('fingerprint', '=', fingerprint).executeTakeFirst();
}

/** The account's entries by id. */
export function entriesById(db: Db, accountId: string, ids: string[]): Promise<EntryRow[]> {
  return db.selectFrom('blocklist_entries').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

export async function listEntries(db: Db, accountId: string, from: number, size: number): Promise<{ total: number; rows: EntryRow[] }> {
  const [count, rows] = await Promise.all([
    db.selectFrom('blocklist_entries').select(countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow(),
    db.selectFrom('blocklist_entries').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(from).limit(size).execute(),
  ]);
  return { total: Number(count.n), rows };
}

export function findEntry(db: Db, accountId: string, id: string): Promise<EntryRow | undefined> {
  return db.selectFrom('blocklist_entries').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export async function updateEntry(db: Db, id: string, fields: Updateable<BlocklistEntriesTable>): Promise<void> {
  await db.updateTable('blocklist_entries').set(fields).where('id', '=', id).execute();
}

export async function deleteEntry(db: Db, id: string): Promise<void> {
  await db.deleteFrom('blocklist_entries').where('id', '=', id).execute();
}

/** The entries that could match a guest (identifiers already normalised): exact identifiers, plus every named entry for fuzzy matching. */
export function candidates(db: Db, accountId: string, guest: { email: string | null; phone: string | null; document: string | null }) {
  return db
    .selectFrom('blocklist_entries')
    .select(['id', 'name', 'email', 'phone', 'document_number', 'reason'])
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        eb('name', 'is not', null),
        ...(guest.email ? [eb('email', '=', guest.email)] : []),
        ...(guest.phone ? [eb('phone', '=', guest.phone)] : []),
        ...(guest.document ? [eb('document_number', '=', guest.document)] : []),
      ]),
    )
    .orderBy('id')
    .limit(20_000)
    .execute();
}

import type { Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { AuthorityEstablishmentsTable, AuthorityReportsTable } from '../../db/schema.js';

export type EstablishmentRow = Selectable<AuthorityEstablishmentsTable>;

/** The establishment of a listing ('' for the account's default), if one is set. */
export async function findEstablishment(db: Db, accountId: string, listingId: string): Promise<EstablishmentRow | undefined> {
  return db.selectFrom('authority_establishments').selectAll().where('account_id', '=', accountId).where('listing_id', '=', listingId).executeTakeFirst();
}

/** The establishment a listing's bookings report through: the listing's own, or the account's default. */
export async function establishmentFor(db: Db, accountId: string, listingId: string | null): Promise<EstablishmentRow | undefined> {
  const rows = await db
    .selectFrom('authority_establishments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', 'in', listingId ? [listingId, ''] : [''])
    .execute();
  return rows.find((r) => r.listing_id !== '') ?? rows[0];
}

/** Sets a listing's (or the account's) establishment, replacing the one before. */
export async function saveEstablishment(db: Db, row: EstablishmentRow): Promise<void> {
  const { id: _id, account_id: _account, listing_id: _listing, created_at: _created, ...changed } = row;
  await db
    .insertInto('authority_establishments')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'listing_id']).doUpdateSet(changed))
    .execute();
}

export async function deleteEstablishment(db: Db, accountId: string, listingId: string): Promise<boolean> {
  const r = await db.deleteFrom('authority_establishments').where('account_id', '=', accountId).where('listing_id', '=', listingId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export type ReportRow = Selectable<AuthorityReportsTable>;

/** A booking's reports, its guests in order. */
export function reportsOf(db: Db, reservationId: string): Promise<ReportRow[]> {
  return db.selectFrom('authority_reports').selectAll().where('reservation_id', '=', reservationId).orderBy('system').orderBy('guest_index').execute();
}

export async function insertReport(db: Db, row: ReportRow): Promise<void> {
  await db.insertInto('authority_reports').values(row).execute();
}

export async function updateReport(db: Db, id: string, patch: Partial<Omit<ReportRow, 'id' | 'account_id' | 'reservation_id'>>): Promise<void> {
  await db.updateTable('authority_reports').set(patch).where('id', '=', id).execute();
}

/** Reports of guests the booking no longer counts (fewer guests than before), not yet filed: dropped. */
export async function deleteUnsentReports(db: Db, reservationId: string, fromGuest: number): Promise<void> {
  await db.deleteFrom('authority_reports').where('reservation_id', '=', reservationId).where('guest_index', '>=', fromGuest).where('receipt', 'is', null).where('lot', 'is', null).execute();
}

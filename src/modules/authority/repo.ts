import type { Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { AuthorityEstablishmentsTable } from '../../db/schema.js';

export type EstablishmentRow = Selectable<AuthorityEstablishmentsTable>;

/** The establishment of a listing ('' for the account's default), if one is set. */
export async function findEstablishment(db: Db, accountId: string, listingId: string): Promise<EstablishmentRow | undefined> {
  return db.selectFrom('authority_establishments').selectAll().where('account_id', '=', accountId).where('listing_id', '=', listingId).executeTakeFirst();
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

import { sql, type ExpressionBuilder, type Insertable, type Selectable } from 'kysely';
import type { Db, Tx } from '../../db/connection.js';
import { byShape } from '../../db/compiled.js';
import type { AuthorityEstablishmentsTable, AuthorityReceiptsTable, AuthorityReportsTable, Database } from '../../db/schema.js';

export type EstablishmentRow = Selectable<AuthorityEstablishmentsTable>;

/** The establishment of a listing ('' for the account's default), if one is set. */
export async function findEstablishment(db: Db, accountId: string, listingId: string): Promise<EstablishmentRow | undefined> {
  return db.selectFrom('authority_establishments').selectAll().where('account_id', '=', accountId).where('listing_id', '=', listingId).executeTakeFirst();
}

/** The establishment a listing's bookings report through: the listing's own, or the account's default. */
export async function establishmentFor(db: Db, accountId: string, listingId: string | null): Promise<EstablishmentRow | undefined> {
  // Compiled once: every create and update of a booking asks it (its police reports follow the booking).
  const [q] = byShape(db, 'authority.establishmentFor', { account: accountId, listing: listingId ?? '' }, (v) => [
    db
      .selectFrom('authority_establishments')
      .selectAll()
      .where('account_id', '=', v('account'))
      .where('listing_id', 'in', [v('listing'), '']),
  ]);
  const rows = (await db.executeQuery(q!.compile())).rows as EstablishmentRow[];
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

/** What fetching Alloggiati Web's tables with an establishment's credentials came to. */
export async function setTablesOutcome(db: Db, id: string, outcome: Pick<EstablishmentRow, 'tables_as_of' | 'tables_problem'>): Promise<void> {
  await db.updateTable('authority_establishments').set(outcome).where('id', '=', id).execute();
}

/** The establishment of a system whose credentials the authority took most recently, across accounts. */
export function latestCheckedEstablishment(db: Db, system: string): Promise<EstablishmentRow | undefined> {
  return db.selectFrom('authority_establishments').selectAll().where('system', '=', system).where('checked_at', 'is not', null).orderBy('checked_at', 'desc').limit(1).executeTakeFirst();
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

/** A new report; false when another writer made the guest's report first. */
export async function insertReport(db: Db, row: Insertable<AuthorityReportsTable>): Promise<boolean> {
  const r = await db
    .insertInto('authority_reports')
    .values(row)
    .onConflict((oc) => oc.columns(['reservation_id', 'guest_index', 'system']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

type ReportPatch = Partial<Omit<ReportRow, 'id' | 'account_id' | 'reservation_id' | 'version'>>;

export async function updateReport(db: Db, id: string, patch: ReportPatch): Promise<void> {
  await db
    .updateTable('authority_reports')
    .set({ ...patch, version: sql`version + 1` })
    .where('id', '=', id)
    .execute();
}

/**
 * A report changed only if nobody wrote it since it was read (its `version` as read): a send's
 * claim, a planning. False when another job or write came first (nothing changed).
 */
export async function updateReportIfUnchanged(tx: Tx, row: Pick<ReportRow, 'id' | 'version'>, patch: ReportPatch): Promise<boolean> {
  const r = await tx
    .updateTable('authority_reports')
    .set({ ...patch, version: row.version + 1 })
    .where('id', '=', row.id)
    .where('version', '=', row.version)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Reports of guests the booking no longer counts (fewer guests than before), not yet filed: dropped. */
export async function deleteUnsentReports(db: Db, reservationId: string, fromGuest: number): Promise<void> {
  await db.deleteFrom('authority_reports').where('reservation_id', '=', reservationId).where('guest_index', '>=', fromGuest).where('receipt', 'is', null).where('lot', 'is', null).execute();
}

/** A report beside its booking's listing and stay, for the account's list of reports. */
export type ListedReport = ReportRow & {
  listing_id: string | null;
  listing_nickname: string | null;
  check_in_date: string | null;
  guest_full_name: string | null;
  listing_timezone_name: string | null;
};

/** A report still owed to the authority: not filed for real (a test answer files nothing), of a guest it takes. */
const stillOwed = (eb: ExpressionBuilder<Database, 'authority_reports'>) =>
  eb.and([eb('authority_reports.state', '!=', 'not_required'), eb.or([eb('authority_reports.state', '!=', 'accepted'), eb('authority_reports.mode', '=', 'test')])]);

/** The account's reports not yet accepted, soonest due first (a listing's only, when given). */
export function openReports(db: Db, accountId: string, listingId: string | undefined, limit: number): Promise<ListedReport[]> {
  let q = db
    .selectFrom('authority_reports')
    .innerJoin('reservations', 'reservations.id', 'authority_reports.reservation_id')
    .selectAll('authority_reports')
    .select(['reservations.listing_id', 'reservations.listing_nickname', 'reservations.check_in_date', 'reservations.guest_full_name', 'reservations.listing_timezone_name'])
    .where('authority_reports.account_id', '=', accountId)
    .where('reservations.status', '!=', 'CANCELED')
    .where(stillOwed);
  if (listingId !== undefined) q = q.where('reservations.listing_id', '=', listingId);
  return q.orderBy('authority_reports.due_at').orderBy('authority_reports.guest_index').limit(limit).execute();
}

/**
 * Stays that have not ended, at a listing that reports (its own establishment or its account's),
 * with no report yet. From the establishments, which are few, to their accounts' stays: a join
 * from the reservations' side read every reservation of the database (100,000 in the benchmark)
 * on the thread that answers requests, each hour.
 */
export async function staysWithoutReports(db: Db, today: string, limit: number): Promise<{ account_id: string; id: string }[]> {
  const establishments = await db.selectFrom('authority_establishments').select(['account_id', 'listing_id']).execute();
  const byAccount = new Map<string, string[]>();
  for (const e of establishments) byAccount.set(e.account_id, [...(byAccount.get(e.account_id) ?? []), e.listing_id]);
  const found: { account_id: string; id: string }[] = [];
  for (const [accountId, listings] of byAccount) {
    if (found.length >= limit) break;
    let q = db
      .selectFrom('reservations')
      .select(['reservations.account_id', 'reservations.id'])
      .where('reservations.account_id', '=', accountId)
      .where('reservations.status', '!=', 'CANCELED')
      .where('reservations.check_in_date', 'is not', null)
      .where((eb) => eb(eb.fn.coalesce('reservations.check_out_date', 'reservations.check_in_date'), '>=', today))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('authority_reports').select('authority_reports.id').whereRef('authority_reports.reservation_id', '=', 'reservations.id'))));
    // The account's own establishment ('') covers every listing; else only the listings that have one.
    if (!listings.includes('')) q = q.where('reservations.listing_id', 'in', listings);
    found.push(...(await q.limit(limit - found.length).execute()));
  }
  return found;
}

/** The listings the account's open reports are for, to filter by. */
export async function reportListings(db: Db, accountId: string): Promise<{ listing_id: string; listing_nickname: string | null }[]> {
  const rows = await db
    .selectFrom('authority_reports')
    .innerJoin('reservations', 'reservations.id', 'authority_reports.reservation_id')
    .select(['reservations.listing_id', 'reservations.listing_nickname'])
    .where('authority_reports.account_id', '=', accountId)
    .where('reservations.listing_id', 'is not', null)
    .distinct()
    .execute();
  const seen = new Map<string, string | null>();
  for (const r of rows) if (r.listing_id && !seen.get(r.listing_id)) seen.set(r.listing_id, r.listing_nickname);
  return [...seen].map(([listing_id, listing_nickname]) => ({ listing_id, listing_nickname })).sort((a, b) => (a.listing_nickname ?? a.listing_id).localeCompare(b.listing_nickname ?? b.listing_id));
}

/** Reports not accepted, due by `until`, whose host has not been told yet: their bookings' ids. */
export async function reportsToAlert(db: Db, until: string): Promise<{ account_id: string; reservation_id: string }[]> {
  return db.selectFrom('authority_reports').select(['account_id', 'reservation_id']).where(stillOwed).where('alerted_at', 'is', null).where('due_at', '<=', until).distinct().execute();
}

/** A booking's open reports recorded as told to its host. */
export async function markAlerted(db: Db, reservationId: string, at: string): Promise<void> {
  await db.updateTable('authority_reports').set({ alerted_at: at }).where('reservation_id', '=', reservationId).where(stillOwed).where('alerted_at', 'is', null).execute();
}

/** Keeps an establishment's receipt of a day (the latest fetched replaces the one before: it lists more). */
export async function saveReceipt(db: Db, row: Selectable<AuthorityReceiptsTable>): Promise<void> {
  await db
    .insertInto('authority_receipts')
    .values(row)
    .onConflict((oc) => oc.columns(['establishment_id', 'day']).doUpdateSet({ pdf_enc: row.pdf_enc, fetched_at: row.fetched_at }))
    .execute();
}

export function findReceipt(db: Db, accountId: string, establishmentId: string, day: string) {
  return db.selectFrom('authority_receipts').selectAll().where('account_id', '=', accountId).where('establishment_id', '=', establishmentId).where('day', '=', day).executeTakeFirst();
}

/**
 * The next file number of an authority's establishment, taken: one statement, so two sends at
 * once get two numbers, and a number once taken is never given again (a send that fails keeps it).
 */
export async function nextFileNumber(db: Db, system: string, unit: string, establishment: string): Promise<number> {
  const row = await db
    .insertInto('authority_file_numbers')
    .values({ system, unit, establishment, last_number: 1 })
    .onConflict((oc) => oc.columns(['system', 'unit', 'establishment']).doUpdateSet({ last_number: sql<number>`authority_file_numbers.last_number + 1` }))
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return Number(row.last_number);
}

/** Reports of a system made before a moment, deleted; how many. */
export async function deleteReportsBefore(db: Db, system: string, before: string): Promise<number> {
  const r = await db.deleteFrom('authority_reports').where('system', '=', system).where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Reports of a system whose stay ended before a day (YYYY-MM-DD), deleted; how many. */
export async function deleteReportsDepartedBefore(db: Db, system: string, day: string): Promise<number> {
  const r = await db
    .deleteFrom('authority_reports')
    .where('system', '=', system)
    .where(
      'reservation_id',
      'in',
      db
        .selectFrom('reservations')
        .select('reservations.id')
        .where((eb) => eb(eb.fn.coalesce('reservations.check_out_date', 'reservations.check_in_date'), '<', day)),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Receipts of days before the one given, deleted; how many. */
export async function deleteReceiptsBefore(db: Db, day: string): Promise<number> {
  const r = await db.deleteFrom('authority_receipts').where('day', '<', day).executeTakeFirst();
  return Number(r.numDeletedRows);
}

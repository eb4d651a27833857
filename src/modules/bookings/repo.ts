import { sql, type Insertable, type OrderByModifiers, type Selectable, type SelectQueryBuilder, type Updateable } from 'kysely';
import { byShape, compiledOnce, insertRows } from '../../db/compiled.js';
import type { Db, Tx } from '../../db/connection.js';
import { countAll, PLAN_PER_CALL, reservationTextMatch, type DialectKind } from '../../db/dialect.js';
import { readRows, searchTextByCheckIn } from '../../db/reads.js';
import type { Database, ListingsTable, PaymentEventsTable, ReservationsTable } from '../../db/schema.js';

import type { ReservationRow } from '../../db/schema.js';
export type { NoteRow, PaymentEventRow, ReservationRow } from '../../db/schema.js';

export async function insertReservation(db: Db, row: Insertable<ReservationsTable>): Promise<void> {
  await insertRows(db, 'reservations', [row]);
}

/** Many reservations in one statement (the demo's seed). */
/**
 * Many reservations in one statement (the demo's seed), and the listings they name, each once,
 * with its latest nickname: a listing a booking names is on the account's list however the
 * booking was written (one by one, trackListing keeps the list and tells the listing webhook).
 */
export async function insertReservations(tx: Tx, rows: Insertable<ReservationsTable>[]): Promise<void> {
  await tx.insertInto('reservations').values(rows).execute();
  const listings = new Map<string, Insertable<ListingsTable>>();
  for (const r of [...rows].sort((a, b) => a.created_at.localeCompare(b.created_at))) {
    if (!r.listing_id) continue;
    const key = `${r.account_id}\u0000${r.listing_id}`;
    const known = listings.get(key);
    listings.set(key, {
      account_id: r.account_id,
      listing_id: r.listing_id,
      nickname: r.listing_nickname ?? known?.nickname ?? null,
      created_at: known?.created_at ?? r.created_at,
      updated_at: r.created_at,
    });
  }
  if (listings.size)
    await tx
      .insertInto('listings')
      .values([...listings.values()])
      .onConflict((oc) => oc.columns(['account_id', 'listing_id']).doNothing())
      .execute();
}

/** Many payment events in one statement, without the duplicate check of insertPaymentEvent (the demo's seed). */
export async function insertPaymentEvents(tx: Tx, rows: Insertable<PaymentEventsTable>[]): Promise<void> {
  await tx.insertInto('payment_events').values(rows).execute();
}

export async function updateReservation(db: Db, id: string, patch: Updateable<ReservationsTable>): Promise<void> {
  await db.updateTable('reservations').set(patch).where('id', '=', id).execute();
}

const MUTABLE = [
  'pms',
  'pms_reservation_id',
  'confirmation_code',
  'status',
  'source',
  'listing_id',
  'listing_nickname',
  'listing_timezone_name',
  'number_of_guests',
  'nights',
  'total_price',
  'average_daily_rate',
  'check_in_date',
  'check_out_date',
  'guest_first_name',
  'guest_last_name',
  'guest_full_name',
  'guest_phone',
  'guest_email',
  'guest_location',
  'guest_language',
  'identification_enc',
  'callback_url',
  'skip_gp',
  'updated_at',
] as const;

/**
 * The columns a reservation update may write: not the id, owner, token or PostgreSQL's generated
 * search column, and not what screening, manual decisions and the portal own.
 */
export function mutableColumns(r: ReservationRow): Updateable<ReservationsTable> {
  return Object.fromEntries(MUTABLE.map((c) => [c, r[c]]));
}

/**
 * What the reservation view (views.ts) shows, read instead of every column where only the view is
 * answered: a screened reservation also carries its screening result, kilobytes of JSON that the
 * view does not show and the driver would otherwise decode on every read.
 */
export const VIEW_COLUMNS = [
  'id',
  'account_id',
  'pms',
  'pms_reservation_id',
  'confirmation_code',
  'status',
  'source',
  'listing_id',
  'listing_nickname',
  'listing_timezone_name',
  'number_of_guests',
  'nights',
  'total_price',
  'average_daily_rate',
  'check_in_date',
  'check_out_date',
  'guest_first_name',
  'guest_last_name',
  'guest_full_name',
  'guest_phone',
  'guest_email',
  'guest_location',
  'guest_language',
  'identification_enc',
  'gp_token',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ReservationsTable)[];

export type ReservationViewRow = Pick<ReservationRow, (typeof VIEW_COLUMNS)[number]>;

/** How a read names its reservation: by id, by confirmation code (pms), or by the PMS's own id (pms and usePmsId). */
export interface Lookup {
  pms?: string | undefined;
  usePmsId?: boolean | undefined;
}

const lookup = (db: Db, accountId: string, id: string, by: Lookup) => {
  const q = db.selectFrom('reservations').where('account_id', '=', accountId);
  if (!by.pms) return q.where('id', '=', id);
  return by.usePmsId ? q.where('pms', '=', by.pms).where('pms_reservation_id', '=', id).orderBy('created_at') : q.where('pms', '=', by.pms).where('confirmation_code', '=', id);
};

export async function findReservation(db: Db, accountId: string, id: string, by: Lookup = {}): Promise<ReservationRow | undefined> {
  return lookup(db, accountId, id, by).selectAll().executeTakeFirst();
}

// The read behind GET /v1/reservations/{id}, the most frequent one: compiled once.
const viewById = compiledOnce((db: Db, accountId: string, id: string) => lookup(db, accountId, id, {}).select(VIEW_COLUMNS));

/** The same reservation as findReservation, with only the columns its view shows. */
export async function findReservationView(db: Db, accountId: string, id: string, by: Lookup = {}): Promise<ReservationViewRow | undefined> {
  if (!by.pms) return (await viewById(db, accountId, id))[0];
  return lookup(db, accountId, id, by).select(VIEW_COLUMNS).executeTakeFirst();
}

export function findByPortalToken(db: Db, token: string): Promise<ReservationRow | undefined> {
  return db.selectFrom('reservations').selectAll().where('gp_token', '=', token).executeTakeFirst();
}

export const findById = (db: Db, accountId: string, id: string) => findReservation(db, accountId, id);

export const findByCode = (db: Db, accountId: string, pms: string, code: string) => findReservation(db, accountId, code, { pms });

/**
 * Erasure: deletes what every other table holds about a reservation (payment events, notes,
 * idempotency records, events with their deliveries, guest messages, the portal and its files,
 * the identity documents read and their photos, the alerts to the account's people, the names
 * on its police reports);
 * the ids of the deleted messages and alerts, whose copies at the provider are erased by a job.
 */
export async function eraseGuestRecords(tx: Tx, id: string): Promise<string[]> {
  await tx.deleteFrom('payment_events').where('reservation_id', '=', id).execute();
  await tx.deleteFrom('reservation_notes').where('reservation_id', '=', id).execute();
  await tx.deleteFrom('idempotency_keys').where('resource_id', '=', id).execute();
  // Event bodies carry the guest's data; their deliveries and attempts go with them.
  await tx.deleteFrom('events').where('subject_id', '=', id).execute();
  const messages = await tx.deleteFrom('guest_messages').where('reservation_id', '=', id).returning('id').execute();
  await tx.deleteFrom('guest_portal_files').where('reservation_id', '=', id).execute();
  await tx.deleteFrom('guest_portal').where('reservation_id', '=', id).execute();
  const documents = tx.selectFrom('identity_verifications').select('id').where('reservation_id', '=', id);
  await tx.deleteFrom('identity_images').where('verification_id', 'in', documents).execute();
  await tx.deleteFrom('identity_verifications').where('reservation_id', '=', id).execute();
  // The e-mails that told the account's people of the guest are kept in the outbox by the alert's id.
  const alerts = await tx.deleteFrom('alerts').where('reservation_id', '=', id).returning('id').execute();
  // The checks ordered from the booking's page are about the guest (their Checkr orders go with them).
  await tx.deleteFrom('background_checks').where('reservation_id', '=', id).execute();
  // A police report's proof of filing is kept, as the law asks of the host; the guest's name goes.
  await tx.updateTable('authority_reports').set({ guest_name: '', sent_enc: null }).where('reservation_id', '=', id).execute();
  return [...messages, ...alerts].map((m) => m.id);
}

export async function deleteReservation(db: Db, id: string): Promise<void> {
  await db.deleteFrom('reservations').where('id', '=', id).execute();
}

/**
 * True when the guest's e-mail or phone appears on a reservation of the account made before this
 * one. One look-up per contact on its own index; the date is compared here, so no planner can
 * prefer walking the account's bookings by date.
 */
export async function hasEarlierWithContact(db: Db, r: Pick<ReservationRow, 'account_id' | 'id' | 'created_at' | 'guest_email' | 'guest_phone'>): Promise<boolean> {
  for (const [column, value] of [
    ['guest_email', r.guest_email],
    ['guest_phone', r.guest_phone],
  ] as const) {
    if (!value) continue;
    const rows = await db.selectFrom('reservations').select('created_at').where('account_id', '=', r.account_id).where(column, '=', value).where('id', '!=', r.id).execute();
    if (rows.some((row) => row.created_at <= r.created_at)) return true;
  }
  return false;
}

export interface SearchFilters {
  status?: string | undefined;
  text?: string | undefined;
  listings?: string[] | undefined;
  emails?: string[] | undefined;
  source?: string | undefined;
  guestportalCompleted?: boolean | undefined;
  /** Check-out on or after (true) or before (false) this day. */
  active?: { value: boolean; today: string } | undefined;
  pendingReview?: boolean | undefined;
  /** The latest verdict's colour. */
  riskColor?: string | undefined;
  dateField: 'check_in_date' | 'check_out_date' | 'created_at' | 'updated_at';
  /** Inclusive bounds, already in the date field's own format. */
  from?: string | undefined;
  to?: string | undefined;
  offset: number;
  limit: number;
}

const VIEW_SQL = VIEW_COLUMNS.join(', ');

/** Only a text term, in the default order: on SQLite the full-text index answers it by its keys (db/sqlite/text-search.ts). */
const byIndexKeys = (dialect: DialectKind, f: SearchFilters) =>
  dialect === 'sqlite' &&
  f.text !== undefined &&
  f.text.length >= 3 &&
  f.dateField === 'check_in_date' &&
  !f.status &&
  !f.source &&
  !f.listings?.length &&
  !f.emails?.length &&
  f.guestportalCompleted === undefined &&
  !f.active &&
  !f.pendingReview &&
  !f.riskColor &&
  !f.from &&
  !f.to;

export async function searchReservations(db: Db, dialect: DialectKind, accountId: string, f: SearchFilters): Promise<{ total: number; rows: ReservationViewRow[] }> {
  if (byIndexKeys(dialect, f)) {
    const answer = await searchTextByCheckIn(db, { accountId, term: f.text!, offset: f.offset, limit: f.limit, columns: VIEW_SQL });
    if (!('general' in answer)) return answer as { total: number; rows: ReservationViewRow[] };
  }
  // The values by name, and the shape: everything else the SQL depends on (byShape).
  const text = f.text ? reservationTextMatch(dialect, f.text) : undefined;
  const values: Record<string, unknown> = { account: accountId, offset: f.offset, limit: f.limit };
  const given = <T>(name: string, value: T | undefined) => (value === undefined || value === '' ? false : ((values[name] = value), true));
  const listed = (name: string, list: string[] | undefined) => (list ?? []).map((value, i) => ((values[`${name}${i}`] = value), `${name}${i}`));
  const has = {
    status: given('status', f.status),
    source: given('source', f.source),
    listings: listed('listing', f.listings),
    emails: listed('email', f.emails),
    portal: given('portal', f.guestportalCompleted),
    active: f.active ? (given('today', f.active.today), f.active.value ? '>=' : '<') : false,
    review: f.pendingReview === true,
    color: given('color', f.riskColor),
    from: given('from', f.from),
    to: given('to', f.to),
    text: text ? (given('text', text.value), text.shape) : false,
  } as const;
  const shape = `${dialect}:${f.dateField}:${JSON.stringify(has)}`;
  const queries = byShape(db, shape, values, (v) => {
    // With a text term on SQLite the trigram index is the selective part: the unary + keeps the
    // planner from walking the account's other indexes instead.
    const textFirst = has.text === 'fts';
    const col = (name: keyof ReservationsTable) => (textFirst ? sql.raw(`+reservations.${name}`) : sql.ref(`reservations.${name}`));
    let q = db.selectFrom('reservations').modifyFront(PLAN_PER_CALL).where(col('account_id'), '=', v('account'));
    if (has.status) q = q.where(col('status'), '=', v('status'));
    if (has.source) q = q.where(col('source'), '=', v('source'));
    if (has.listings.length) q = q.where(col('listing_id'), 'in', has.listings.map(v));
    if (has.emails.length) q = q.where(col('guest_email'), 'in', has.emails.map(v));
    if (has.portal) q = q.where('guestportal_completed', '=', v('portal'));
    if (has.active) q = q.where(col('check_out_date'), has.active, v('today'));
    if (has.review) q = q.where(col('verification_status'), '=', 'review').where('supervised', 'is', null);
    if (has.color) q = q.where(col('risk_color'), '=', v('color'));
    if (has.from) q = q.where(col(f.dateField), '>=', v('from'));
    if (has.to) q = q.where(col(f.dateField), '<=', v('to'));
    if (text) q = q.where(text.where(v('text')));
    // Undated reservations last on both databases (migration 0014).
    const ordered = <T extends Orderable<T>>(x: T) => x.orderBy(`reservations.${f.dateField}`, (o) => o.desc().nullsLast()).orderBy('reservations.id', 'desc');
    if (text) return [textSearchOnce(db, q, f.dateField, ordered, v('offset'), v('limit'))];
    return [
      q.select(countAll().as('n')),
      ordered(q.select(VIEW_COLUMNS.map((c) => `reservations.${c}` as const)))
        .offset(v('offset'))
        .limit(v('limit')),
    ];
  });
  if (text) {
    const [rows] = (await readRows(db, queries)) as [(ReservationViewRow & { total: number | string })[]];
    return { total: Number(rows[0]?.total ?? 0), rows: rows.filter((r) => r.id !== null).map(({ total: _, ...view }) => view) };
  }
  const [counted, rows] = await readRows(db, queries);
  return { total: Number((counted![0] as { n: number | string }).n), rows: rows as ReservationViewRow[] };
}

/** A query that takes the search's order: the date newest first, undated last, then the id. */
type Orderable<T> = { orderBy(c: string, d: OrderByModifiers): T };

/**
 * Text search in one statement: the index is searched once, its matches (key and sort date) are
 * kept in a materialised common table expression, and both the count and the page are read from
 * it; text matches come in no useful order, so only the keys are sorted, not whole rows. As two
 * statements, the count and the page each ran the search and read every match's row (on
 * PostgreSQL the trigram scan and the recheck of every candidate row twice). The left join keeps the count when
 * the page is past the end. On SQLite a text search alone in the default order goes by the
 * index's keys instead (db/sqlite/text-search.ts).
 */
function textSearchOnce(
  db: Db,
  q: SelectQueryBuilder<Database, 'reservations', object>,
  dateField: SearchFilters['dateField'],
  ordered: <T extends Orderable<T>>(x: T) => T,
  offset: number,
  limit: number,
) {
  return ordered(
    db
      .with(
        (cte) => cte('m').materialized(),
        () => q.select(['reservations.id as id', sql<string | null>`${sql.ref(`reservations.${dateField}`)}`.as('d')]),
      )
      .with('p', (w) =>
        w
          .selectFrom('m')
          .select('m.id')
          .orderBy('m.d', (o) => o.desc().nullsLast())
          .orderBy('m.id', 'desc')
          .offset(offset)
          .limit(limit),
      )
      .selectFrom((w) => w.selectFrom('m').select(countAll().as('total')).as('t'))
      .leftJoin('reservations', (join) => join.on((eb) => eb('reservations.id', 'in', eb.selectFrom('p').select('p.id'))))
      .select('t.total')
      .select(VIEW_COLUMNS.map((c) => `reservations.${c}` as const)),
  );
}

/** Inserts the event unless (reservation, source, event id) is already recorded; true when inserted. */
export async function insertPaymentEvent(db: Db, row: Insertable<PaymentEventsTable>): Promise<boolean> {
  const r = await db
    .insertInto('payment_events')
    .values(row)
    .onConflict((oc) => oc.columns(['reservation_id', 'event_source', 'event_id']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The account's latest `limit` screened reservations, newest first. */
export function screenedReservations(db: Db, accountId: string, limit: number): Promise<ReservationRow[]> {
  return db.selectFrom('reservations').selectAll().where('account_id', '=', accountId).where('screening', 'is not', null).orderBy('created_at', 'desc').limit(limit).execute();
}

/** A part of the review queue: the rows of one index range of reservations_queue_idx. */
type QueuePart = (q: SelectQueryBuilder<Database, 'reservations', object>) => SelectQueryBuilder<Database, 'reservations', object>;

/** The colours of the queue, most urgent first; null is a reservation not screened yet. */
export const QUEUE_COLORS = ['red', 'orange', 'yellow', 'green', null] as const;
export type QueueColor = (typeof QUEUE_COLORS)[number];

/** The queue's urgency, most urgent first: a red or orange finding, then yellow and green, then not screened yet. */
const URGENCY: QueueColor[][] = [['red', 'orange'], ['yellow', 'green'], [null]];

/**
 * An account's bookings nobody has decided on, not cancelled, whose stay is not over (undated
 * ones included): what the review queue and its declined-by-rules list are drawn from, each a
 * range of reservations_queue_idx. The index's own condition, word for word, so SQLite's planner
 * sees that it applies.
 */
function undecidedStays(db: Db, accountId: string, today: string) {
  return db
    .selectFrom('reservations')
    .where('account_id', '=', accountId)
    .where(sql<boolean>`supervised is null and verification_status in ('review', 'declined', 'pending')`)
    .where('status', '!=', 'CANCELED')
    .where((eb) => eb.or([eb('check_out_date', '>=', today), eb.and([eb('check_out_date', 'is', null), eb.or([eb('check_in_date', 'is', null), eb('check_in_date', '>=', today)])])]));
}

/**
 * The review queue (docs/console.md): reservations nobody has decided on, not cancelled, whose
 * stay is not over, whose screening asks for a look (review), or that are pending with a red or
 * orange finding (waiting for the guest portal, say), or pending and checking in between `today`
 * and `horizon`. A verdict that declined the guest is a decision, not a question: it is not here.
 * Most urgent first: red and orange together, then yellow and green, then those not screened yet,
 * each by check-in (undated last), then id; a guest with an orange finding checking in next week
 * stands above a red one checking in next year. Each part (one or two colours, dated or undated)
 * is a range of the partial index reservations_queue_idx. `color` keeps the page and its total to
 * one colour; the counts of every colour come back beside them, for a filter.
 */
export async function waitingForDecision(
  db: Db,
  accountId: string,
  w: { today: string; horizon: string; offset: number; limit: number; color?: QueueColor | undefined },
): Promise<{ total: number; byColor: Map<QueueColor, number>; rows: ReservationRow[] }> {
  const part =
    (colors: QueueColor[], dated: boolean): QueuePart =>
    (q) => {
      const urgent = colors.every((c) => c === 'red' || c === 'orange');
      const known = colors.filter((c): c is Exclude<QueueColor, null> => c !== null);
      return q
        .where((eb) => (known.length ? eb('risk_color', 'in', known) : eb('risk_color', 'is', null)))
        .where('check_in_date', dated ? 'is not' : 'is', null)
        .where((eb) =>
          eb.or([
            eb('verification_status', '=', 'review'),
            urgent ? eb('verification_status', '=', 'pending') : eb.and([eb('verification_status', '=', 'pending'), eb('check_in_date', '>=', w.today), eb('check_in_date', '<=', w.horizon)]),
          ]),
        );
    };
  const base = () => undecidedStays(db, accountId, w.today);
  const count = async (p: QueuePart) => Number((await p(base()).select(countAll().as('n')).executeTakeFirstOrThrow()).n);
  // Each colour counted dated and undated: the filter's counts, and each part's, without counting twice.
  const counted = new Map(await Promise.all(QUEUE_COLORS.map(async (c) => [c, [await count(part([c], true)), await count(part([c], false))]] as const)));
  const byColor = new Map(QUEUE_COLORS.map((c) => [c, counted.get(c)![0] + counted.get(c)![1]]));
  const groups = w.color === undefined ? URGENCY : [[w.color]];
  const parts = groups.flatMap((colors) => [true, false].map((dated) => ({ part: part(colors, dated), n: colors.reduce((sum, c) => sum + counted.get(c)![dated ? 0 : 1], 0) })));
  const rows: ReservationRow[] = [];
  let skip = w.offset;
  for (const { part: p, n } of parts) {
    if (rows.length >= w.limit) break;
    if (skip >= n) {
      skip -= n;
      continue;
    }
    const page = await p(base())
      .selectAll()
      .orderBy('check_in_date')
      .orderBy('id')
      .offset(skip)
      .limit(w.limit - rows.length)
      .execute();
    rows.push(...(page as ReservationRow[]));
    skip = 0;
  }
  return { total: parts.reduce((sum, p) => sum + p.n, 0), byColor, rows };
}

/**
 * Reservations a rule declined (no person decided) that are still the host's to act on: not
 * cancelled, not marked handled, not made with a callback (the system that made them was told),
 * the stay not over; by check-in (undated last), then id. A range of reservations_queue_idx.
 */
export async function declinedByRules(db: Db, accountId: string, w: { today: string; offset: number; limit: number }): Promise<{ total: number; rows: ReservationRow[] }> {
  const base = () => undecidedStays(db, accountId, w.today).where('verification_status', '=', 'declined').where('handled_at', 'is', null).where('callback_url', 'is', null);
  const total = Number((await base().select(countAll().as('n')).executeTakeFirstOrThrow()).n);
  if (!total) return { total, rows: [] };
  const rows = (await base()
    .selectAll()
    .orderBy(sql`check_in_date is null`)
    .orderBy('check_in_date')
    .orderBy('id')
    .offset(w.offset)
    .limit(w.limit)
    .execute()) as ReservationRow[];
  return { total, rows };
}

/** Whole reservations of an account by id, in the order given (a search page's rows, with their verdicts). */
export async function findReservations(db: Db, accountId: string, ids: string[]): Promise<ReservationRow[]> {
  if (!ids.length) return [];
  // By id alone, so the planner walks the primary key: with account_id in the WHERE clause
  // SQLite preferred the account's index and read every row of the account. Tenancy holds below.
  const rows = (await db.selectFrom('reservations').selectAll().where('id', 'in', ids).execute()) as ReservationRow[];
  const byId = new Map(rows.filter((r) => r.account_id === accountId).map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export type ListingRow = Selectable<ListingsTable>;

export function findListing(db: Db, accountId: string, listingId: string): Promise<ListingRow | undefined> {
  return db.selectFrom('listings').selectAll().where('account_id', '=', accountId).where('listing_id', '=', listingId).executeTakeFirst();
}

export async function renameListing(db: Db, accountId: string, listingId: string, nickname: string | null, at: string): Promise<void> {
  await db.updateTable('listings').set({ nickname, updated_at: at }).where('account_id', '=', accountId).where('listing_id', '=', listingId).execute();
}

export async function insertListing(db: Db, row: Insertable<ListingsTable>): Promise<void> {
  await db.insertInto('listings').values(row).execute();
}

/** Writes a listing's guest-side fields (profile, check-in instructions), making the listing if no booking has named it yet. */
export async function saveListingInfo(db: Db, accountId: string, listingId: string, change: Partial<Pick<ListingsTable, 'profile' | 'check_in_enc' | 'check_in_hours'>>, at: string): Promise<void> {
  await db
    .insertInto('listings')
    .values({ account_id: accountId, listing_id: listingId, nickname: null, profile: null, check_in_enc: null, check_in_hours: null, ...change, created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['account_id', 'listing_id']).doUpdateSet({ ...change, updated_at: at }))
    .execute();
}

/** The account's upcoming confirmed bookings at a listing (check-in today or later), soonest first. */
export function upcomingAtListing(db: Db, accountId: string, listingId: string, today: string, limit = 1000): Promise<ReservationRow[]> {
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('status', '=', 'CONFIRMED')
    .where('check_in_date', '>=', today)
    .orderBy('check_in_date')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * A page of the account's stays that have not ended (at one listing, when given), by id after
 * `afterId`: the bookings a police establishment saved now must report.
 */
export function staysNotEnded(db: Db, accountId: string, listingId: string | null, today: string, afterId: string, limit: number): Promise<ReservationRow[]> {
  let q = db
    .selectFrom('reservations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '!=', 'CANCELED')
    .where('id', '>', afterId)
    .where((eb) => eb.or([eb('check_out_date', '>=', today), eb.and([eb('check_out_date', 'is', null), eb('check_in_date', '>=', today)])]));
  if (listingId !== null) q = q.where('listing_id', '=', listingId);
  return q.orderBy('id').limit(limit).execute();
}

/** The booking at a listing with the latest check-in (undated last), to preview what its guests see. */
export function latestAtListing(db: Db, accountId: string, listingId: string): Promise<ReservationRow | undefined> {
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .orderBy('check_in_date', (o) => o.desc().nullsLast())
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** A page of the account's listings by name, whether each has words of its own and check-in instructions. */
export async function listingsPage(db: Db, accountId: string, offset: number, limit: number) {
  const base = db.selectFrom('listings').where('account_id', '=', accountId);
  const [counted, rows] = await Promise.all([
    base.select(countAll().as('n')).executeTakeFirstOrThrow(),
    base
      .select((eb) => ['listing_id', 'nickname', 'check_in_hours', eb('profile', 'is not', null).as('own_profile'), eb('check_in_enc', 'is not', null).as('has_check_in')])
      .orderBy((eb) => eb.fn.coalesce('nickname', 'listing_id'))
      .orderBy('listing_id')
      .offset(offset)
      .limit(limit)
      .execute(),
  ]);
  return { total: Number(counted.n), rows: rows.map((r) => ({ ...r, own_profile: Boolean(r.own_profile), has_check_in: Boolean(r.has_check_in) })) };
}

/** For each of these listings, how many confirmed stays are to come and the next one's check-in day. */
export function upcomingByListing(db: Db, accountId: string, listingIds: string[], today: string) {
  if (!listingIds.length) return Promise.resolve([]);
  return db
    .selectFrom('reservations')
    .select((eb) => ['listing_id', eb.fn.countAll<number | string>().as('n'), eb.fn.min('check_in_date').as('next')])
    .where('account_id', '=', accountId)
    .where('listing_id', 'in', listingIds)
    .where('status', '=', 'CONFIRMED')
    .where('check_in_date', '>=', today)
    .groupBy('listing_id')
    .execute();
}

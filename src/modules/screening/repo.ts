import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { MatchDismissalsTable } from '../../db/schema.js';

/** Records a host's dismissal of a listed entry for a guest, replacing an earlier one of the same pair. */
export async function upsertDismissal(db: Db, row: MatchDismissalsTable): Promise<void> {
  await db
    .insertInto('match_dismissals')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'guest_key', 'list', 'entry_id'])
        .doUpdateSet({ entry_content: row.entry_content, reservation_id: row.reservation_id, author_id: row.author_id, created_at: row.created_at }),
    )
    .execute();
}

/** The entries an account's host dismissed for this guest. */
export async function dismissalsOf(db: Db, accountId: string, guestKey: string): Promise<Pick<MatchDismissalsTable, 'list' | 'entry_id' | 'entry_content'>[]> {
  return db.selectFrom('match_dismissals').select(['list', 'entry_id', 'entry_content']).where('account_id', '=', accountId).where('guest_key', '=', guestKey).execute();
}

/** Erasure: the dismissals a reservation's host made go with it. */
export async function deleteDismissalsOf(db: Db, reservationId: string): Promise<void> {
  await db.deleteFrom('match_dismissals').where('reservation_id', '=', reservationId).execute();
}

/**
 * Reservations screened per day since a time, by the colour of that day's verdicts: the console's
 * chart. A reservation screened twice in a day with two colours counts once under each.
 */
export async function screenedPerDay(db: Db, accountId: string, since: string): Promise<{ day: string; color: string; n: number }[]> {
  const day = sql<string>`substr(created_at, 1, 10)`;
  const rows = await db
    .selectFrom('screening_runs')
    .select([day.as('day'), 'risk_color as color', sql<number | string>`count(distinct reservation_id)`.as('n')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .groupBy([day, 'risk_color'])
    .execute();
  return rows.flatMap((r) => (r.color ? [{ day: r.day, color: r.color, n: Number(r.n) }] : []));
}

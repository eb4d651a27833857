import type { Insertable, Selectable } from 'kysely';
import type { Db, Tx } from '../../db/connection.js';
import type { SexOffenderRecordsTable } from '../../db/schema.js';

export type OffenderRecord = Selectable<SexOffenderRecordsTable>;

export async function hasRecords(db: Db): Promise<boolean> {
  return Boolean(await db.selectFrom('sex_offender_records').select('id').limit(1).executeTakeFirst());
}

/** When the records were last imported (YYYY-MM-DD), '' before any import. */
export async function lastImported(db: Db): Promise<string> {
  const row = await db
    .selectFrom('sex_offender_records')
    .select((eb) => eb.fn.max('imported_at').as('at'))
    .executeTakeFirst();
  return String(row?.at ?? '').slice(0, 10);
}

export function recordsBornOn(db: Db, state: string, dob: string): Promise<OffenderRecord[]> {
  return db.selectFrom('sex_offender_records').selectAll().where('state', '=', state).where('dob', '=', dob).execute();
}

/** Records sharing the last name, as a name or inside an alias, narrowed by year of birth and state when given. */
export function recordsByLastName(db: Db, q: { lastName: string; yearOfBirth?: number | null | undefined; state?: string | null | undefined }): Promise<OffenderRecord[]> {
  const last = q.lastName.toLowerCase();
  let query = db
    .selectFrom('sex_offender_records')
    .selectAll()
    .where((eb) => eb.or([eb(eb.fn('lower', ['last_name']), '=', last), eb(eb.fn('lower', ['aliases']), 'like', `%${last.replace(/[\\%_"]/g, '')}%`)]));
  if (q.yearOfBirth) query = query.where('dob', 'like', `${q.yearOfBirth}-%`);
  if (q.state) query = query.where('state', '=', q.state);
  return query.execute();
}

export async function deleteSource(tx: Tx, source: string): Promise<void> {
  await tx.deleteFrom('sex_offender_records').where('source', '=', source).execute();
}

export async function insertRecords(tx: Tx, rows: Insertable<SexOffenderRecordsTable>[]): Promise<void> {
  await tx.insertInto('sex_offender_records').values(rows).execute();
}

import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * Each screening run's risk colour in a column of its own, in the index the console's week
 * chart counts from (runs per day and colour): reading it out of the verdict's JSON meant
 * parsing every run of the week.
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema.alterTable('screening_runs').addColumn('risk_color', 'text').execute();
  const color = d.kind === 'postgres' ? sql`verdict::jsonb ->> 'risk_color'` : sql`json_extract(verdict, '$.risk_color')`;
  await sql`update screening_runs set risk_color = ${color}`.execute(db);
  await db.schema.dropIndex('screening_runs_account_idx').execute();
  await db.schema.createIndex('screening_runs_account_idx').on('screening_runs').columns(['account_id', 'created_at', 'risk_color', 'reservation_id']).execute();
}

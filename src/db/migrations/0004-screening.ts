import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

export async function up(db: Kysely<unknown>, _d: DialectHelpers): Promise<void> {
  // Every screening run, kept: what went in (digest), what each check found, the verdict.
  await db.schema
    .createTable('screening_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('reservation_id', 'text', (c) => c.notNull().references('reservations.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('inputs_digest', 'text', (c) => c.notNull())
    .addColumn('engine_version', 'text', (c) => c.notNull())
    .addColumn('checks', 'text', (c) => c.notNull())
    .addColumn('rules_fired', 'text', (c) => c.notNull())
    .addColumn('verdict', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('screening_runs_res_idx').on('screening_runs').columns(['reservation_id', 'created_at']).execute();
  await db.schema.alterTable('reservations').addColumn('screening', 'text').execute();
  await db.schema.alterTable('reservations').addColumn('screened_at', 'text').execute();
}

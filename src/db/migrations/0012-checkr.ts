import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * The Checkr orders of background checks: the candidate and the invitation Checkr made for a
 * check's criminal-records section, and the report once the guest has completed the invitation.
 * Found by the candidate when Checkr's webhook arrives; gone with the check it belongs to.
 */
export async function up(db: Kysely<unknown>, _d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('checkr_orders')
    .addColumn('check_id', 'text', (c) => c.primaryKey().references('background_checks.id').onDelete('cascade'))
    .addColumn('candidate_id', 'text', (c) => c.notNull().unique())
    .addColumn('invitation_id', 'text', (c) => c.notNull())
    .addColumn('report_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

import type { Kysely } from 'kysely';

/**
 * What each screening run read of the guest's identity document, kept with the run (the
 * decision record), sealed like the reading itself: the run's findings can then be traced to the
 * fields they were drawn from after the photos, or a later reading, have replaced them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('screening_runs').addColumn('document_enc', 'text').execute();
}

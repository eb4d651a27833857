import type { Kysely } from 'kysely';

/**
 * Police reports claimed before the authority is called, and kept with their proof
 * (docs/authority-reports.md):
 * - `version`: counts the report's writes; a write made over what was read checks it (a send's
 *   claim, a planning), so two writers never both win.
 * - `claimed_until`: a send in flight holds its stay's reports until then; another job that finds
 *   them claimed does nothing, and one that finds the claim lapsed knows the sender stopped.
 * - `sent_enc`: what was sent for the guest (SES's part, Alloggiati's row), sealed: the host's proof.
 * - `answer`: what the authority answered for the guest, in its words.
 * - Alloggiati's tables' day on an establishment: when its credentials last fetched them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('authority_reports')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('authority_reports').addColumn('claimed_until', 'text').execute();
  await db.schema.alterTable('authority_reports').addColumn('sent_enc', 'text').execute();
  await db.schema.alterTable('authority_reports').addColumn('answer', 'text').execute();
  await db.schema.alterTable('authority_establishments').addColumn('tables_as_of', 'text').execute();
  await db.schema.alterTable('authority_establishments').addColumn('tables_problem', 'text').execute();
}

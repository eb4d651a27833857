import type { Kysely } from 'kysely';

/**
 * The sanctions lists' version is when they were last imported: an index on imported_at makes
 * reading it one step, so every search can ask whether another process imported since.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('sanctions_names_imported_idx').on('sanctions_names').column('imported_at').execute();
}

import type { Kysely } from 'kysely';

/**
 * A host's word that a listed entry is not their guest: per account, guest (a digest of the
 * guest's normalised name, not the name) and entry, with the entry's content as it was then, so
 * the entry alerts again only once a list changes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('match_dismissals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('guest_key', 'text', (c) => c.notNull())
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('entry_id', 'text', (c) => c.notNull())
    .addColumn('entry_content', 'text', (c) => c.notNull())
    .addColumn('reservation_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('match_dismissals_guest_entry', ['account_id', 'guest_key', 'list', 'entry_id'])
    .execute();
  await db.schema.createIndex('match_dismissals_reservation_idx').on('match_dismissals').column('reservation_id').execute();
}

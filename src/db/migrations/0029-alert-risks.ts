import { sql, type Kysely } from 'kysely';

/**
 * An alert is once per person, reservation, reason and top risk (docs/decisions/alerts.md): a
 * later, stronger finding at the same colour is told again. SQLite cannot drop a constraint, so
 * the table is made again with the new one and its rows copied (`risk` '' for the old ones).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alerts_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('reservation_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('reason', 'text', (c) => c.notNull())
    // The code of the verdict's top risk when the alert was planned ('' for the guest portal's).
    .addColumn('risk', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addUniqueConstraint('alerts_once_per_risk', ['reservation_id', 'reason', 'risk', 'user_id'])
    .execute();
  await sql`INSERT INTO alerts_next (id, account_id, reservation_id, user_id, reason, risk, mode, state, created_at, sent_at)
    SELECT id, account_id, reservation_id, user_id, reason, '', mode, state, created_at, sent_at FROM alerts`.execute(db);
  await db.schema.dropTable('alerts').execute();
  await db.schema.alterTable('alerts_next').renameTo('alerts').execute();
  await db.schema.createIndex('alerts_user_state_idx').on('alerts').columns(['user_id', 'state']).execute();
}

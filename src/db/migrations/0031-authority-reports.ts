import type { Kysely } from 'kysely';

/**
 * A report of one guest of one stay to one police system (docs/authority-reports.md): its state,
 * what is missing, when it is due, and the authority's answer (the only proof of filing).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('authority_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('reservation_id', 'text', (c) => c.notNull())
    // 0 for the guest who booked, 1… for the others in the order the portal asked them.
    .addColumn('guest_index', 'integer', (c) => c.notNull())
    .addColumn('guest_name', 'text', (c) => c.notNull())
    .addColumn('system', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    // missing, ready, sending, sent, accepted, rejected, cancelled (late is ready or sent past due_at).
    .addColumn('state', 'text', (c) => c.notNull())
    // JSON: the fields missing or breaking the authority's rules, as field names.
    .addColumn('missing', 'text', (c) => c.notNull())
    // A digest of what was sent: a change after sending cancels and sends again.
    .addColumn('sent_digest', 'text')
    // SES: the lot the part went in; the authority's number for the filing (SES codigoComunicacion).
    .addColumn('lot', 'text')
    .addColumn('receipt', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('polls', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('alerted_at', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('answered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('authority_reports_guest', ['reservation_id', 'guest_index', 'system'])
    .execute();
  await db.schema.createIndex('authority_reports_account_due').on('authority_reports').columns(['account_id', 'due_at']).execute();
  // Alloggiati Web's receipt of a day (a PDF listing the guests filed that day), sealed: the proof
  // the host keeps (5 years), downloadable from the service for 30 days only.
  await db.schema
    .createTable('authority_receipts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('establishment_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('pdf_enc', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('authority_receipts_day', ['establishment_id', 'day'])
    .execute();
  // The hourly look for reports near their deadline, across accounts.
  await db.schema.createIndex('authority_reports_due').on('authority_reports').columns(['due_at']).execute();
}

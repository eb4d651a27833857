import type { Insertable, Selectable } from 'kysely';
import { insertRows } from '../../db/compiled.js';
import { withTx, type Db } from '../../db/connection.js';
import { countAll } from '../../db/dialect.js';
import type { AccountsTable, EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable } from '../../db/schema.js';

export type EventRow = Selectable<EventsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** The columns of an account's row that hold the secrets its deliveries are signed with (sealed), which this module keeps. */
export type SigningSecrets = Pick<Selectable<AccountsTable>, 'id' | 'webhook_secret_enc' | 'webhook_secret_prev_enc' | 'webhook_secret_rotated_at'>;

export function findSigningSecrets(db: Db, accountId: string): Promise<SigningSecrets | undefined> {
  return db.selectFrom('accounts').select(['id', 'webhook_secret_enc', 'webhook_secret_prev_enc', 'webhook_secret_rotated_at']).where('id', '=', accountId).executeTakeFirst();
}

export async function saveSigningSecrets(db: Db, accountId: string, change: Omit<SigningSecrets, 'id'> & { updated_at: string }): Promise<void> {
  await db.updateTable('accounts').set(change).where('id', '=', accountId).execute();
}

export async function insertEvent(db: Db, row: Insertable<EventsTable>): Promise<void> {
  await insertRows(db, 'events', [row]);
}

export async function insertDelivery(db: Db, row: Insertable<WebhookDeliveriesTable>): Promise<void> {
  await insertRows(db, 'webhook_deliveries', [row]);
}

export async function findDelivery(db: Db, id: string): Promise<{ delivery: DeliveryRow; event: EventRow } | undefined> {
  const delivery = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  if (!delivery) return undefined;
  const event = await db.selectFrom('events').selectAll().where('id', '=', delivery.event_id).executeTakeFirst();
  return event ? { delivery, event } : undefined;
}

export async function recordAttempt(
  db: Db,
  deliveryId: string,
  attempt: Insertable<WebhookAttemptsTable>,
  delivery: Partial<Pick<DeliveryRow, 'state' | 'attempts' | 'last_status' | 'last_error' | 'updated_at'>>,
): Promise<void> {
  // One transaction: a crash between the two writes would leave an attempt the delivery does not count.
  await withTx(db, async (tx) => {
    await tx.insertInto('webhook_attempts').values(attempt).execute();
    await tx.updateTable('webhook_deliveries').set(delivery).where('id', '=', deliveryId).execute();
  });
}

export async function listDeliveries(db: Db, accountId: string, from: number, size: number) {
  const [count, rows] = await Promise.all([
    db.selectFrom('webhook_deliveries').select(countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow(),
    db
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .selectAll('webhook_deliveries')
      .select(['events.type as event_type', 'events.subject_id as subject_id'])
      .where('webhook_deliveries.account_id', '=', accountId)
      .orderBy('webhook_deliveries.created_at', 'desc')
      .orderBy('webhook_deliveries.id', 'desc')
      .offset(from)
      .limit(size)
      .execute(),
  ]);
  const ids = rows.map((r) => r.id);
  const attempts = ids.length ? await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('id').execute() : [];
  return { total: Number(count.n), rows, attempts };
}

import type { Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { WebhooksTable } from '../../db/schema.js';

export type WebhookRow = Selectable<WebhooksTable>;

export async function upsertWebhook(db: Db, accountId: string, key: string, url: string, at: string): Promise<void> {
  await db
    .insertInto('webhooks')
    .values({ account_id: accountId, webhook_key: key, url, created_at: at, updated_at: at, disabled_at: null, disabled_reason: null })
    .onConflict((oc) => oc.columns(['account_id', 'webhook_key']).doUpdateSet({ url, updated_at: at, disabled_at: null, disabled_reason: null }))
    .execute();
}

export async function deleteWebhook(db: Db, accountId: string, key: string): Promise<boolean> {
  const r = await db.deleteFrom('webhooks').where('account_id', '=', accountId).where('webhook_key', '=', key).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function listWebhooks(db: Db, accountId: string): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId).orderBy('webhook_key').execute();
}

export async function findWebhookUrl(db: Db, accountId: string, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('webhooks').select('url').where('account_id', '=', accountId).where('webhook_key', '=', key).executeTakeFirst();
  return row?.url;
}

/** The URL events for this key go to; none while the webhook is turned off. */
export async function findEnabledWebhookUrl(db: Db, accountId: string, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('webhooks').select('url').where('account_id', '=', accountId).where('webhook_key', '=', key).where('disabled_at', 'is', null).executeTakeFirst();
  return row?.url;
}

/** Turns a webhook off when its receiver said it is gone for good (410) to a delivery to this URL. */
export async function disableWebhook(db: Db, accountId: string, key: string, url: string, at: string, reason: string): Promise<void> {
  await db.updateTable('webhooks').set({ disabled_at: at, disabled_reason: reason }).where('account_id', '=', accountId).where('webhook_key', '=', key).where('url', '=', url).execute();
}

import type { Db } from '../../db/connection.js';

export async function readSetting(db: Db, accountId: string, key: string): Promise<unknown | undefined> {
  const row = await db.selectFrom('account_settings').select('config_data').where('account_id', '=', accountId).where('config_key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.config_data) as unknown) : undefined;
}

export async function writeSetting(db: Db, accountId: string, key: string, data: unknown, at: string): Promise<void> {
  const config_data = JSON.stringify(data);
  await db
    .insertInto('account_settings')
    .values({ account_id: accountId, config_key: key, config_data, updated_at: at })
    .onConflict((oc) => oc.columns(['account_id', 'config_key']).doUpdateSet({ config_data, updated_at: at }))
    .execute();
}

import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { RulesTable } from '../../db/schema.js';

export type RuleRow = Selectable<RulesTable>;

export async function insertRule(db: Db, row: Insertable<RulesTable>): Promise<void> {
  await db.insertInto('rules').values(row).execute();
}

export function findRule(db: Db, accountId: string, id: string): Promise<RuleRow | undefined> {
  return db.selectFrom('rules').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function listRules(db: Db, accountId: string): Promise<RuleRow[]> {
  return db.selectFrom('rules').selectAll().where('account_id', '=', accountId).orderBy('name').execute();
}

/** The rules a screening run applies: the account's enabled ones, by name. */
export async function updateRule(db: Db, id: string, change: Updateable<RulesTable>): Promise<void> {
  await db.updateTable('rules').set(change).where('id', '=', id).execute();
}

export async function deleteRule(db: Db, id: string): Promise<void> {
  await db.deleteFrom('rules').where('id', '=', id).execute();
}

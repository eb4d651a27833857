import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { SignupLinksTable } from '../../db/schema.js';

export type SignupLinkRow = Selectable<SignupLinksTable>;

export async function insertSignupLink(db: Db, row: Insertable<SignupLinksTable>): Promise<void> {
  await db.insertInto('signup_links').values(row).execute();
}

export async function findSignupLinkByTokenHash(db: Db, tokenHash: string): Promise<SignupLinkRow | undefined> {
  return db.selectFrom('signup_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks the link used; false when another request used it first. */
export async function claimSignupLink(db: Db, id: string, accountId: string, at: string): Promise<boolean> {
  const result = await db.updateTable('signup_links').set({ used_at: at, account_id: accountId }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../db/connection.js';
import { newsPhraseMatch, type DialectKind } from '../../db/dialect.js';
import type { NewsArticlesTable } from '../../db/schema.js';

export async function hasArticles(db: Db): Promise<boolean> {
  return Boolean(await db.selectFrom('news_articles').select('id').limit(1).executeTakeFirst());
}

/** When the corpus was last imported (YYYY-MM-DD), null when there is none. */
export async function lastImported(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('news_articles')
    .select((eb) => eb.fn.max('imported_at').as('at'))
    .executeTakeFirst();
  return row?.at ? String(row.at).slice(0, 10) : null;
}

/** The newest 200 articles whose text holds the words as a phrase. */
export function articlesWithPhrase(db: Db, dialect: DialectKind, words: string[]) {
  return db
    .selectFrom('news_articles')
    .select(['url', 'title', 'snippet', 'published_at', 'image', 'domain', 'source', 'imported_at'])
    .where(newsPhraseMatch(dialect, words))
    .orderBy('published_at', 'desc')
    .limit(200)
    .execute();
}

/** Replaces a source's articles, 500 to a statement. */
export async function replaceSource(tx: Tx, source: string, rows: Insertable<NewsArticlesTable>[]): Promise<void> {
  await tx.deleteFrom('news_articles').where('source', '=', source).execute();
  for (let i = 0; i < rows.length; i += 500)
    await tx
      .insertInto('news_articles')
      .values(rows.slice(i, i + 500))
      .execute();
}

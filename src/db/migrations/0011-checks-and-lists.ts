import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * Background checks and adverse-media searches (jobs whose results are kept, sealed), and the
 * data they search: imported sanctions lists, one row per name (aliases too), and an imported
 * news corpus with a full-text index over its folded text (title and snippet without case,
 * accents or punctuation: FTS5 on SQLite, a GIN tsvector index on PostgreSQL).
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('background_checks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('subject_enc', 'text', (c) => c.notNull())
    .addColumn('result_enc', 'text')
    .addColumn('risk_status', 'text')
    .addColumn('error', 'text')
    .addColumn('pdf_enc', d.blobType)
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('stop_date', 'text')
    .execute();
  await db.schema.createIndex('background_checks_account_idx').on('background_checks').columns(['account_id', 'start_date']).execute();

  await db.schema
    .createTable('sanctions_names')
    .addColumn('id', d.serialType, (c) => (d.kind === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('entry_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('primary_name', 'text', (c) => c.notNull())
    .addColumn('is_alias', d.boolType, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('programs', 'text', (c) => c.notNull())
    .addColumn('birth_years', 'text', (c) => c.notNull())
    .addColumn('countries', 'text', (c) => c.notNull())
    .addColumn('remarks', 'text')
    .addColumn('data_date', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sanctions_names_source_idx').on('sanctions_names').column('source').execute();

  await db.schema
    .createTable('news_articles')
    .addColumn('id', d.serialType, (c) => (d.kind === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('snippet', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('image', 'text')
    .addColumn('domain', 'text')
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('news_articles_source_idx').on('news_articles').column('source').execute();
  if (d.kind === 'sqlite') {
    await sql`create virtual table news_fts using fts5(search_text, content='news_articles', content_rowid='id')`.execute(db);
    await sql`create trigger news_fts_ai after insert on news_articles begin
      insert into news_fts(rowid, search_text) values (new.id, new.search_text); end`.execute(db);
    await sql`create trigger news_fts_ad after delete on news_articles begin
      insert into news_fts(news_fts, rowid, search_text) values ('delete', old.id, old.search_text); end`.execute(db);
  } else {
    await sql`create index news_articles_text_idx on news_articles using gin (to_tsvector('simple', search_text))`.execute(db);
  }
}

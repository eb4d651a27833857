import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Insertable } from 'kysely';
import { withTx } from '../../db/connection.js';
import type { NewsArticlesTable } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { nameTokens } from '../../lib/names/names.js';
import * as store from './store.js';

const s = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * Imports a news corpus: JSON lines, one article each, with `url` and `title` required and
 * `snippet` (or `description`), `published_at` (or `publishedAt`, `date`), `image` and
 * `domain` optional. Importing a source again replaces it, in one transaction.
 */
export async function importNews(deps: Deps, file: string, opts: { source?: string | undefined }) {
  const source = opts.source ?? file.split('/').pop() ?? 'imported news';
  const at = iso(deps.clock());
  const rows: Insertable<NewsArticlesTable>[] = [];
  const rejected: { line: number; problem: string }[] = [];
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line++;
    if (!text.trim()) continue;
    let a: Record<string, unknown>;
    try {
      a = JSON.parse(text) as Record<string, unknown>;
    } catch {
      rejected.push({ line, problem: 'not a JSON object' });
      continue;
    }
    const url = s(a.url);
    const title = s(a.title);
    if (!url || !/^https?:\/\//.test(url) || !title) {
      rejected.push({ line, problem: 'url (http or https) and title are required' });
      continue;
    }
    const snippet = s(a.snippet) ?? s(a.description) ?? '';
    const published = s(a.published_at) ?? s(a.publishedAt) ?? s(a.date);
    const when = published ? new Date(published) : null;
    rows.push({
      source,
      url,
      title,
      snippet,
      published_at: when && !Number.isNaN(when.getTime()) ? iso(when) : null,
      image: s(a.image),
      domain: s(a.domain) ?? new URL(url).hostname.replace(/^www\./, ''),
      search_text: nameTokens(`${title} ${snippet}`).join(' '),
      imported_at: at,
    });
  }
  await withTx(deps.db, (tx) => store.replaceSource(tx, source, rows));
  return { source, imported: rows.length, rejected };
}

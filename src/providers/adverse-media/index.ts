import type { Deps } from '../../deps.js';
import * as store from './store.js';
import { personReadings } from '../../lib/names/match.js';
import { nameTokens, nameVariants } from '../../lib/names/names.js';
import { callVendor, isObject, notConfigured, providerFailed, str, unexpected, type LookupContext, type Source } from '../core.js';
import { categorise, RISK_CATEGORIES, type RiskCategory, type Topic } from './taxonomy.js';

export interface MediaSubject {
  firstName: string;
  middleName?: string | null | undefined;
  lastName: string;
  yearOfBirth?: number | null | undefined;
  country: string;
  city?: string | null | undefined;
  state?: string | null | undefined;
}

/** The person's name as given, first, middle and last. */
export const subjectName = (s: MediaSubject) => [s.firstName, s.middleName, s.lastName].filter(Boolean).join(' ');

/** An article about the person, sorted into the spec's risk categories with the evidence. */
export interface MediaFinding {
  title: string;
  snippet: string;
  summary: string;
  displayLink: string | null;
  link: string;
  image: string | null;
  publishedAt: string | null;
  riskCategories: RiskCategory[];
  /** The topics of wrongdoing found near the name, with the words that matched. */
  topics: { topic: Topic; words: string }[];
  source: Source;
}

interface Article {
  title: string;
  snippet: string;
  link: string;
  domain: string | null;
  image: string | null;
  publishedAt: string | null;
  source: Source;
}

/**
 * The name forms searched: "first last" and, with a middle name, "first middle last". A Korean
 * name is also searched family name first, as the press writes it, in each spelling lists and
 * papers use (nameVariants: 박철수 as bak cheol su and pak chol su, park chol su), at most eight
 * forms in all.
 */
function nameForms(s: MediaSubject): string[][] {
  const forms = [[...nameTokens(s.firstName), ...nameTokens(s.lastName)]];
  if (s.middleName) forms.push([...nameTokens(s.firstName), ...nameTokens(s.middleName), ...nameTokens(s.lastName)]);
  if (/\p{Script=Hangul}/u.test(`${s.firstName}${s.lastName}`)) {
    for (const order of [`${s.lastName} ${s.firstName}`, `${s.firstName} ${s.lastName}`]) forms.push(...nameVariants(order));
  }
  const seen = new Set<string>();
  return forms.filter((f) => f.length >= 2 && !seen.has(f.join(' ')) && seen.add(f.join(' '))).slice(0, 8);
}

/** The family name in each spelling the matcher reads it (a Korean surname has several). */
function familyForms(s: MediaSubject): string[][] {
  const seen = new Set<string>();
  return personReadings(s.lastName)
    .filter((f) => f.length > 0 && !seen.has(f.join(' ')) && seen.add(f.join(' ')))
    .slice(0, 4);
}

async function corpusArticles(deps: Deps, forms: string[][], family: string[][]): Promise<Article[]> {
  const out: Article[] = [];
  // The name's forms as phrases, then the family name alone: the matcher (categorise) then finds
  // the person in what the text writes (Putin, Vladimir; Vladimir Vladimirovich Putin).
  for (const form of [...forms, ...family]) {
    const rows = await store.articlesWithPhrase(deps.db, deps.dialect.kind, form);
    for (const r of rows) {
      out.push({ title: r.title, snippet: r.snippet, link: r.url, domain: r.domain, image: r.image, publishedAt: r.published_at, source: { name: r.source, date: r.imported_at.slice(0, 10) } });
    }
  }
  return out;
}

/** When this process may next call GDELT. */
let gdeltNext = 0;
/** The longest a search waits for its turn; past that it fails with Retry-After instead. */
const GDELT_MAX_WAIT_MS = 60_000;

/**
 * GDELT's terms ask for one request in 5 s from an address. Calls from this process take turns
 * that far apart (a search queued behind others waits, up to a minute); GDELT's own 429 still
 * covers other processes on the same address.
 */
async function gdeltTurn(spacingMs: number): Promise<void> {
  const now = Date.now();
  const at = Math.max(now, gdeltNext);
  if (at - now > GDELT_MAX_WAIT_MS)
    throw providerFailed('GDELT', `allows one request in ${spacingMs / 1000} s and ${Math.round((at - now) / spacingMs)} searches are ahead; try again later`, Math.ceil((at - now) / 1000));
  gdeltNext = at + spacingMs;
  if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
}

/** GDELT DOC 2.0 article list: titles only (no snippets), about three months back. */
async function gdeltArticles(ctx: LookupContext, url: string, forms: string[][]): Promise<Article[]> {
  const label = 'GDELT';
  await gdeltTurn(ctx.deps.config.lookups.gdeltSpacingMs);
  const query = forms.map((f) => `"${f.join(' ')}"`).join(' OR ');
  const a = await callVendor(
    ctx,
    'gdelt',
    label,
    `${url}?${new URLSearchParams({ query: forms.length > 1 ? `(${query})` : query, mode: 'artlist', format: 'json', maxrecords: '75', sort: 'datedesc' })}`,
    { timeoutMs: 30_000 },
  );
  if (a.status !== 200) throw unexpected(label, a);
  // GDELT answers an empty result or a query it rejects as plain text, not JSON.
  if (!isObject(a.json)) {
    if (a.text.trim() === '' || a.text.trim() === '{}') return [];
    throw providerFailed(label, `refused the query: ${a.text.slice(0, 200)}`);
  }
  const articles = Array.isArray(a.json.articles) ? a.json.articles.filter(isObject) : [];
  const source = { name: 'GDELT DOC 2.0', date: ctx.deps.clock().toISOString(), url: 'https://www.gdeltproject.org' };
  return articles.flatMap((x) => {
    const link = str(x.url);
    if (!link) return [];
    const seen = str(x.seendate);
    const m = seen ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(seen) : null;
    return [{ title: str(x.title) ?? link, snippet: '', link, domain: str(x.domain), image: str(x.socialimage), publishedAt: m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : null, source }];
  });
}

/**
 * Whether a news corpus is imported: asked of the database on each search (one indexed row), so a
 * corpus another process imports is searched from the next request on.
 */
export const newsCorpusImported = (deps: Deps) => store.hasArticles(deps.db);

/** When the installed news corpus was last imported (YYYY-MM-DD), or null when there is none. */
export async function newsCorpusDate(deps: Deps): Promise<string | null> {
  return store.lastImported(deps.db);
}

/** NewsAPI `/everything`: titles and descriptions naming the person, newest first. */
async function newsapiArticles(ctx: LookupContext, key: string, url: string, forms: string[][]): Promise<Article[]> {
  const label = 'NewsAPI';
  const q = forms.map((f) => `"${f.join(' ')}"`).join(' OR ');
  const a = await callVendor(ctx, 'newsapi', label, `${url}/everything?${new URLSearchParams({ q, searchIn: 'title,description', sortBy: 'publishedAt', pageSize: '100' })}`, {
    headers: { 'x-api-key': key },
  });
  const body = isObject(a.json) ? a.json : {};
  if (body.status === 'error' || a.status === 401) throw providerFailed(label, `refused the request: ${str(body.code) ?? a.status} ${str(body.message) ?? ''}`.trim());
  if (a.status !== 200 || !Array.isArray(body.articles)) throw unexpected(label, a);
  const source = { name: 'NewsAPI', date: ctx.deps.clock().toISOString(), url: 'https://newsapi.org' };
  return body.articles.filter(isObject).flatMap((x) => {
    const link = str(x.url);
    if (!link) return [];
    return [
      { title: str(x.title) ?? link, snippet: str(x.description) ?? '', link, domain: new URL(link).hostname.replace(/^www\./, ''), image: str(x.urlToImage), publishedAt: str(x.publishedAt), source },
    ];
  });
}

/** Whether adverse media can be searched at all: an imported corpus, GDELT or NewsAPI. */
export async function assertAdverseMediaSource(deps: Deps): Promise<void> {
  if (deps.config.lookups.vendors.gdelt || deps.config.lookups.vendors.newsapi || (await newsCorpusImported(deps))) return;
  throw notConfigured('adverse-media', 'import a news corpus with `guestscreen data import news FILE.jsonl`, or set GUESTSCREEN_GDELT_URL or GUESTSCREEN_NEWSAPI_API_KEY');
}

/**
 * Articles naming the person, from the imported corpus and GDELT and NewsAPI when configured, each sorted
 * into risk categories by the taxonomy near the name. The same link is reported once.
 */
export async function searchAdverseMedia(ctx: LookupContext, s: MediaSubject, opts: { offline?: boolean } = {}): Promise<{ riskCategories: RiskCategory[]; findings: MediaFinding[] }> {
  const forms = nameForms(s);
  if (forms.length === 0) return { riskCategories: [], findings: [] };
  const gdelt = opts.offline ? undefined : ctx.deps.config.lookups.vendors.gdelt;
  const newsapi = opts.offline ? undefined : ctx.deps.config.lookups.vendors.newsapi;
  const articles = [
    ...(await corpusArticles(ctx.deps, forms, familyForms(s))),
    ...(gdelt ? await gdeltArticles(ctx, gdelt.url, forms) : []),
    ...(newsapi ? await newsapiArticles(ctx, newsapi.secrets.API_KEY ?? '', newsapi.url, forms) : []),
  ];
  const seen = new Set<string>();
  const findings: MediaFinding[] = [];
  const person = subjectName(s);
  const own = new Set(forms.map((f) => f.join(' ')));
  for (const a of articles) {
    if (seen.has(a.link)) continue;
    seen.add(a.link);
    const c = categorise(`${a.title}. ${a.snippet}`, person);
    if (!c.mentioned) continue;
    const namedAs = c.namedAs.filter((n) => !own.has(n));
    const place = s.city && nameTokens(`${a.title} ${a.snippet}`).join(' ').includes(nameTokens(s.city).join(' ')) ? `; mentions ${s.city}` : '';
    findings.push({
      title: a.title,
      snippet: a.snippet,
      summary: `${c.evidence.length ? c.evidence.join('; ') : 'mentions the name with no risk term near it'}${namedAs.length ? `; names the person as ${namedAs.map((n) => `'${n}'`).join(', ')}` : ''}${place}${a.publishedAt ? `; published ${a.publishedAt.slice(0, 10)}` : ''}${a.domain ? ` by ${a.domain}` : ''}`,
      displayLink: a.domain,
      link: a.link,
      image: a.image,
      publishedAt: a.publishedAt,
      riskCategories: c.categories,
      topics: c.topics,
      source: a.source,
    });
  }
  findings.sort((x, y) => (y.publishedAt ?? '').localeCompare(x.publishedAt ?? ''));
  return { riskCategories: RISK_CATEGORIES.filter((rc) => findings.some((f) => f.riskCategories.includes(rc))), findings };
}

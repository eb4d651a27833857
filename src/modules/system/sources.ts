import type { Deps } from '../../deps.js';
import { newsCorpusImported } from '../../providers/adverse-media/index.js';
import { threatFeedsImported } from '../../providers/ip-threats/embedded.js';
import { dateInWords } from '../../lib/host-messages.js';
import { sanctionsLists } from '../../providers/sanctions/index.js';
import { OFAC_COMPANIONS } from '../../providers/sanctions/ofac-files.js';

export interface DataSource {
  name: string;
  installed: boolean;
  detail: string;
}

/**
 * The data sources the checks read, for the operator (the readiness endpoint and the start-up
 * log): what is installed, and how to install what is not. Hosts only ever read "Not checked".
 * `listed`: the lists' ages where the caller has read them already.
 */
export async function dataSources(deps: Deps, listed?: ListAge[]): Promise<DataSource[]> {
  const lists = listed ?? (await sanctionsListAges(deps));
  const { gdelt, newsapi, checkr, yente, watchman } = deps.config.lookups.vendors;
  const news = await newsCorpusImported(deps);
  const threats = await threatFeedsImported(deps);
  return [
    {
      name: 'sanctions lists',
      installed: lists.length > 0 || Boolean(yente || watchman),
      detail: lists.length
        ? lists.map((l) => `${l.source} of ${l.dataDate}${l.stale ? ` (${l.days} days old: import a newer copy)` : ''}`).join('; ')
        : 'none: run `guestscreen data import sanctions FILE`, or set GUESTSCREEN_SANCTIONS_REFRESH_URLS (screening), GUESTSCREEN_YENTE_URL or GUESTSCREEN_WATCHMAN_URL (background checks)',
    },
    {
      name: 'news',
      installed: news || Boolean(gdelt || newsapi),
      detail: news
        ? `news corpus imported${gdelt ? '; GDELT' : ''}${newsapi ? '; NewsAPI' : ''}`
        : gdelt || newsapi
          ? `${[gdelt ? 'GDELT' : null, newsapi ? 'NewsAPI' : null].filter(Boolean).join(' and ')} for background checks; screening reads only an imported corpus: \`guestscreen data import news FILE.jsonl\``
          : 'none: run `guestscreen data import news FILE.jsonl`, or set GUESTSCREEN_GDELT_URL or GUESTSCREEN_NEWSAPI_API_KEY (background checks)',
    },
    {
      name: 'IP threat feeds',
      installed: threats,
      detail: threats ? 'imported' : 'none: run `guestscreen data import ip-threats FILE`',
    },
    {
      name: 'criminal records',
      installed: Boolean(checkr),
      detail: checkr ? 'Checkr' : 'none: set GUESTSCREEN_CHECKR_API_KEY and GUESTSCREEN_CHECKR_PACKAGE (background checks)',
    },
  ];
}

/** An imported sanctions list with how old its own date is, and whether that is older than GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS. */
export interface ListAge {
  source: string;
  dataDate: string;
  names: number;
  /** Whole days since the list's date (a list dated by its month counts from the first); null when its date cannot be read. */
  days: number | null;
  stale: boolean;
}

/** When a list's date begins, in ms: a day, or the first of a month. */
export function listTime(dataDate: string): number {
  return Date.parse(/^\d{4}-\d{2}$/.test(dataDate) ? `${dataDate}-01` : dataDate);
}

function ages(deps: Deps, lists: { source: string; dataDate: string; names: number }[]): ListAge[] {
  const now = deps.clock().getTime();
  return lists.map((l) => {
    const at = listTime(l.dataDate);
    const days = Number.isFinite(at) ? Math.max(0, Math.floor((now - at) / 86_400_000)) : null;
    return { ...l, days, stale: days !== null && days > deps.config.sanctionsMaxAgeDays };
  });
}

/** The imported sanctions lists with their ages. */
export async function sanctionsListAges(deps: Deps): Promise<ListAge[]> {
  return ages(deps, await sanctionsLists(deps));
}

/** The command that imports a newer copy of a list: OFAC's files by name, other lists by their file. */
export function importCommand(source: string): string {
  const primary = source === 'OFAC SDN' ? 'sdn.csv' : source.startsWith('OFAC Consolidated') ? 'cons_prim.csv' : null;
  const companions = primary ? OFAC_COMPANIONS.find(([re]) => re.test(primary))?.[1] : undefined;
  if (!primary || !companions) return 'guestscreen data import sanctions FILE';
  return `guestscreen data import sanctions ${primary} --aliases ${companions.aliases} --addresses ${companions.addresses} --comments ${companions.comments}`;
}

/** What to tell the operator of a list older than the setting: its date, its age, and how to replace it. */
export function staleListWarning(deps: Deps, l: ListAge): string {
  return (
    `The sanctions list ${l.source} is of ${dateInWords(l.dataDate)}, ${l.days} days old (more than ${deps.config.sanctionsMaxAgeDays}, GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS): ` +
    `people listed since then are not found. Import a newer copy with \`${importCommand(l.source)}\` (docs/lookups.md), ` +
    'or set GUESTSCREEN_SANCTIONS_REFRESH_URLS and the worker fetches it.'
  );
}

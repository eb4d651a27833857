import type { Deps } from '../../deps.js';
import { newsCorpusImported } from '../../providers/adverse-media/index.js';
import { threatFeedsImported } from '../../providers/ip-threats/embedded.js';
import { sanctionsLists } from '../../providers/sanctions/index.js';

export interface DataSource {
  name: string;
  installed: boolean;
  detail: string;
}

/**
 * The data sources the checks read, for the operator (the readiness endpoint and the start-up
 * log): what is installed, and how to install what is not. Hosts only ever read "Not checked".
 */
export async function dataSources(deps: Deps): Promise<DataSource[]> {
  const lists = await sanctionsLists(deps);
  const { gdelt, newsapi, checkr, yente, watchman } = deps.config.lookups.vendors;
  const news = await newsCorpusImported(deps);
  const threats = await threatFeedsImported(deps);
  return [
    {
      name: 'sanctions lists',
      installed: lists.length > 0 || Boolean(yente || watchman),
      detail: lists.length
        ? lists.map((l) => `${l.source} of ${l.dataDate}`).join('; ')
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

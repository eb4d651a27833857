import { mentions } from '../../lib/names/match.js';
import { nameTokens } from '../../lib/names/names.js';

/** The spec's risk categories, in the order reports list them. */
export const RISK_CATEGORIES = ['Discrimination', 'Fraud or Financial Crime', 'Harassment', 'Violence', 'Conflicts or Litigation', 'Other News'] as const;
export type RiskCategory = (typeof RISK_CATEGORIES)[number];

/**
 * The keyword taxonomy (docs/lookups.md lists it): topics of wrongdoing, each filed under one of
 * the spec's risk categories. A term ending in * matches any word it begins, others match the
 * word or the phrase exactly, on folded text (no case, accents or punctuation). An article
 * mentioning the person with none of these near the name is Other News.
 */
export const TOPICS = {
  sanctions: {
    category: 'Fraud or Financial Crime',
    terms: ['sanction*', 'blacklisted', 'asset freeze', 'assets frozen', 'frozen assets', 'specially designated', 'ofac', 'treasury designat*', 'sanctions evasion', 'travel ban'],
  },
  corruption: { category: 'Fraud or Financial Crime', terms: ['corrupt*', 'brib*', 'kickback*', 'graft', 'embezzl*', 'cronyism', 'misappropriat*', 'abuse of office'] },
  'money laundering': { category: 'Fraud or Financial Crime', terms: ['launder*', 'money mule*', 'shell compan*', 'illicit funds', 'illicit finance', 'dirty money'] },
  terrorism: { category: 'Violence', terms: ['terror*', 'extremis*', 'jihad*', 'militant*', 'insurgen*', 'bombing', 'bomb plot', 'radicali*'] },
  fraud: {
    category: 'Fraud or Financial Crime',
    terms: [
      'fraud*',
      'scam*',
      'swindl*',
      'forger*',
      'forged',
      'counterfeit*',
      'ponzi',
      'tax evasion',
      'insider trading',
      'extort*',
      'theft',
      'thief',
      'stole',
      'stolen',
      'burglar*',
      'robber*',
      'robbed',
      'identity theft',
      'con artist',
      'pyramid scheme',
      'smuggl*',
      'trafficking',
      'trafficker*',
    ],
  },
  violence: {
    category: 'Violence',
    terms: [
      'assault*',
      'murder*',
      'kill*',
      'homicid*',
      'stab*',
      'shooting',
      'shot',
      'gunman',
      'attack*',
      'kidnap*',
      'rape*',
      'raped',
      'arson*',
      'manslaughter',
      'battery',
      'domestic violence',
      'violent*',
      'violence',
      'beat up',
      'beaten',
    ],
  },
  discrimination: {
    category: 'Discrimination',
    terms: ['discriminat*', 'racis*', 'hate crime*', 'hate speech', 'bigot*', 'slur*', 'antisemit*', 'homophob*', 'transphob*', 'xenophob*', 'segregat*', 'islamophob*'],
  },
  harassment: { category: 'Harassment', terms: ['harass*', 'stalk*', 'intimidat*', 'bully*', 'bullied', 'threaten*', 'sexual misconduct', 'restraining order', 'cyberbull*', 'doxx*'] },
  litigation: {
    category: 'Conflicts or Litigation',
    terms: [
      'lawsuit*',
      'sued',
      'sues',
      'suing',
      'litigation',
      'court',
      'charged',
      'indicted',
      'indictment',
      'convicted',
      'conviction',
      'arrest*',
      'sentenced',
      'pleaded',
      'plea',
      'settlement',
      'dispute*',
      'evict*',
      'injunction',
      'prosecut*',
      'jailed',
      'prison',
      'trial',
      'fined',
      'lien',
      'wanted by',
      'extradit*',
    ],
  },
} as const satisfies Record<string, { category: Exclude<RiskCategory, 'Other News'>; terms: readonly string[] }>;
export type Topic = keyof typeof TOPICS;

/** The taxonomy by the spec's categories: each category's terms, from every topic filed under it. */
export const TAXONOMY = Object.fromEntries(
  RISK_CATEGORIES.filter((c) => c !== 'Other News').map((c) => [
    c,
    Object.values(TOPICS)
      .filter((t) => t.category === c)
      .flatMap((t) => [...t.terms]),
  ]),
) as Record<Exclude<RiskCategory, 'Other News'>, string[]>;

/** Words apart within which a term counts as being about the person. */
export const WINDOW = 12;

interface Term {
  topic: Topic;
  category: RiskCategory;
  words: string[];
  prefix: boolean;
}

const TERMS: Term[] = (Object.entries(TOPICS) as [Topic, (typeof TOPICS)[Topic]][]).flatMap(([topic, { category, terms }]) =>
  terms.map((t) => ({ topic, category, prefix: t.endsWith('*'), words: nameTokens(t.replace(/\*$/, '')) })),
);

export interface Categorised {
  categories: RiskCategory[];
  /** The topics found near the name, each with the words of the text that matched, in taxonomy order. */
  topics: { topic: Topic; words: string }[];
  /** One line per term found, with how far it stood from the name. */
  evidence: string[];
  /** Whether the name itself occurs (the search may have matched elsewhere). */
  mentioned: boolean;
  /** How the text writes the name, folded, each way once. */
  namedAs: string[];
}

/**
 * The risk categories of an article about a person: terms of the taxonomy near the places the
 * text names the person, found by the name matcher (mentions), however the text writes the name.
 */
export function categorise(text: string, person: string): Categorised {
  const tokens = nameTokens(text);
  const spans = mentions(person, tokens);
  if (spans.length === 0) return { categories: [], topics: [], evidence: [], mentioned: false, namedAs: [] };
  const found = new Map<Topic, { words: string; line: string; category: RiskCategory }>();
  for (let i = 0; i < tokens.length; i++) {
    for (const term of TERMS) {
      if (found.has(term.topic)) continue;
      const hit = term.words.every((w, j) => {
        const tok = tokens[i + j];
        return tok !== undefined && (term.prefix && j === term.words.length - 1 ? tok.startsWith(w) : tok === w);
      });
      if (!hit) continue;
      const distance = Math.min(...spans.map((s) => (i > s.end ? i - s.end : s.start > i + term.words.length - 1 ? s.start - (i + term.words.length - 1) : 0)));
      if (distance > WINDOW) continue;
      const words = tokens.slice(i, i + term.words.length).join(' ');
      found.set(term.topic, { words, category: term.category, line: `'${words}' ${distance} word${distance === 1 ? '' : 's'} from the name (${term.topic})` });
    }
  }
  const categories = RISK_CATEGORIES.filter((c) => [...found.values()].some((f) => f.category === c));
  const topics = (Object.keys(TOPICS) as Topic[]).filter((t) => found.has(t));
  const namedAs = [...new Set(spans.map((x) => tokens.slice(x.start, x.end + 1).join(' ')))];
  return {
    categories: categories.length ? categories : ['Other News'],
    topics: topics.map((topic) => ({ topic, words: found.get(topic)!.words })),
    evidence: topics.map((t) => found.get(t)!.line),
    mentioned: true,
    namedAs,
  };
}

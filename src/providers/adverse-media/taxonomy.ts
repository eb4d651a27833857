import { mentions } from '../../lib/names/match.js';
import { nameTokens } from '../../lib/names/names.js';

/** The spec's risk categories, in the order reports list them. */
export const RISK_CATEGORIES = ['Discrimination', 'Fraud or Financial Crime', 'Harassment', 'Violence', 'Conflicts or Litigation', 'Other News'] as const;
export type RiskCategory = (typeof RISK_CATEGORIES)[number];

/**
 * The keyword taxonomy (docs/lookups.md lists it): a term ending in * matches any word it
 * begins, others match the word or the phrase exactly, on folded text (no case, accents or
 * punctuation). An article mentioning the person with none of these near the name is Other News.
 */
export const TAXONOMY: Record<Exclude<RiskCategory, 'Other News'>, string[]> = {
  Discrimination: ['discriminat*', 'racis*', 'hate crime*', 'hate speech', 'bigot*', 'slur*', 'antisemit*', 'homophob*', 'transphob*', 'xenophob*', 'segregat*', 'islamophob*'],
  'Fraud or Financial Crime': [
    'fraud*', 'scam*', 'swindl*', 'embezzl*', 'launder*', 'brib*', 'forger*', 'forged', 'counterfeit*', 'ponzi', 'tax evasion', 'insider trading',
    'extort*', 'theft', 'thief', 'stole', 'stolen', 'burglar*', 'robber*', 'robbed', 'identity theft', 'con artist', 'pyramid scheme', 'kickback*', 'sanctions evasion',
  ],
  Harassment: ['harass*', 'stalk*', 'intimidat*', 'bully*', 'bullied', 'threaten*', 'sexual misconduct', 'restraining order', 'cyberbull*', 'doxx*'],
  Violence: [
    'assault*', 'murder*', 'kill*', 'homicid*', 'stab*', 'shooting', 'shot', 'gunman', 'attack*', 'kidnap*', 'rape*', 'raped', 'arson*', 'manslaughter',
    'battery', 'domestic violence', 'terroris*', 'violent*', 'violence', 'beat up', 'beaten',
  ],
  'Conflicts or Litigation': [
    'lawsuit*', 'sued', 'sues', 'suing', 'litigation', 'court', 'charged', 'indicted', 'indictment', 'convicted', 'conviction', 'arrest*', 'sentenced',
    'pleaded', 'plea', 'settlement', 'dispute*', 'evict*', 'injunction', 'prosecut*', 'jailed', 'prison', 'trial', 'fined', 'lien',
  ],
};

/** Words apart within which a term counts as being about the person. */
export const WINDOW = 12;

interface Term {
  category: RiskCategory;
  words: string[];
  prefix: boolean;
  label: string;
}

const TERMS: Term[] = Object.entries(TAXONOMY).flatMap(([category, terms]) =>
  terms.map((t) => ({ category: category as RiskCategory, prefix: t.endsWith('*'), words: nameTokens(t.replace(/\*$/, '')), label: t.replace(/\*$/, '') })),
);

export interface Categorised {
  categories: RiskCategory[];
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
  if (spans.length === 0) return { categories: [], evidence: [], mentioned: false, namedAs: [] };
  const found = new Map<RiskCategory, string>();
  for (let i = 0; i < tokens.length; i++) {
    for (const term of TERMS) {
      if (found.has(term.category)) continue;
      const hit = term.words.every((w, j) => {
        const tok = tokens[i + j];
        return tok !== undefined && (term.prefix && j === term.words.length - 1 ? tok.startsWith(w) : tok === w);
      });
      if (!hit) continue;
      const distance = Math.min(...spans.map((s) => (i > s.end ? i - s.end : s.start > i + term.words.length - 1 ? s.start - (i + term.words.length - 1) : 0)));
      if (distance <= WINDOW) found.set(term.category, `'${tokens.slice(i, i + term.words.length).join(' ')}' ${distance} word${distance === 1 ? '' : 's'} from the name (${term.category})`);
    }
  }
  const categories = RISK_CATEGORIES.filter((c) => found.has(c));
  const namedAs = [...new Set(spans.map((x) => tokens.slice(x.start, x.end + 1).join(' ')))];
  return { categories: categories.length ? categories : ['Other News'], evidence: [...found.values()], mentioned: true, namedAs };
}

import anyAscii from 'any-ascii';
import jaroWinkler from 'talisman/metrics/jaro-winkler.js';
import doubleMetaphone from 'talisman/phonetics/double-metaphone.js';

/** Scripts written a syllable a character, where a name's characters are its romanised syllables. */
const SYLLABIC = /[\p{Script=Han}\p{Script=Hangul}]/u;

/**
 * The name in Latin letters: any-ascii's transliteration of every script (Владимир → Vladimir,
 * Łukasz → Lukasz, Straße → Strasse, Γιώργος → Giorgos), its accents gone with it. Chinese and
 * Korean characters are syllables that lists write as words of their own or run together
 * (张伟 is ZHANG Wei, 김정은 is KIM Jong Un), so each becomes a token of its own; the token
 * comparison of matchName then finds 'Xiaoming' in xiao + ming.
 */
function toLatin(name: string): string {
  if (/^[\x00-\x7f]*$/.test(name)) return name;
  let out = '';
  for (const ch of name.normalize('NFC')) out += ch.charCodeAt(0) < 0x80 ? ch : SYLLABIC.test(ch) ? ` ${anyAscii(ch)} ` : anyAscii(ch);
  return out;
}

/** Name tokens in Latin letters, with case, accents and punctuation removed, in their order. */
export function nameTokens(name: string): string[] {
  return toLatin(name)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Transliterated, case, accents and punctuation removed; tokens sorted, so "SANTOS, Maria" equals "maria santos". */
export function normaliseName(name: string): string {
  return nameTokens(name).sort().join(' ');
}

/** Jaro-Winkler similarity of two names after normalisation, 0..1. */
export function nameSimilarity(a: string, b: string): number {
  const x = normaliseName(a);
  const y = normaliseName(b);
  if (!x || !y) return 0;
  return jaroWinkler(x, y);
}

/** Phonetic keys of a token (Double Metaphone, both codes), for finding candidates that sound alike. */
export function phoneticKeys(token: string): string[] {
  if (token.length < 2) return [];
  const [a, b] = doubleMetaphone(token) as [string, string];
  return [...new Set([a, b].filter(Boolean))];
}

export interface NameMatch {
  score: number;
  /** Which name matched which, and how: for a person reviewing the match. */
  explanation: string;
}

/**
 * How well a listed name matches a person's name. The whole names compared after normalisation
 * (token order ignored), and, when both have two tokens or more, each listed token against its
 * closest token of the person's name (a middle name more or less does not sink a match); the
 * better of the two counts.
 */
export function matchName(person: string, listed: string): NameMatch {
  const p = nameTokens(person);
  const l = nameTokens(listed);
  const whole = p.length && l.length ? jaroWinkler([...p].sort().join(' '), [...l].sort().join(' ')) : 0;
  let tokens = 0;
  if (p.length >= 2 && l.length >= 2) {
    const best = l.map((t) => Math.max(...p.map((q) => jaroWinkler(q, t))));
    tokens = best.reduce((a, b) => a + b, 0) / best.length;
  }
  const score = Math.max(whole, tokens);
  const how = tokens > whole ? `each of its ${l.length} names close to one of the person's (mean Jaro-Winkler ${tokens.toFixed(2)})` : `whole name Jaro-Winkler ${whole.toFixed(2)}`;
  return { score, explanation: `'${person}' matched '${listed}': ${how}` };
}

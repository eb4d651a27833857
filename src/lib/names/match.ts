import { limited as editsAtMost } from 'talisman/metrics/damerau-levenshtein.js';
import jaroWinkler from 'talisman/metrics/jaro-winkler.js';
import { readFileSync } from 'node:fs';
import { packageFile } from '../packages.js';
import { nameVariants, toLatin } from './names.js';
import { spellingKey } from './spelling.js';

/**
 * How a person's name compares with a listed name, token by token, the way the open matchers
 * that do this best work (OpenSanctions' logic-v2, watchman, OFAC's own guidance):
 *
 * - Each token of the listed name is paired with the closest token of the person's name. What is
 *   known about names decides first (name-data.json, scripts/gen-name-data.ts): spellings of one
 *   name pair (Andrey, Andrei; the lists' own aliases: Muhammad, Mohamed), and different names
 *   never do, however alike (Fernandez, Hernandez; Ivan, Ivana; Hasan, Husayn). Then the letters:
 *   the same, one slip apart (a name of five letters or more with one letter dropped, added,
 *   swapped or replaced; two for eight letters or more), the same consonants with the vowels in
 *   the same places (Tahir, Taher; a name written in Arabic script carries no short vowels, so
 *   بشار is bshr and its consonants alone compare), two tokens run together (VladimirPutin), a
 *   feminine form of a family name (Popova for POPOV), or, for less, a short form (Alex for
 *   Alexander) or an initial (J for John, JC for Jean-Claude), which reach a hit only beside a
 *   rare family name. Jaro-Winkler, which rewards a shared beginning, paired
 *   Omar with Omairi and Vladimir with VladimirPutin: it compares only the consonants of a name
 *   in Arabic script with a listed name's.
 * - Tokens count by what they say about identity: the listed family name most (it must match),
 *   a given name less, and less again the commoner it is (faker's name lists, the lists
 *   themselves). Middle names and patronymics on either side cost a point each (guests leave
 *   them out or add them), four at most; particles (al, bin, de, van) nothing.
 * - The score is the weighted share of the family and given names that was found, with a
 *   missing family name capping it below any threshold (a shared given name alone is never a
 *   match), and a missing given name capping it below a hit (nor is a shared family name). Of a
 *   family name in two words or more (GUZMAN LOERA), one found is enough; the second alone is a
 *   weaker match. Another father's name (an unlike patronymic, X bin Y for Y bin X) and Hangul
 *   names a syllable apart keep it below a hit too.
 *
 * Every match says which token paired with which and why, and what moved the score.
 */

/** The score from which a listed name counts as a possible match (the labelled set's figures: bench/results/matching.json). */
export const NAME_THRESHOLD = 0.9;

/**
 * The score from which two names one person gave (the booking, the passport, the card) are
 * taken for the same person: a left-out middle name, an initial (J SMITH) or a short form (Alex
 * for Alexander) pass; another given name with the same family name (a spouse's passport) does not.
 */
export const SAME_PERSON = 0.8;

/** The score from which a listed name is the person's name as written, not only close to it. */
export const SAME_NAME = 0.97;

export interface TokenPair {
  listed: string;
  /** The person's token(s) it paired with, or null. */
  person: string | null;
  role: 'family' | 'given' | 'middle' | 'patronymic' | 'particle';
  how:
    | 'same'
    | 'spelling'
    | 'known variant'
    | 'feminine form'
    | 'one slip'
    | 'two slips'
    | 'same consonants'
    | 'run together'
    | 'initial'
    | 'short form'
    | 'goes by a middle name'
    | 'second family name only'
    | 'missing';
  similarity: number;
  weight: number;
}

export interface NameMatch {
  score: number;
  /** Which name matched which, and how: for a person reviewing the match. */
  explanation: string;
  pairs: TokenPair[];
  /** Tokens of the person's name that paired with nothing. */
  extra: string[];
}

const PARTICLES = new Set([
  'al',
  'el',
  'ul',
  'bin',
  'ibn',
  'bint',
  'ben',
  'bn',
  'ould',
  'de',
  'da',
  'do',
  'dos',
  'das',
  'del',
  'della',
  'di',
  'du',
  'la',
  'le',
  'van',
  'von',
  'der',
  'den',
  'ter',
  'y',
  'e',
  'l',
]);
const PATRONYMIC = /(ovich|evich|yevich|ievich|ich|ovna|evna|yevna|ichna|ogly|oglu|kyzy|qizi)$/;
/**
 * What the matcher knows about names (scripts/gen-name-data.ts), read and indexed at the first
 * comparison: a process that never compares names (the API answering reads) never holds it.
 */
interface Knowledge {
  /** Given names of faker's lists: a shared common given name counts for less. */
  given: Set<string>;
  /** Each spelling of a name the lists' aliases give, to the number of its group. */
  variant: Map<string, number>;
  /** Look-alike names that are different names, as 'a b' in alphabetical order, as written and by their spellings (Hassan and Hussain are Hasan and Husayn). */
  different: Set<string>;
  differentSpellings: Set<string>;
  /** Of those, a man's and a woman's name (Ivan, Ivana; Lucio, Lucia), which do not pair even as a short form. */
  otherSex: Set<string>;
  /** How many listed names and name lists hold a token (three or more). */
  common: Map<string, number>;
}
let known: Knowledge | undefined;
function knowledge(): Knowledge {
  if (known) return known;
  const data = JSON.parse(readFileSync(packageFile('src/lib/names/name-data.json'), 'utf8')) as {
    given: string[];
    variants: string[][];
    different: string[];
    otherSex: string[];
    common: Record<string, number>;
  };
  const spelled = (pair: string) => {
    const [a, b] = pair.split(' ').map(spellingKey) as [string, string];
    return a < b ? `${a} ${b}` : `${b} ${a}`;
  };
  known = {
    given: new Set(data.given),
    variant: new Map(data.variants.flatMap((group, i) => group.map((t) => [t, i] as const))),
    different: new Set(data.different),
    differentSpellings: new Set(data.different.map(spelled)),
    otherSex: new Set(data.otherSex),
    common: new Map(Object.entries(data.common)),
  };
  return known;
}
const pairKey = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`);

/** Whether two tokens are known spellings of one name: the same once romanisation is taken out, or given by the lists as aliases of each other. */
const knownVariant = (a: string, b: string) => {
  if (spellingKey(a) === spellingKey(b)) return 'spelling' as const;
  const { variant } = knowledge();
  const group = variant.get(a);
  return group !== undefined && group === variant.get(b) ? ('known variant' as const) : null;
};
const knownDifferent = (a: string, b: string) => knowledge().different.has(pairKey(a, b)) || knowledge().differentSpellings.has(pairKey(spellingKey(a), spellingKey(b)));

/** A Slavic family name's feminine form (Popov, Popova; Kuznetsov, Kuznetsova; Vysotsky, Vysotskaya), or null. */
function feminine(family: string): string | null {
  if (/(ov|ev|yov|in|yn)$/.test(family)) return `${family}a`;
  if (/sk(iy|ii|yi|y|i)$/.test(family)) return family.replace(/sk(iy|ii|yi|y|i)$/, 'skaya');
  return null;
}

/**
 * A token of a listed name, with its role, what it says about identity (weightOf), and what
 * tokenSimilarity answered for the person's tokens it met (similarTo).
 */
type ListedToken = { token: string; role: TokenPair['role']; weight: number; met: Map<string, Similar | null> | undefined };
/** Listed names as they were read, kept: a list is matched many times over (bounded, for lists of every size). */
const READ = new Map<string, ListedToken[][]>();
const READ_LIMIT = 200_000;

function listedTokens(listed: string): ListedToken[][] {
  let read = READ.get(listed);
  if (!read) {
    if (READ.size >= READ_LIMIT) READ.clear();
    read = readListed(listed);
    READ.set(listed, read);
  }
  return read;
}

/** A listed name's tokens with their roles: lists write the family name first, before a comma. */
function readListed(listed: string): ListedToken[][] {
  const comma = listed.indexOf(',');
  const family = comma >= 0 ? listed.slice(0, comma) : '';
  const given = comma >= 0 ? listed.slice(comma + 1) : listed;
  const familyVariants = family ? nameVariants(family) : [[]];
  return nameVariants(given).flatMap((g) =>
    familyVariants.map((f) => {
      // Without a comma the last token is taken for the family name, as a guest's name is written.
      const familyTokens = f.length ? f : g.slice(-1);
      const givenTokens = f.length ? g : g.slice(0, -1);
      const read: Pick<ListedToken, 'token' | 'role'>[] = [
        // A particle is one only before another name: XU, Bin is a given name Bin.
        ...familyTokens.map((token, i) => ({ token, role: PARTICLES.has(token) && i < familyTokens.length - 1 ? ('particle' as const) : ('family' as const) })),
        ...givenTokens.map((token, i) => ({
          token,
          role:
            PARTICLES.has(token) && i < givenTokens.length - 1 ? ('particle' as const) : PATRONYMIC.test(token) && i > 0 ? ('patronymic' as const) : i === 0 ? ('given' as const) : ('middle' as const),
        })),
      ];
      return read.map((t) => ({ ...t, weight: weightOf(t.token, t.role), met: undefined }));
    }),
  );
}

const ROLE_WEIGHT: Record<TokenPair['role'], number> = { family: 1, given: 0.6, middle: 0.15, patronymic: 0.08, particle: 0.03 };
/** What a missing middle name or patronymic, or a name of the person's not on the list, takes off the score; at most OPTIONAL_CAP in all. */
const OPTIONAL_COST = 0.01;
const OPTIONAL_CAP = 0.04;
/** The highest score a match without the listed family name can have. */
const NO_FAMILY_CAP = 0.7;
/** The highest score a match can have whose listed second family name is missing while the person gives another name: a close name, not the same. */
const OTHER_SECOND_FAMILY_CAP = 0.93;
/** The highest score a match can have whose listed middle name or patronymic is missing while the person gives another: below a hit. */
const OTHER_MIDDLE_CAP = 0.88;
/** How many listed names and name lists may hold a middle name a person goes by (Boris, 38; Mohamed, 126; Jose, 213). */
const MANY_CARRY = 50;
/** What the given name's initial counts for beside a rare family name found whole: a possible match, not a probable one. */
const INITIAL_OF_RARE = 0.8;
/** The highest score a match without the listed given name (or with only its initial or a short form of it), or with only the second of two family names, can have. */
const NO_GIVEN_CAP = 0.86;

/**
 * What a token says about identity: its role's weight, less for a common given name (any of
 * faker's lists) and less again the more listed names and name lists hold it (Muhammad, Kim, Li
 * and Nguyen say less than Prigozhin), down to 0.85 of it.
 */
const weightOf = (token: string, role: TokenPair['role']) => ROLE_WEIGHT[role] * (role === 'given' && knowledge().given.has(token) ? 0.8 : 1) * rarity(token);
const rarity = (token: string) => 1 - 0.15 * Math.min(1, Math.log10(1 + (knowledge().common.get(token) ?? 0)) / 2.5);

/**
 * A token's consonants, as Arabic script writes a name: no vowels (nor w or y, which write long
 * vowels; nor v, with `arabic`: جواد is jwd, Javad), one letter for kh (with `arabic`, the same
 * as k and c, as Hebrew writes them), sh and zh, q and gh as k,
 * dh as z (ظ, ذ: Zarif, Qadhafi), doubled letters once, a final h dropped (ة: Haniyeh, هنية).
 */
export function consonants(token: string, script: Script = false): string {
  const key = script ? `${token}\u0001${script}` : token;
  let found = CONSONANTS.get(key);
  if (found === undefined) {
    if (CONSONANTS.size >= READ_LIMIT) CONSONANTS.clear();
    found = consonantsOf(token, script);
    CONSONANTS.set(key, found);
  }
  return found;
}

/** Tokens' consonants as worked out: the same tokens come back in every search. */
const CONSONANTS = new Map<string, string>();

/** A script without short vowels a name is compared in by its consonants; false for Latin letters. */
export type Script = false | 'arabic' | 'hebrew';

function consonantsOf(token: string, script: Script): string {
  const arabic = script !== false;
  // Hebrew writes one letter (כ) for k and kh, which lists spell k, kh or c (כהן: COHEN, KOHEN);
  // Arabic writes kh (خ) and k (ك) apart (Farrokh is not Farooq).
  return (
    (script === 'hebrew' ? token.replace(/c(?!h)/g, 'k').replace(/kh/g, 'k') : token.replace(/kh/g, 'x'))
      .replace(/sh/g, '$')
      .replace(/gh|q/g, 'k')
      .replace(/zh/g, 'j')
      .replace(/dh/g, 'z')
      .replace(/ph/g, 'f')
      // Arabic has no p: it writes a p (Pérez, بيريز) with its b.
      .replace(/p/g, arabic ? 'b' : 'p')
      .replace(arabic ? /[aeiouywv'`]/g : /[aeiouyw'`]/g, '')
      .replace(/(.)\1+/g, '$1')
      .replace(/(.)h$/, '$1')
  );
}

/**
 * How alike two tokens are, and why; null when not alike enough to pair. Known spellings of one
 * name pair and known different names never do, before any comparison of letters. Consonants
 * alone are evidence only in a script that writes no short vowels (بشار, bshr, is Bashar); in
 * Latin letters the vowels must stand in the same places (Mahmoud and Muhammad share their
 * consonants, not their vowels' places).
 */
function tokenSimilarity(person: string, listed: string, bySound: Script, role: TokenPair['role'] = 'family'): { similarity: number; how: TokenPair['how'] } | null {
  if (person === listed) return SAME;
  const given = role === 'given' || role === 'middle' || role === 'patronymic';
  // Cheap tests first: most pairs a search compares share nothing.
  const apart = person.length - listed.length;
  if (!given && apart !== 0 && Math.abs(apart) <= 3 && person.slice(0, 3) === listed.slice(0, 3) && (feminine(listed) === person || feminine(person) === listed)) {
    return { similarity: 0.85, how: 'feminine form' };
  }
  if (given && Math.abs(apart) <= 1 && otherSex(person, listed)) return null;
  const variant = knownVariant(person, listed);
  if (variant) return { similarity: 0.95, how: variant };
  const byLetters = lettersSimilarity(person, listed, bySound, given);
  // Latvian and Lithuanian write a man's name with a nominative -s (Sergejs Lavrovs): the name without it.
  if (!byLetters && listed.length >= 5 && person.length === listed.length + 1 && person.endsWith('s') && !listed.endsWith('s')) {
    const stem = tokenSimilarity(person.slice(0, -1), listed, bySound, role);
    if (stem && stem.similarity >= 0.95) return { similarity: 0.9 * stem.similarity, how: 'spelling' };
  }
  if (byLetters && given && byLetters.similarity < 1 && patronymicOf(person, listed)) return null;
  return byLetters && knownDifferent(person, listed) ? null : byLetters;
}

const SAME = { similarity: 1, how: 'same' } as const;

/**
 * Whether a token is an Iberian family name made from a given name (Fernández and Fernandes,
 * son of Fernando; Hernández, of Hernando) and the other that given name, or one like it: a
 * family name, not a spelling of the given name it comes from, whatever the letters share.
 */
const patronymicOf = (person: string, listed: string) => person.length >= 7 && /[aeio][sz]$/.test(person) && !/[sz]$/.test(listed) && person.slice(0, 4) === listed.slice(0, 4);

/** How alike two tokens' letters are (tokenSimilarity without what is known about names). */
function lettersSimilarity(person: string, listed: string, bySound: Script, given: boolean): { similarity: number; how: TokenPair['how'] } | null {
  if (bySound) {
    const a = consonants(person.replace(/^l(?=..)/, ''), bySound);
    const b = consonants(listed, bySound);
    if (a && a === b) return { similarity: 0.95, how: 'same consonants' };
    if (a.length >= 3 && b.length >= 3 && jaroWinkler(a, b) >= 0.9) return { similarity: 0.9, how: 'same consonants' };
    if (consonants(person, bySound) === b && b) return { similarity: 0.95, how: 'same consonants' };
  }
  const shorter = Math.min(person.length, listed.length);
  // Damerau-Levenshtein is at least the difference in length: skip it when that is already over two.
  // Only one or two edits count: the distance is worked out no further than two.
  const edits = shorter >= 4 && Math.abs(person.length - listed.length) <= 2 ? editsAtMost(2, person, listed) : 99;
  if (edits === 1 && shorter >= 5) return { similarity: 0.95, how: 'one slip' };
  // Two letters swapped in a name of four (Suir for Suri): a slip of the fingers, where a letter
  // replaced or added in so short a name makes another name (Omar, Omer; Yong, Yang).
  if (edits === 1 && shorter === 4 && person.length === 4 && [...person].sort().join('') === [...listed].sort().join('')) return { similarity: 0.9, how: 'one slip' };
  if (edits === 2 && shorter >= 8) return { similarity: 0.9, how: 'two slips' };
  // A family name of five letters or more two slips off (Starkey, Starmer; Nandela, Nadella): a
  // weaker likeness, which with the same given name reaches a hit and without it never does.
  if (edits === 2 && shorter >= 5 && !given) return { similarity: 0.86, how: 'two slips' };
  // A name's vowels may differ where it comes from a script that writes none (Tahir, Taher;
  // Husayn, Hussein; Soleimani, Sulaimani), but in the same places: the same consonants (three
  // or more, two for a given name), each run of vowels about as long. Mahmoud is not Muhammad,
  // nor Hamid Ahmad, nor Hammada Ahmad.
  const c = consonants(listed);
  if (c.length >= (given ? 2 : 3) && consonants(person) === c && sameVowelPlaces(person, listed)) return { similarity: 0.9, how: 'same consonants' };
  return null;
}

/**
 * Whether two names may be one written two ways, judged by their consonants: a letter apart
 * (Yong, Jong), or one's in the other's in order from the same first letter (Mohd, Mohammad).
 */
function alikeNames(a: string, b: string): boolean {
  const [x, y] = [consonants(a), consonants(b)];
  if (!x || !y) return false;
  if (editsAtMost(1, x, y) <= 1) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (short.length < 2 || short[0] !== long[0]) return false;
  let i = 0;
  for (const ch of long) if (ch === short[i]) i += 1;
  return i === short.length;
}

/** A token's consonants with a mark where vowels stand: Tahir and Taher are t*h*r, Mahmoud m*hm*d, Muhammad m*h*m*d. */
const vowelPlaces = (token: string) => consonants(token.replace(/[aeiouy]+/g, '*').replace(/\*h$/, '*'));
/** The same vowel places, each with about as many letters (Yosef, Youssef; not Song, Soyeong). */
function sameVowelPlaces(a: string, b: string): boolean {
  if (vowelPlaces(a) !== vowelPlaces(b)) return false;
  const runs = (t: string) => (t.match(/[aeiouy]+/g) ?? []).map((r) => r.length);
  const [x, y] = [runs(a), runs(b)];
  return x.length === y.length && x.every((n, i) => Math.abs(n - (y[i] as number)) <= 1);
}

/** A woman's form of a man's given name, or the reverse: Ivan, Ivana; Vyacheslav, Vyacheslava; Lucio, Lucia. */
function otherSex(a: string, b: string): boolean {
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long === `${short}a` && /[^aeiouy]$/.test(short)) return true;
  return a.length === b.length && a.length >= 4 && a.slice(0, -1) === b.slice(0, -1) && /[oa]$/.test(a) && /[oa]$/.test(b);
}

/**
 * Tokens that pair only when nothing else paired them (a name run together starts with its
 * given name too): an initial (J for John, as cards and some documents write given names) and a
 * short form that begins the full name (Alex, Alexander; Chris, Christopher). They say little:
 * with the family name the same, the score stays below a hit and above SAME_PERSON.
 */
function looseSimilarity(person: string, listed: string): { similarity: number; how: TokenPair['how'] } | null {
  const shorter = Math.min(person.length, listed.length);
  const initial = shorter === 1 && person[0] === listed[0];
  if (!initial && !(shorter >= 3 && (listed.startsWith(person) || person.startsWith(listed)))) return null;
  if (otherSex(person, listed) || knowledge().otherSex.has(pairKey(person, listed))) return null;
  return initial ? { similarity: 0.5, how: 'initial' } : { similarity: 0.6, how: 'short form' };
}

const ARABIC = /\p{Script=Arabic}/u;
const HEBREW = /\p{Script=Hebrew}/u;
/** The script a name is compared in by its consonants, if it is written in one. */
export const scriptOf = (name: string): Script => (ARABIC.test(name) ? 'arabic' : HEBREW.test(name) ? 'hebrew' : false);

/**
 * How alike names run together must be: the same, or one slip apart from eight letters (Abdur
 * Rehman, Abdurrahman). Al Din is not Laden, Falahzadeh not Salar Zadeh, Subhi not Su Chi.
 */
const runTogether = (s: { similarity: number } | null, joined: string) => s !== null && (s.similarity === 1 || (s.similarity >= 0.95 && joined.length >= 8));

/**
 * Whether a token and a name run together may pass runTogether, told before comparing them: in
 * Latin letters tokenSimilarity reaches 0.95 only for a known spelling or a single slip (a length
 * at most one apart), and 1 only for the same letters. Most tokens a search tries this way are
 * neither, and comparing them in full is most of what a search spends on names that do not match.
 */
const mayRunTogether = (person: string, joined: string, bySound: Script) =>
  bySound !== false || person === joined || (joined.length >= 8 && (Math.abs(person.length - joined.length) <= 1 || knownVariant(person, joined) !== null));

/** A listed reading's token indexes, the family name first, then given, middle and the rest (each role in the list's order); worked out once a reading. */
const ORDERS = new WeakMap<readonly { role: TokenPair['role'] }[], number[]>();
function roleOrder(listed: readonly { role: TokenPair['role'] }[]): number[] {
  let order = ORDERS.get(listed);
  if (!order) {
    order = listed.map((_, i) => i).sort((a, b) => ROLE_WEIGHT[listed[b]!.role] - ROLE_WEIGHT[listed[a]!.role]);
    ORDERS.set(listed, order);
  }
  return order;
}

/**
 * The listed tokens still missing, run together as a person may have written them (given names
 * then family name, or the other way round; or only the first given name), each with the indexes
 * it joins. In the order the list writes them, particles included: BEN AZZA, Youssef is
 * YoussefBenAzza. Kept a reading and set of missing tokens: a search tries the same few over and
 * over, and a string made once is hashed once.
 */
const JOINS = new WeakMap<readonly ListedToken[], Map<number, { at: number[]; joined: string }[]>>();
function joinsOf(listed: readonly ListedToken[], pairs: readonly TokenPair[]): { at: number[]; joined: string }[] {
  // A name of more than 30 tokens is not kept (its set would not fit a number's bits).
  let key = listed.length <= 30 ? 0 : -1;
  if (key === 0) for (let i = 0; i < listed.length; i++) if (pairs[i]!.how === 'missing') key |= 1 << i;
  let byGaps = JOINS.get(listed);
  let joins = byGaps?.get(key);
  if (joins) return joins;
  const gaps = listed.flatMap((_, i) => (pairs[i]!.how === 'missing' ? [i] : []));
  const firstOther = gaps.findIndex((i) => listed[i]!.role !== 'family' && listed[i]!.role !== 'particle');
  const family = gaps.filter((i, k) => listed[i]!.role === 'family' || (listed[i]!.role === 'particle' && k < firstOther));
  const given = gaps.filter((i) => !family.includes(i));
  joins = [
    [...given, ...family],
    [...family, ...given],
    [...given.slice(0, 1), ...family],
    [...family, ...given.slice(0, 1)],
  ]
    .filter((at) => at.length >= 2)
    .map((at) => ({ at, joined: at.map((i) => listed[i]!.token).join('') }));
  if (key >= 0) {
    if (!byGaps) JOINS.set(listed, (byGaps = new Map()));
    byGaps.set(key, joins);
  }
  return joins;
}

type Similar = { similarity: number; how: TokenPair['how'] };

/**
 * What tokenSimilarity answers for a person's token and a listed token (in its role), kept on the
 * listed token: a search pairs the same few tokens with the same listed tokens over and over (a
 * name's aliases), and searches after it the common given and family names again. At most
 * MET_LIMIT answers are kept in all; past it, every listed token forgets its own.
 */
const MET_LIMIT = 200_000;
let metCount = 0;
/** The listed tokens that keep answers now: all of them forget theirs together. */
const metTokens: ListedToken[] = [];
function similarTo(person: string, l: ListedToken, bySound: Script): Similar | null {
  if (!l.met) {
    l.met = new Map();
    metTokens.push(l);
  }
  const key = bySound ? `${bySound}\u0001${person}` : person;
  let s = l.met.get(key);
  if (s === undefined) {
    s = tokenSimilarity(person, l.token, bySound, l.role);
    if (++metCount > MET_LIMIT) {
      for (const t of metTokens) t.met = undefined;
      metTokens.length = 0;
      metCount = 1;
      l.met = new Map();
      metTokens.push(l);
    }
    l.met.set(key, s);
  }
  return s;
}

/** The best pairing of a person's tokens with one reading of a listed name. */
function align(person: string[], listed: ListedToken[], bySound: Script) {
  const used = new Set<number>();
  const pairs: TokenPair[] = [];
  // The listed family name first, then given, middle and the rest, each taking its closest free token.
  for (const i of roleOrder(listed)) {
    const l = listed[i]!;
    let found = -1;
    let best: { similarity: number; how: TokenPair['how'] } | null = null;
    for (let j = 0; j < person.length; j++) {
      if (used.has(j)) continue;
      const s = similarTo(person[j]!, l, bySound);
      if (s && (!best || s.similarity > best.similarity)) {
        best = s;
        found = j;
      }
    }
    if (best) used.add(found);
    pairs[i] = {
      listed: l.token,
      person: best ? person[found]! : null,
      role: l.role,
      how: best ? best.how : 'missing',
      similarity: best?.similarity ?? 0,
      weight: l.weight,
    };
  }
  // All paired, and none of the person's left: nothing below can pair more.
  const complete = used.size === person.length || pairs.every((x) => x.how !== 'missing');
  // Tokens run together on either side: a free token of the person's equal to the listed name's
  // missing tokens joined (given names then family name, or the other way round), or a missing
  // listed token equal to two free tokens of the person's joined.
  const free = () => person.map((p, j) => ({ p, j })).filter(({ j }) => !used.has(j));
  if (!complete) {
    for (const { p, j } of free()) {
      for (const { at, joined } of joinsOf(listed, pairs)) {
        const s = mayRunTogether(p, joined, bySound) ? tokenSimilarity(p, joined, bySound) : null;
        if (s && runTogether(s, joined)) {
          for (const i of at) Object.assign(pairs[i]!, { person: p, how: 'run together', similarity: s.similarity });
          used.add(j);
          break;
        }
      }
    }
    for (const gap of pairs.filter((x) => x.how === 'missing')) {
      const rest = free();
      for (const x of rest) {
        for (const y of rest) {
          if (x.j === y.j || used.has(x.j) || used.has(y.j) || gap.how !== 'missing') continue;
          // Under eight letters only the same letters run together: not when the lengths differ.
          if (!bySound && gap.listed.length < 8 && x.p.length + y.p.length !== gap.listed.length) continue;
          const joined = x.p + y.p;
          const s = mayRunTogether(joined, gap.listed, bySound) ? tokenSimilarity(joined, gap.listed, bySound) : null;
          if (s && runTogether(s, gap.listed)) {
            Object.assign(gap, { person: `${x.p} ${y.p}`, how: 'run together', similarity: s.similarity });
            used.add(x.j);
            used.add(y.j);
          }
        }
      }
    }
    for (const gap of pairs.filter((x) => x.how === 'missing')) {
      const found = free()
        .map(({ p, j }) => ({ j, p, s: looseSimilarity(p, gap.listed) }))
        .find((x) => x.s);
      if (found?.s) {
        Object.assign(gap, { person: found.p, how: found.s.how, similarity: found.s.similarity });
        used.add(found.j);
      }
    }
    // Initials run together (JC for Jean-Claude): a token of two or three letters that are the
    // initials of the listed given and middle names still missing, in their order.
    for (const { p, j } of free()) {
      if (p.length < 2 || p.length > 3) continue;
      const gaps = pairs.filter((x) => (x.role === 'given' || x.role === 'middle') && x.how === 'missing');
      if (gaps.length < p.length) continue;
      const run = gaps.findIndex(
        (_, k) =>
          gaps
            .slice(k, k + p.length)
            .map((x) => x.listed[0])
            .join('') === p,
      );
      if (run < 0) continue;
      for (const x of gaps.slice(run, run + p.length)) Object.assign(x, { person: p, how: 'initial', similarity: 0.5 });
      used.add(j);
    }
  }
  const extra = person.filter((p, j) => !used.has(j) && !PARTICLES.has(p));
  // The family and given names decide; middle names, patronymics and the person's extra names
  // each take a little off (guests leave them out or add them), at most OPTIONAL_CAP in all.
  // A family name of two words or more (GUZMAN LOERA) is found when one of them is: guests
  // often give one of their surnames; the other then counts as a middle name does.
  // Of two family names, the second given alone is a weaker match (Spanish names put the
  // father's first, and Miguel Santos is rarely PASCUAS SANTOS, Miguel Angel): it counts 0.85,
  // and the match stays below a hit.
  const families = pairs.filter((p) => p.role === 'family');
  const secondOnly = families.length >= 2 && families[0]?.how === 'missing' && families.slice(1).some((p) => p.how !== 'missing' && p.how !== 'run together');
  if (secondOnly) {
    for (const p of families.slice(1)) if (p.how !== 'missing' && p.how !== 'run together') Object.assign(p, { how: 'second family name only', similarity: p.similarity * 0.85 });
  }
  const familyFound = pairs.some((p) => p.role === 'family' && p.how !== 'missing');
  const givenName = pairs.find((p) => p.role === 'given');
  // A person known by a middle name (Boris Johnson, listed as Alexandre Boris de Pfeffel Johnson)
  // gives it first: found there, the listed given name counts as found, for a little less. Not a
  // middle name that many listed people carry (Mohamed, Jose: a father's name, a saint's), which
  // says little about whom the person is.
  const goesBy =
    givenName?.how === 'missing' ? pairs.find((p) => p.role === 'middle' && p.similarity >= 0.95 && p.person === person[0] && (knowledge().common.get(p.listed) ?? 0) <= MANY_CARRY) : undefined;
  if (givenName && goesBy) Object.assign(givenName, { person: goesBy.person, how: 'goes by a middle name', similarity: 0.85 * goesBy.similarity });
  // An initial or a short form of the given name with the same family name, a rare one of six
  // letters or more (N. Nazarbayev, J.-C. Juncker, Ben Netanyahu): few people share both. With a
  // common family name (J Smith, Alex Petrov) it stays below a hit.
  const shortGiven = givenName?.how === 'initial' || givenName?.how === 'short form';
  const rareFamily = () => pairs.some((p) => p.role === 'family' && p.similarity >= 0.95 && p.listed.length >= 6 && !knowledge().common.has(p.listed) && !knowledge().given.has(p.listed));
  // The person's name the short one: Alisa is not a short form of the listed Ali.
  const shortened = shortGiven && (givenName.person?.length ?? 0) < givenName.listed.length && rareFamily();
  if (givenName && shortened) givenName.similarity = INITIAL_OF_RARE;
  const familyOptional = (p: TokenPair) => p.role === 'family' && p.how === 'missing' && familyFound;
  const core = pairs.filter((p) => (p.role === 'family' || p.role === 'given') && !familyOptional(p));
  const found = core.reduce((sum, p) => sum + p.weight * p.similarity, 0);
  const all = core.reduce((sum, p) => sum + p.weight, 0);
  const optionalMissing = pairs.filter((p) => ((p.role === 'middle' || p.role === 'patronymic') && p.how === 'missing') || familyOptional(p)).length + extra.length;
  let score = all > 0 ? (found / all) * (1 - Math.min(OPTIONAL_CAP, optionalMissing * OPTIONAL_COST)) : 0;
  // A shared family name with another given name is never a hit: a given name the list gives
  // and the person's name has not (or only as an initial or a short form, but beside a rare
  // family name) keeps the score below.
  if (secondOnly || givenName?.how === 'missing' || (shortGiven && !shortened)) score = Math.min(score, NO_GIVEN_CAP);
  // A listed second family name missing where the person gives a name of their own the list has
  // not (MADURO GUERRA against Maduro Moros) may be another mother's name: close, not the same.
  if (pairs.some(familyOptional) && extra.length) score = Math.min(score, OTHER_SECOND_FAMILY_CAP);
  // A middle name or patronymic the list gives, missing where the person gives a name of their own
  // the list has not (Sergey Ivanevich against Sergey Viktorovich LAVROV, BEN HAMID against BEN
  // ABDALLAH): another father's name, another person of the same name.
  // Only where the two are unlike: Mohd is Mohammad written short, Yong and Jong one name spelled two ways.
  const missingMiddles = pairs.filter((p) => (p.role === 'middle' || p.role === 'patronymic') && p.how === 'missing');
  if (extra.length && missingMiddles.length && !extra.some((e) => missingMiddles.some((m) => alikeNames(e, m.listed)))) score = Math.min(score, OTHER_MIDDLE_CAP);
  // A father's and a son's name the other way round (ABDULLAH BIN OMAR against OMAR BIN ABDULLAH): the father, or the son, of the listed person.
  const swapped = swappedLineage(person, listed, pairs);
  if (swapped) score = Math.min(score, OTHER_MIDDLE_CAP);
  const hasFamily = pairs.some((p) => p.role === 'family');
  if ((hasFamily && !familyFound) || !pairs.some((p) => p.role !== 'particle' && p.how !== 'missing')) score = Math.min(score, NO_FAMILY_CAP);
  return { score, pairs, extra, swapped };
}

/** The words that join a name to a father's name (X bin Y: X, son of Y). */
const LINEAGE = new Set(['bin', 'ibn', 'bint', 'ben', 'bn', 'ould']);

/**
 * Whether the person's name gives, with a lineage word between them, the listed name's X and Y of
 * an X bin Y in the other order: the son's name where the list has the father's.
 */
function swappedLineage(person: string[], listed: { token: string }[], pairs: TokenPair[]): boolean {
  for (let i = 1; i < listed.length - 1; i++) {
    if (!LINEAGE.has(listed[i]!.token)) continue;
    const [son, father] = [pairs[i - 1]?.person, pairs[i + 1]?.person];
    if (!son || !father || pairs[i - 1]!.how === 'missing' || pairs[i + 1]!.how === 'missing') continue;
    const [s, f] = [person.indexOf(son), person.indexOf(father)];
    if (s >= 0 && f >= 0 && f < s && person.slice(f + 1, s).some((t) => LINEAGE.has(t))) return true;
  }
  return false;
}

const HANGUL = /\p{Script=Hangul}/u;

/**
 * Whether two names written in Hangul each have a syllable the other has not (김정은, 김종은):
 * two names, however their romanisations meet. A syllable left out or added is not enough.
 */
function otherSyllables(person: string, listed: string): boolean {
  if (!HANGUL.test(person) || !HANGUL.test(listed)) return false;
  const syllables = (name: string) => [...name.normalize('NFC')].filter((ch) => HANGUL.test(ch));
  const hasOwn = (x: string[], y: string[]) => {
    const rest = [...y];
    return x.some((ch) => {
      const at = rest.indexOf(ch);
      if (at < 0) return true;
      rest.splice(at, 1);
      return false;
    });
  };
  const [a, b] = [syllables(person), syllables(listed)];
  return hasOwn(a, b) && hasOwn(b, a);
}

function describe(m: Omit<NameMatch, 'explanation'>, person: string, listed: string, spelled: string): string {
  const familyFound = m.pairs.some((p) => p.role === 'family' && p.how !== 'missing');
  const parts = m.pairs
    .filter((p) => p.role !== 'particle')
    .map((p) =>
      p.how === 'missing' ? `${p.role} name '${p.listed}' not given${p.role === 'family' && !familyFound ? ' (no match without it)' : ''}` : `${p.role} name '${p.listed}' ~ '${p.person}' (${p.how})`,
    );
  if (m.extra.length) parts.push(`not on the list: ${m.extra.map((e) => `'${e}'`).join(', ')}`);
  return `'${person}' matched '${listed}' at ${m.score.toFixed(2)}: ${parts.join('; ')}${spelled ? ` (the person's name spelled ${spelled})` : ''}`;
}

/** The person's name read, for the search that compares it with many listed names in a row. */
let lastPerson: { name: string; readings: string[][] } | undefined;

/** The letters digits are typed for inside a word (Ig0r Sech1n, I9or): no name holds a digit. */
const DIGIT_LETTER: Record<string, string> = { '0': 'o', '1': 'i', '2': 'z', '3': 'e', '4': 'a', '5': 's', '6': 'g', '7': 't', '8': 'b', '9': 'g' };
const lettersForDigits = (token: string) => (/\d/.test(token) && /\p{L}/u.test(token) ? token.replace(/\d/g, (d) => DIGIT_LETTER[d] as string) : token);

/** The ways a person's name is read for matching: its spellings in Latin letters, or, in Arabic script, its consonants' words. */
export function personReadings(person: string): string[][] {
  return readPerson(person, scriptOf(person));
}

function readPerson(person: string, bySound: Script): string[][] {
  if (lastPerson?.name === person) return lastPerson.readings;
  // Arabic script: hamza and ayn are letters, not breaks; the article is written joined (الأسد: l'sd).
  const readings = bySound
    ? [
        toLatin(person)
          .toLowerCase()
          .replace(/['`]/g, '')
          .split(/[^\p{L}\p{N}]+/u)
          .filter(Boolean),
      ]
    : nameVariants(person).map((reading) => reading.map(lettersForDigits));
  lastPerson = { name: person, readings };
  return readings;
}

/** How well a listed name ("FAMILY, Given Middle", or as written) matches a person's name. */
/** The best alignment of the person's readings with the listed name's, and the reading it came from; null when either has no token. */
function bestAlignment(person: string, readings: string[][], listed: string, bySound: Script): (ReturnType<typeof align> & { reading: string[]; syllable: boolean }) | null {
  let best: (ReturnType<typeof align> & { reading: string[] }) | null = null;
  for (const p of readings) {
    if (!p.length) continue;
    for (const l of listedTokens(listed)) {
      if (!l.length) continue;
      const m = align(p, l, bySound);
      if (!best || m.score > best.score) best = Object.assign(m, { reading: p });
    }
  }
  if (!best) return null;
  // Names in Hangul are compared in Hangul too: however their romanisations meet, another syllable is another name.
  const syllable = otherSyllables(person, listed);
  return Object.assign(best, { syllable, score: syllable ? Math.min(best.score, NO_GIVEN_CAP) : best.score });
}

const rounded = (score: number) => Math.round(score * 1000) / 1000;

/**
 * matchName's score alone, with the person's name read once for many listed names: a sanctions
 * search scores up to 150 candidates and explains only those that pass its threshold.
 */
export function nameScorer(person: string): (listed: string) => number {
  const bySound = scriptOf(person);
  const readings = readPerson(person, bySound);
  return (listed) => rounded(bestAlignment(person, readings, listed, bySound)?.score ?? 0);
}

export function matchName(person: string, listed: string): NameMatch {
  const bySound = scriptOf(person);
  const best = bestAlignment(person, readPerson(person, bySound), listed, bySound);
  if (!best) return { score: 0, explanation: `'${person}' has no name to compare with '${listed}'`, pairs: [], extra: [] };
  const spelled = /^[\x00-\x7f]*$/.test(person) ? '' : best.reading.join(' ');
  const score = rounded(best.score);
  const explanation =
    describe({ ...best, score }, person, listed, spelled) +
    (best.swapped ? "; the son's and the father's names the other way round" : '') +
    (best.syllable ? '; in Hangul, each name has a syllable the other has not' : '');
  return { score, pairs: best.pairs, extra: best.extra, explanation };
}

/** Tokens apart at most in one mention of a name in running text ("Vladimir Vladimirovich Putin"). */
const MENTION_TOKENS = 4;
/** What may stand inside a mention of a name without being one of the person's: a particle, an initial, a patronymic. */
const inside = (t: string) => PARTICLES.has(t) || t.length === 1 || PATRONYMIC.test(t);

/**
 * Where running text (an article's folded tokens, nameTokens) names the person: each stretch of
 * up to four tokens that begins and ends with a token pairing with one of the person's, with
 * nothing between but those, particles, initials and patronymics, that pairs with two of the
 * person's names at least, and that matchName scores at the threshold, however the text writes
 * the name (Putin, Vladimir; Vladimir Vladimirovich Putin; Yevgeny for Evgeny). Overlapping
 * stretches keep the best.
 */
export function mentions(person: string, tokens: string[], threshold = NAME_THRESHOLD): { start: number; end: number; match: NameMatch }[] {
  const readings = personReadings(person);
  const own = [...new Set(readings.flat())];
  const near = tokens.map((t) => own.some((p) => tokenSimilarity(p, t, false) !== null));
  const wanted = Math.min(...readings.map((r) => r.filter((t) => !PARTICLES.has(t)).length));
  const found: { start: number; end: number; match: NameMatch }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!near[i]) continue;
    let best: { start: number; end: number; match: NameMatch } | null = null;
    for (let j = i; j < Math.min(tokens.length, i + MENTION_TOKENS); j++) {
      // Between the ends, only what may stand inside a name: 'John met Anna Smith' is not John Smith.
      if (j > i && !near[j - 1] && !inside(tokens[j - 1] as string)) break;
      if (!near[j]) continue;
      const match = matchName(person, tokens.slice(i, j + 1).join(' '));
      // Two of the person's names at least (a surname alone in a text is anyone of that family).
      const used = match.pairs.reduce((n, p) => n + (p.how === 'missing' || !p.person ? 0 : p.person.split(' ').length), 0);
      if (used < Math.min(2, wanted)) continue;
      if (match.score >= threshold && (!best || match.score > best.match.score)) best = { start: i, end: j, match };
    }
    if (!best) continue;
    const last = found[found.length - 1];
    if (last && best.start <= last.end) {
      if (best.match.score > last.match.score) found[found.length - 1] = best;
    } else found.push(best);
  }
  return found;
}

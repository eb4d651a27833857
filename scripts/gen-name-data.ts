/**
 * Writes src/lib/names/name-data.json, what the name matcher knows about names besides their
 * letters (docs/decisions/matching-names.md):
 *
 * - `given`: every given name of faker's name lists (all its locales), so a shared common given
 *   name counts for less;
 * - `variants`: spellings of one name, from the OFAC lists' own aliases (an entry's name and
 *   its a.k.a. compared word by word: MUHAMMAD, Yusuf a.k.a. MOHAMMED, Yousef);
 * - `different`: names that look alike (a letter or two apart, the same consonants, one
 *   beginning the other) but are different names: two entries of one of faker's name lists
 *   that begin with other letters or are two letters apart or more (Fernandez and Hernandez;
 *   Jonathan and Jonathon, one letter apart, are spellings), a man's and a woman's name (Ivan
 *   and Ivana, Lucio and Lucia), or two given names each borne by three listed people or more,
 *   two letters apart or more, and never given as aliases of each other (Hasan and Husayn);
 * - `otherSex`: those of `different` that are a man's and a woman's name;
 * - `common`: how many listed names and name lists hold each token, for its weight.
 *
 * Aliases and names of the benchmark's held-out half (bench/matching/halves.ts) are left out,
 * so the benchmark measures the matcher on people whose names shaped none of this. Run again
 * after upgrading @faker-js/faker or changing the shipped lists:
 *
 *   node --import tsx scripts/gen-name-data.ts --sdn sdn.csv --alt alt.csv
 */
import { allLocales } from '@faker-js/faker';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import damerauLevenshtein from 'talisman/metrics/damerau-levenshtein.js';
import { half } from '../bench/matching/halves.js';
import { spellingKey } from '../src/lib/names/spelling.js';
import { nameTokens } from '../src/lib/names/names.js';
import { packageFile } from '../src/lib/packages.js';
import { readOfac } from '../src/providers/sanctions/formats.js';

const { values } = parseArgs({ options: { sdn: { type: 'string' }, alt: { type: 'string' } } });
if (!values.sdn || !values.alt) throw new Error('--sdn FILE --alt FILE: an OFAC SDN list with its aliases (legacy CSV)');

const flat = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : v && typeof v === 'object' ? Object.values(v).flatMap(flat) : []);
const tokensOf = (names: string[]) => new Set(names.flatMap((n) => nameTokens(n)).filter((t) => t.length >= 2));
type Person = { first_name?: Record<string, unknown> | unknown[]; last_name?: Record<string, unknown> | unknown[] };
const locales = Object.entries(allLocales as unknown as Record<string, { person?: Person }>);

// Faker's lists: given names (all, and by sex) and family names, a list per locale.
const given = new Set<string>();
const male = new Set<string>();
const female = new Set<string>();
const lists: Set<string>[] = [];
for (const [, locale] of locales) {
  const p = locale.person;
  if (!p) continue;
  const first = tokensOf(flat(p.first_name));
  for (const t of first) given.add(t);
  if (first.size) lists.push(first);
  const last = tokensOf(flat(p.last_name));
  if (last.size) lists.push(last);
  const sexed = p.first_name && !Array.isArray(p.first_name) ? p.first_name : {};
  for (const t of tokensOf(flat(sexed.male))) male.add(t);
  for (const t of tokensOf(flat(sexed.female))) female.add(t);
}
const onlyMale = new Set([...male].filter((t) => !female.has(t)));
const onlyFemale = new Set([...female].filter((t) => !male.has(t)));

// The lists' aliases, word by word: a listed name and its a.k.a. with as many words, in order.
const sdn = await readOfac({ primary: values.sdn, aliases: values.alt });
const parent = new Map<string, string>();
const find = (t: string): string => {
  let p = parent.get(t) ?? t;
  while (p !== (parent.get(p) ?? p)) p = parent.get(p) ?? p;
  return p;
};
const union = (a: string, b: string) => parent.set(find(a), find(b));
const split = (name: string) => {
  const comma = name.indexOf(',');
  return comma < 0 ? null : { family: nameTokens(name.slice(0, comma)), given: nameTokens(name.slice(comma + 1)) };
};
const sameStart = (a: string, b: string) => a[0] === b[0] || (/[aeiouy]/.test(a[0] ?? '') && /[aeiouy]/.test(b[0] ?? ''));
// A pair counts when its two spellings are a letter or two apart (or a third of the name for
// long ones), neither is anywhere in the other name (an alias that only reorders the names says
// nothing), and, beyond a single letter, when two entries or more give it.
const seen = new Map<string, number>();
for (const e of sdn.entries) {
  if (e.kind !== 'individual' || half(e.name) === 'held-out') continue;
  const name = split(e.name);
  if (!name) continue;
  const own = new Set([...name.family, ...name.given]);
  const pairs = new Set<string>();
  for (const alias of e.aliases) {
    const other = split(alias);
    if (!other) continue;
    const theirs = new Set([...other.family, ...other.given]);
    for (const part of ['family', 'given'] as const) {
      if (name[part].length !== other[part].length) continue;
      name[part].forEach((a, i) => {
        const b = other[part][i] as string;
        if (a === b || own.has(b) || theirs.has(a) || Math.min(a.length, b.length) < 4 || !sameStart(a, b)) return;
        const edits = damerauLevenshtein(a, b);
        if (edits <= Math.max(2, Math.floor(Math.max(a.length, b.length) / 3))) pairs.add(`${[a, b].sort().join(' ')} ${edits}`);
      });
    }
  }
  for (const p of pairs) seen.set(p, (seen.get(p) ?? 0) + 1);
}
for (const [p, n] of seen) {
  const [a, b, edits] = p.split(' ') as [string, string, string];
  if (Number(edits) <= 1 || n >= 2) union(a, b);
}
const groups = new Map<string, string[]>();
for (const t of parent.keys()) groups.set(find(t), [...(groups.get(find(t)) ?? []), t]);
const variants = [...groups.values()].filter((g) => g.length >= 2).map((g) => [...new Set(g)].sort());
const variantOf = new Map(variants.flatMap((g, i) => g.map((t) => [t, i] as const)));
const sameName = (a: string, b: string) => spellingKey(a) === spellingKey(b) || (variantOf.has(a) && variantOf.get(a) === variantOf.get(b));

// Given names borne by several listed people (the tuning half).
const shipped = await readOfac({ primary: packageFile('lists/ofac/ofac_sdn_2024-05-03.csv') });
const borne = new Map<string, number>();
const common = new Map<string, number>();
for (const e of [...shipped.entries, ...sdn.entries]) {
  if (e.kind !== 'individual') continue;
  for (const t of new Set(nameTokens(e.name))) common.set(t, (common.get(t) ?? 0) + 1);
  const name = split(e.name);
  if (!name || half(e.name) === 'held-out') continue;
  for (const t of new Set(name.given)) borne.set(t, (borne.get(t) ?? 0) + 1);
}
for (const list of lists) for (const t of list) common.set(t, (common.get(t) ?? 0) + 1);
const frequentGiven = new Set([...borne].filter(([, n]) => n >= 3).map(([t]) => t));

/** Whether the matcher could take one for the other: what needs telling apart. */
const lookAlike = (a: string, b: string) => {
  const shorter = Math.min(a.length, b.length);
  if (shorter < 3) return false;
  if (a.startsWith(b) || b.startsWith(a)) return true;
  const edits = Math.abs(a.length - b.length) <= 2 ? damerauLevenshtein(a, b) : 99;
  if (edits <= (shorter >= 8 ? 2 : shorter >= 5 ? 1 : 0)) return true;
  const c = (t: string) => t.replace(/[aeiouyw]/g, '').replace(/(.)\1+/g, '$1');
  return c(a).length >= 3 && c(a) === c(b);
};
const different = new Set<string>();
/** Look-alike pairs of `tokens` that `also` accepts and that are not one name: among tokens that share their first two letters or their second to fourth (Fernandez, Hernandez), or all of them. */
const consider = (tokens: string[], also: (a: string, b: string) => boolean = () => true, everyPair = false) => {
  const buckets = new Map<string, string[]>();
  for (const t of tokens) {
    if (t.length < 3) continue;
    for (const key of everyPair ? [''] : [`a${t.slice(0, 2)}`, `b${t.slice(1, 4)}`]) buckets.set(key, [...(buckets.get(key) ?? []), t]);
  }
  for (const bucket of buckets.values()) {
    for (let i = 0; i < bucket.length; i++) {
      for (let j = i + 1; j < bucket.length; j++) {
        const a = bucket[i] as string;
        const b = bucket[j] as string;
        if (also(a, b) && lookAlike(a, b) && !sameName(a, b)) different.add([a, b].sort().join(' '));
      }
    }
  }
};
// One letter apart in one list is as often two spellings (Jonathan, Jonathon) as two names; a
// first letter apart is two names (Fernandez, Hernandez).
for (const list of lists) consider([...list], (a, b) => a[0] !== b[0] || damerauLevenshtein(a, b) >= 2);
const beforeSexes = new Set(different);
consider([...onlyMale, ...onlyFemale], (a, b) => onlyMale.has(a) !== onlyMale.has(b));
// A man's and a woman's name never pair, not even as a short form (Ivan, Ivana).
const otherSex = [...different].filter((p) => !beforeSexes.has(p)).sort();
// Two letters apart at least: one letter is as often a spelling (Tahir, Taher) as another name.
consider([...frequentGiven], (a, b) => damerauLevenshtein(a, b) >= 2, true);

const data = {
  about: 'Written by scripts/gen-name-data.ts from faker name lists and OFAC lists (public domain); do not edit.',
  given: [...given].sort(),
  variants: variants.sort((a, b) => (a[0] as string).localeCompare(b[0] as string)),
  different: [...different].sort(),
  otherSex,
  common: Object.fromEntries([...common].filter(([, n]) => n >= 3).sort((a, b) => a[0].localeCompare(b[0]))),
};
writeFileSync(new URL('../src/lib/names/name-data.json', import.meta.url), `${JSON.stringify(data)}\n`);
process.stdout.write(
  `${data.given.length} given names, ${variants.length} groups of variants, ${different.size} look-alike pairs of different names, ${Object.keys(data.common).length} common tokens\n`,
);

/**
 * Writes bench/matching/pairs.json, the labelled set of person-name pairs the matching bench
 * scores, made from the OFAC lists and faker's name lists (nothing typed by hand but the 30
 * names in Arabic script of arabic.ts). Each pair is in the tuning half or the held-out half by
 * the listed family name (halves.ts); the benchmark reports the held-out half.
 *
 * Positives: listed people written as guests write them (first and last name only, a typo, in
 * Cyrillic or Arabic script, run together, family name first, one of two family names) and as
 * the lists' own aliases give them. Negatives are the hard cases: guests of 24 countries against
 * the listed person closest in spelling, in Latin letters and in their own scripts; the
 * commonest family names of Chinese, Korean, Vietnamese, Russian, Arabic, Iranian and Hispanic
 * guests with another given name; given names that look alike but differ (two names borne by
 * several listed people and never aliases of each other; a man's and a woman's name); Slavic
 * family names in their feminine form; the second of two family names alone. A negative's given
 * name is never the listed one written otherwise (the same once romanisation is taken out,
 * aliases of each other in the lists, or a letter apart).
 *
 *   node --import tsx bench/matching/make-pairs.ts --sdn ofac_sdn_2024-05-03.csv --sdn2021 ofac_sdn_2021-07-07.csv --alt ofac_alt_2021-07-07.csv
 */
import { allLocales } from '@faker-js/faker';
import { parse } from 'csv-parse/sync';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import damerauLevenshtein from 'talisman/metrics/damerau-levenshtein.js';
import { nameTokens } from '../../src/lib/names/names.js';
import { spellingKey } from '../../src/lib/names/spelling.js';
import { ARABIC_SCRIPT } from './arabic.js';
import { half } from './halves.js';

export interface Pair {
  query: string;
  listed: string;
  /** 1: the same person; 0: another. */
  same: 0 | 1;
  kind: string;
  half: 'tune' | 'held-out';
}

const { values } = parseArgs({ options: { sdn: { type: 'string' }, sdn2021: { type: 'string' }, alt: { type: 'string' }, seed: { type: 'string', default: '7' } } });
if (!values.sdn || !values.sdn2021 || !values.alt) throw new Error('--sdn FILE --sdn2021 FILE --alt FILE: OFAC SDN CSVs (legacy format), the older with its aliases');
let state = Number(values.seed);
const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const csv = (file: string): string[][] => parse(readFileSync(file, 'latin1').replace(/\x1a/g, ''), { relax_quotes: true, relax_column_count: true });
const NAMED = /^[A-Z' -]+, [A-Za-z' -]+$/;
const readPeople = (rows: string[][]) =>
  rows
    .filter((r) => r[2] === 'individual' && NAMED.test(r[1] ?? ''))
    .map((r) => {
      const [family, given] = (r[1] as string).split(', ') as [string, string];
      return { id: r[0] as string, listed: r[1] as string, family, given: given.split(' '), program: r[3] ?? '' };
    });
const people = readPeople(csv(values.sdn));
const russian = people.filter((p) => /RUSSIA|UKRAINE/.test(p.program) && p.given.length >= 2);
const pairs: Pair[] = [];
const add = (query: string, listed: string, same: 0 | 1, kind: string) => pairs.push({ query, listed, same, kind, half: half(listed) });
const title = (s: string) => s.toLowerCase().replace(/(^|[\s'-])\p{L}/gu, (m) => m.toUpperCase());
const guest = (p: (typeof people)[number]) => `${p.given[0]} ${title(p.family)}`;

/** One typing slip in the longest token: a letter dropped, doubled, swapped with the next, or replaced by its neighbour on the keyboard. */
function typo(name: string): string {
  const tokens = name.split(' ');
  const i = tokens.reduce((best, t, j) => (t.length > (tokens[best] ?? '').length ? j : best), 0);
  const t = tokens[i] as string;
  const at = 1 + Math.floor(random() * (t.length - 2));
  const slips = [
    () => t.slice(0, at) + t.slice(at + 1),
    () => t.slice(0, at) + t[at] + t.slice(at),
    () => t.slice(0, at) + (t[at + 1] ?? '') + t[at] + t.slice(at + 2),
    () => t.slice(0, at) + (NEIGHBOUR[t[at]?.toLowerCase() ?? ''] ?? 'e') + t.slice(at + 1),
  ];
  tokens[i] = pick(slips)();
  return tokens.join(' ');
}
const NEIGHBOUR: Record<string, string> = {
  a: 's',
  b: 'v',
  c: 'x',
  d: 's',
  e: 'r',
  f: 'g',
  g: 'h',
  h: 'j',
  i: 'o',
  j: 'k',
  k: 'l',
  l: 'k',
  m: 'n',
  n: 'm',
  o: 'p',
  p: 'o',
  r: 't',
  s: 'a',
  t: 'r',
  u: 'y',
  v: 'b',
  w: 'e',
  y: 'u',
  z: 'x',
};

/** Russian names back into Cyrillic, as a Russian guest types them (the reverse of the lists' romanisation). */
function cyrillic(latin: string): string {
  const rules: [RegExp, string][] = [
    [/shch/g, 'щ'],
    [/yevich/g, 'евич'],
    [/zh/g, 'ж'],
    [/kh/g, 'х'],
    [/ts/g, 'ц'],
    [/ch/g, 'ч'],
    [/sh/g, 'ш'],
    [/yu/g, 'ю'],
    [/ya/g, 'я'],
    [/yo/g, 'ё'],
    [/iy\b/g, 'ий'],
    [/yy\b/g, 'ый'],
    [/([aeiou])y/g, '$1й'],
    [/\by?e/g, 'е'],
    [/y/g, 'ы'],
    [/a/g, 'а'],
    [/b/g, 'б'],
    [/v/g, 'в'],
    [/g/g, 'г'],
    [/d/g, 'д'],
    [/e/g, 'е'],
    [/z/g, 'з'],
    [/i/g, 'и'],
    [/k/g, 'к'],
    [/l/g, 'л'],
    [/m/g, 'м'],
    [/n/g, 'н'],
    [/o/g, 'о'],
    [/p/g, 'п'],
    [/r/g, 'р'],
    [/s/g, 'с'],
    [/t/g, 'т'],
    [/u/g, 'у'],
    [/f/g, 'ф'],
    [/'/g, 'ь'],
  ];
  return latin
    .toLowerCase()
    .split(' ')
    .map((w) => {
      const c = rules.reduce((s, [re, to]) => s.replace(re, to), w);
      return c.charAt(0).toUpperCase() + c.slice(1);
    })
    .join(' ');
}

const sample = <T>(list: readonly T[], n: number): T[] => Array.from({ length: n }, () => pick(list));
const flat = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : v && typeof v === 'object' ? Object.values(v).flatMap(flat) : []);
type Names = { first_name?: unknown; last_name?: unknown };
const all = allLocales as unknown as Record<string, { person?: Names }>;
const firstNames = (locale: string, sex?: 'male' | 'female') => {
  const f = all[locale]?.person?.first_name;
  return flat(sex && f && typeof f === 'object' && !Array.isArray(f) ? (f as Record<string, unknown>)[sex] : f);
};
const lastNames = (locale: string, sex?: 'male' | 'female') => {
  const l = all[locale]?.person?.last_name;
  return flat(sex && l && typeof l === 'object' && !Array.isArray(l) ? (l as Record<string, unknown>)[sex] : l);
};
/** A name of faker's as a guest types it in Latin letters: each word's syllables joined (Chinese and Korean characters are a syllable each). */
const latin = (name: string) =>
  name
    .split(/\s+/)
    .map((w) => title(nameTokens(w).join('')))
    .join(' ')
    .trim();

// The lists' aliases (the older SDN file with its alt.csv): an alias is a spelling of the
// person's name when each of its words begins as a word of the name does.
const older = new Map(readPeople(csv(values.sdn2021)).map((p) => [p.id, p]));
const aliasesOf = new Map<string, string[]>();
for (const r of csv(values.alt)) {
  if (r[2] !== 'aka' || !older.has(r[0] ?? '') || !NAMED.test(r[3] ?? '')) continue;
  aliasesOf.set(r[0] as string, [...(aliasesOf.get(r[0] as string) ?? []), r[3] as string]);
}
/** Given names aliases of each other anywhere in the lists: for the labels, never a negative. */
const aliasPairs = new Set<string>();
for (const [id, aliases] of aliasesOf) {
  const p = older.get(id);
  if (!p) continue;
  for (const a of aliases) {
    const given = nameTokens(a.split(', ')[1] ?? '');
    nameTokens(p.given.join(' ')).forEach((t, i) => given[i] && aliasPairs.add([t, given[i]].sort().join(' ')));
  }
}
/** Whether a guest's given name may be the listed one written otherwise: then it is no negative. */
const sameGiven = (guestGiven: string, listedGiven: readonly string[]) =>
  nameTokens(guestGiven).some((g) =>
    nameTokens(listedGiven.join(' ')).some(
      (l) => g === l || spellingKey(g) === spellingKey(l) || aliasPairs.has([g, l].sort().join(' ')) || (Math.min(g.length, l.length) >= 4 && damerauLevenshtein(g, l) <= 1),
    ),
  );

// Positives.
for (const p of sample(
  people.filter((x) => x.given.length >= 2),
  200,
))
  add(guest(p), p.listed, 1, 'first and last name only');
for (const p of sample(people, 150)) add(typo(guest(p)), p.listed, 1, 'a typo');
for (const p of sample(russian, 120)) add(cyrillic(guest(p)), p.listed, 1, 'own script: Cyrillic');
for (const [query, listed] of ARABIC_SCRIPT) add(query, listed, 1, 'own script: Arabic');
for (const p of sample(people, 40)) add(`${p.given[0]}${title(p.family)}`.replace(/\s/g, ''), p.listed, 1, 'written together');
for (const p of sample(
  people.filter((x) => x.given.length >= 2),
  40,
))
  add(`${p.given.join(' ')} ${title(p.family)}`, `${p.family}, ${p.given[0]}`, 1, 'full name against the short form');
for (const p of sample(people, 40)) add(`${title(p.family)} ${p.given.join(' ')}`, p.listed, 1, 'family name first');
const twoWordFamilies = people.filter((x) => /^[A-Z']+ [A-Z']+$/.test(x.family) && !/^(AL|EL|BIN|BEN|ABU|DE|DEL|LA|VAN|VON|DOS|DA) /.test(x.family));
for (const p of sample(twoWordFamilies, 40)) add(`${p.given[0]} ${title(p.family.split(' ')[0] as string)}`, p.listed, 1, 'one of two family names');
const spellings = [...aliasesOf].flatMap(([id, aliases]) => {
  const p = older.get(id);
  if (!p) return [];
  const own = nameTokens(p.listed);
  return aliases
    .filter((a) => {
      const words = nameTokens(a);
      return (
        words.join(' ') !== own.join(' ') &&
        words.some((w) => !own.includes(w)) &&
        words.every((w) => own.some((o) => o[0] === w[0] && damerauLevenshtein(o, w) <= Math.floor(Math.max(o.length, w.length) / 2)))
      );
    })
    .map((a) => ({ alias: a, listed: p.listed }));
});
for (const { alias, listed } of sample(spellings, 150)) {
  const [family, given] = alias.split(', ') as [string, string];
  add(`${title(given)} ${title(family)}`, listed, 1, "the list's own alias");
}

// Negatives: guests of many countries, each against the listed person closest to them in spelling.
const locales = ['en', 'de', 'fr', 'es', 'it', 'pt_BR', 'nl', 'pl', 'sv', 'tr', 'ru', 'uk', 'ar', 'fa', 'zh_CN', 'ko', 'vi', 'el', 'he', 'ja', 'cs_CZ', 'ro', 'hu', 'id_ID'] as const;
const byFamilyStart = new Map<string, (typeof people)[number][]>();
for (const p of people) for (const t of nameTokens(p.family)) byFamilyStart.set(t.slice(0, 3), [...(byFamilyStart.get(t.slice(0, 3)) ?? []), p]);
const nearest = (last: string) => pick(byFamilyStart.get(nameTokens(last)[0]?.slice(0, 3) ?? '') ?? people).listed;
for (let n = 0; n < 312; n++) {
  const locale = locales[n % locales.length] as string;
  const first = pick(firstNames(locale));
  const last = pick(lastNames(locale));
  if (!first || !last) continue;
  const query = `${latin(first)} ${latin(last)}`;
  add(query, nearest(query.split(' ').pop() ?? ''), 0, `unlisted guest (${locale})`);
}
// The same guests in their own scripts.
for (let n = 0; n < 160; n++) {
  const locale = (['ru', 'uk', 'ar', 'fa', 'zh_CN', 'ko', 'el', 'he'] as const)[n % 8] as string;
  const first = pick(firstNames(locale));
  const last = pick(lastNames(locale));
  if (!first || !last) continue;
  const query = /zh_CN|ko/.test(locale) ? `${last}${first}` : `${first} ${last}`;
  add(query, nearest(nameTokens(last).join('')), 0, `unlisted guest in their own script (${locale})`);
}
// The commonest family names of the countries with many listed people, with another given name.
const families: [group: string, surnames: string[], given: string[]][] = [
  ['Chinese', lastNames('zh_CN').map(latin), firstNames('zh_CN').map(latin)],
  ['Korean', ['Kim', 'Lee', 'Ri', 'Pak', 'Park', 'Choe', 'Choi', 'Jong', 'Kang', 'Jo', 'Yun', 'Han', 'O'], firstNames('ko').map(latin)],
  ['Vietnamese', lastNames('vi').map(latin), firstNames('vi').map(latin)],
  ['Russian', lastNames('ru', 'male').map(latin), firstNames('ru', 'male').map(latin)],
  ['Arabic', [], people.filter((p) => /SDGT|SYRIA|IRAQ|LIBYA|YEMEN|SDT|FTO/.test(p.program)).map((p) => title(p.given[0] as string))],
  ['Iranian', [], people.filter((p) => /IRAN|IRGC|IFSR|NPWMD/.test(p.program)).map((p) => title(p.given[0] as string))],
  ['Hispanic', lastNames('es').map(latin), firstNames('es').map(latin)],
];
for (const [group, surnames, given] of families) {
  const own = new Set(surnames.map((s) => nameTokens(s).join('')));
  const listed = people.filter((p) =>
    group === 'Arabic' ? /SDGT|SYRIA|IRAQ|LIBYA|YEMEN|SDT|FTO/.test(p.program) : group === 'Iranian' ? /IRAN|IRGC|IFSR|NPWMD/.test(p.program) : own.has(nameTokens(p.family).join('')),
  );
  if (!listed.length) continue;
  let made = 0;
  for (let tries = 0; made < 50 && tries < 1000; tries++) {
    const p = pick(listed);
    const g = pick(given);
    if (!g || sameGiven(g, p.given)) continue;
    add(`${g} ${title(p.family)}`, p.listed, 0, `shared family name, another given name (${group})`);
    made++;
  }
}
// Given names that look alike but are different names: borne by three listed people or more
// each and never aliases of each other (Mahmoud, Muhammad), or a man's and a woman's (Ivan, Ivana).
// Among Arabic, Iranian and Turkic given names, which Latin letters write with their vowels and
// Arabic script without: Mahmoud and Muhammad, Hasan and Husayn, Ali and Alim.
const muslim = people.filter((p) => /SDGT|SYRIA|IRAQ|LIBYA|YEMEN|SDT|FTO|IRAN|IRGC|IFSR|NPWMD|SOMALIA|SUDAN|AFGHAN/.test(p.program));
const borne = new Map<string, number>();
for (const p of muslim) for (const t of nameTokens(p.given[0] as string).slice(0, 1)) borne.set(t, (borne.get(t) ?? 0) + 1);
const frequent = [...borne].filter(([t, n]) => n >= 3 && t.length >= 3).map(([t]) => t);
const consonantsOf = (t: string) => t.replace(/[aeiouyw]/g, '').replace(/(.)\1+/g, '$1');
const lookAlike = (a: string, b: string) =>
  a !== b &&
  spellingKey(a) !== spellingKey(b) &&
  !aliasPairs.has([a, b].sort().join(' ')) &&
  Math.min(a.length, b.length) >= 4 &&
  ((consonantsOf(a).length >= 3 && consonantsOf(a) === consonantsOf(b)) || damerauLevenshtein(a, b) === 1);
const alike = new Map<string, string[]>();
for (const a of frequent) for (const b of frequent) if (a < b && lookAlike(a, b)) alike.set(a, [...(alike.get(a) ?? []), b]).set(b, [...(alike.get(b) ?? []), a]);
const withAlike = muslim.filter((p) => alike.has(nameTokens(p.given[0] as string)[0] ?? ''));
for (const p of sample(withAlike, 150)) {
  const other = pick(alike.get(nameTokens(p.given[0] as string)[0] as string) as string[]);
  if (!sameGiven(other, p.given)) add(`${title(other)} ${title(p.family)}`, p.listed, 0, 'look-alike given name');
}
const male = new Set(['ru', 'uk', 'es', 'pt_PT', 'it', 'pl', 'cs_CZ', 'ro', 'tr', 'az', 'uz_UZ_latin'].flatMap((l) => firstNames(l, 'male').map(latin)));
const female = ['ru', 'uk', 'es', 'pt_PT', 'it', 'pl', 'cs_CZ', 'ro', 'tr', 'az', 'uz_UZ_latin'].flatMap((l) => firstNames(l, 'female').map(latin)).filter((f) => !male.has(f));
const womanFor = (man: string) =>
  female.filter((w) => w.length >= 3 && w !== man && (w.startsWith(man) || (Math.min(w.length, man.length) >= 4 && damerauLevenshtein(w.toLowerCase(), man.toLowerCase()) <= 2 && w[0] === man[0])));
const men = people.filter((p) => male.has(title(p.given[0] as string)) && womanFor(title(p.given[0] as string)).length);
for (const p of sample(men, 100)) add(`${pick(womanFor(title(p.given[0] as string)))} ${title(p.family)}`, p.listed, 0, "a woman's name like a listed man's");
// Slavic family names in their feminine form, with a woman's name (like his where there is one).
const slavic = people.filter((p) => /(OV|EV|IN)$/.test(p.family) && /RUSSIA|UKRAINE|BELARUS|CAATSA/.test(p.program));
const russianWomen = firstNames('ru', 'female').map(latin);
for (const p of sample(slavic, 100)) {
  const like = womanFor(title(p.given[0] as string));
  add(`${like.length && random() < 0.5 ? pick(like) : pick(russianWomen)} ${title(p.family)}a`, p.listed, 0, 'feminine form of the family name');
}
// The second of two family names alone, with the listed given name.
for (const p of sample(twoWordFamilies, 80)) add(`${p.given[0]} ${title(p.family.split(' ')[1] as string)}`, p.listed, 0, 'the second of two family names alone');
// The listed given name with another family name.
const surnames = [...lastNames('en'), ...lastNames('de'), ...lastNames('tr')];
for (const p of sample(people, 80)) add(`${p.given[0]} ${pick(surnames)}`, p.listed, 0, 'same given name, another family name');

writeFileSync(
  new URL('./pairs.json', import.meta.url),
  `${JSON.stringify({ source: [values.sdn, values.sdn2021, values.alt].map((f) => f.split('/').pop()), seed: Number(values.seed), pairs }, null, 1)}\n`,
);
const count = (f: (p: Pair) => boolean) => pairs.filter(f).length;
process.stdout.write(`${pairs.length} pairs: ${count((p) => p.same === 1)} same person, ${count((p) => p.same === 0)} another; ${count((p) => p.half === 'held-out')} held out\n`);

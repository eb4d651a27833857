/**
 * Writes bench/matching/pairs.json, the labelled set of person-name pairs the matching bench
 * scores: positives made from listed people (an OFAC SDN file) written as guests write them,
 * negatives from realistic guest names of many countries (faker's name lists) set against the
 * listed person they come closest to in spelling. Deterministic for a given file and seed.
 *
 *   node --import tsx bench/matching/make-pairs.ts --sdn path/to/sdn.csv
 */
import { allLocales } from '@faker-js/faker';
import { parse } from 'csv-parse/sync';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { nameTokens } from '../../src/lib/names/names.js';
import { ARABIC_SCRIPT } from './arabic.js';

export interface Pair {
  query: string;
  listed: string;
  /** 1: the same person; 0: another. */
  same: 0 | 1;
  kind: string;
}

const { values } = parseArgs({ options: { sdn: { type: 'string' }, seed: { type: 'string', default: '7' } } });
if (!values.sdn) throw new Error('--sdn FILE: an OFAC SDN CSV (legacy format)');
let state = Number(values.seed);
const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const rows: string[][] = parse(readFileSync(values.sdn, 'latin1').replace(/\x1a/g, ''), { relax_quotes: true, relax_column_count: true });
const people = rows
  .filter((r) => r[2] === 'individual' && /^[A-Z' -]+, [A-Za-z' -]+$/.test(r[1] ?? ''))
  .map((r) => {
    const [family, given] = (r[1] as string).split(', ') as [string, string];
    return { listed: r[1] as string, family, given: given.split(' '), program: r[3] ?? '' };
  });
const russian = people.filter((p) => /RUSSIA|UKRAINE/.test(p.program) && p.given.length >= 2);
const pairs: Pair[] = [];
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

// Positives.
for (const p of sample(
  people.filter((x) => x.given.length >= 2),
  120,
))
  pairs.push({ query: guest(p), listed: p.listed, same: 1, kind: 'first and last name only' });
for (const p of sample(people, 80)) pairs.push({ query: typo(guest(p)), listed: p.listed, same: 1, kind: 'a typo' });
for (const p of sample(russian, 60)) pairs.push({ query: cyrillic(guest(p)), listed: p.listed, same: 1, kind: 'own script: Cyrillic' });
for (const [query, listed] of ARABIC_SCRIPT) pairs.push({ query, listed, same: 1, kind: 'own script: Arabic' });
for (const p of sample(people, 30)) pairs.push({ query: `${p.given[0]}${title(p.family)}`.replace(/\s/g, ''), listed: p.listed, same: 1, kind: 'written together' });
for (const p of sample(
  people.filter((x) => x.given.length >= 2),
  30,
))
  pairs.push({ query: `${p.given.join(' ')} ${title(p.family)}`, listed: `${p.family}, ${p.given[0]}`, same: 1, kind: 'full name against the short form' });
for (const p of sample(people, 30)) pairs.push({ query: `${title(p.family)} ${p.given.join(' ')}`, listed: p.listed, same: 1, kind: 'family name first' });

// Negatives: guests of many countries, each against the listed person closest to them in spelling.
const locales = ['en', 'de', 'fr', 'es', 'it', 'pt_BR', 'nl', 'pl', 'sv', 'tr', 'ru', 'uk', 'ar', 'fa', 'zh_CN', 'ko', 'vi', 'el', 'he', 'ja', 'cs_CZ', 'ro', 'hu', 'id_ID'] as const;
const flat = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : v && typeof v === 'object' ? Object.values(v).flatMap(flat) : []);
const all = allLocales as unknown as Record<string, { person?: { first_name?: unknown; last_name?: unknown } }>;
const byFirstToken = new Map<string, (typeof people)[number][]>();
for (const p of people) for (const t of nameTokens(p.family)) byFirstToken.set(t.slice(0, 3), [...(byFirstToken.get(t.slice(0, 3)) ?? []), p]);
for (let n = 0; n < 150; n++) {
  const locale = all[locales[n % locales.length] as string]?.person;
  const first = pick(flat(locale?.first_name));
  const last = pick(flat(locale?.last_name));
  if (!first || !last) continue;
  const near = byFirstToken.get(nameTokens(last)[0]?.slice(0, 3) ?? '') ?? people;
  pairs.push({ query: `${first} ${last}`, listed: pick(near).listed, same: 0, kind: `unlisted guest (${locales[n % locales.length]})` });
}
// Negatives sharing the listed person's given name, with another family name.
const surnames = flat(all.en?.person?.last_name).concat(flat(all.de?.person?.last_name), flat(all.tr?.person?.last_name));
for (const p of sample(people, 60)) pairs.push({ query: `${p.given[0]} ${pick(surnames)}`, listed: p.listed, same: 0, kind: 'same given name, another family name' });

// Added after the rest, so the pairs above stay as they were: one of a two-word family name only (GUZMAN LOERA, Joaquin as Joaquin Guzman).
const twoWordFamilies = people.filter((x) => /^[A-Z']+ [A-Z']+$/.test(x.family) && !/^(AL|EL|BIN|BEN|ABU|DE|DEL|LA|VAN|VON|DOS|DA) /.test(x.family));
for (const p of sample(twoWordFamilies, 30)) pairs.push({ query: `${p.given[0]} ${title(p.family.split(' ')[0] as string)}`, listed: p.listed, same: 1, kind: 'one of two family names' });

writeFileSync(new URL('./pairs.json', import.meta.url), `${JSON.stringify({ source: values.sdn.split('/').pop(), seed: Number(values.seed), pairs }, null, 1)}\n`);
process.stdout.write(`${pairs.length} pairs: ${pairs.filter((p) => p.same).length} same person, ${pairs.filter((p) => !p.same).length} another\n`);

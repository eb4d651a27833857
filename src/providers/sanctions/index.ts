import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { ListChange } from '../../jobs/kinds.js';
import { consonants, matchName, NAME_THRESHOLD, nameScorer, personReadings, scriptOf, type Script, type TokenPair } from '../../lib/names/match.js';
import { nameTokens, phoneticKeys } from '../../lib/names/names.js';
import { timeSlicer } from '../../lib/time-slice.js';
import { identifiers } from './formats.js';
import * as store from './store.js';

/** A listed name that may be the person: for a human to review, with why it matched. */
export interface SanctionsHit {
  source: string;
  entryId: string;
  listedName: string;
  primaryName: string;
  kind: string;
  programs: string[];
  birthYears: number[];
  countries: string[];
  dataDate: string;
  score: number;
  explanation: string;
  /** Which token of the listed name paired with which of the person's, and how (our matcher's hits only; a vendor's have its own score). */
  tokens?: TokenPair[];
}

export interface SanctionsQuery {
  name: string;
  yearOfBirth?: number | null | undefined;
  /** ISO alpha-2. */
  country?: string | null | undefined;
  /** Only people (a guest is one); entities, vessels and aircraft are left out. */
  individualsOnly?: boolean;
  /** The score from which a listed name is a possible match; NAME_THRESHOLD by default. */
  threshold?: number;
  /** Only these entries of this list (null: all of it): what an import added or changed. */
  only?: { source: string; entryIds: ReadonlySet<string> | null };
}

/** Score at or above which a listed name counts as a possible match. */
export const SANCTIONS_THRESHOLD = NAME_THRESHOLD;

/**
 * What a year of birth within a year of a listed one, and a country the list names, add to the
 * name's score; what a country the list does not name takes off (the lists' countries are
 * nationalities and addresses, so another country is weaker evidence than another year). A
 * close name (0.93) with another country falls below the threshold; the same name stays a
 * possible match.
 */
const YEAR_AGREES = 0.03;
const COUNTRY_AGREES = 0.02;
const COUNTRY_DISAGREES = 0.05;
const MOST_RAISED = YEAR_AGREES + COUNTRY_AGREES;

interface Listed {
  source: string;
  entryId: string;
  name: string;
  primaryName: string;
  kind: string;
  programs: string[];
  birthYears: number[];
  countries: string[];
  dataDate: string;
}

interface Index {
  version: string;
  names: Listed[];
  byKey: Map<string, number[]>;
  /** A search's voting rounds (Round), made by the first search. */
  tally?: { votes: Round; seen: Round };
  /** Each entry's content digest, by `source\u0000entry id` (entryContents). */
  contents: Map<string, string>;
  /** Each list with its data date and how many names it holds, by source. */
  lists: { source: string; dataDate: string; names: number }[];
}

/**
 * Each entry's content (its names and aliases, kind, programs, years of birth and countries) as a
 * digest: what tells an import's changes, and whether an entry changed since a host dismissed it.
 */
export function entryContents(rows: { entry_id: string; name: string; kind: string; programs: string; birth_years: string; countries: string }[]): Map<string, string> {
  const parts = new Map<string, { names: string[]; rest: string }>();
  for (const r of rows) {
    const p = parts.get(r.entry_id) ?? { names: [], rest: `${r.kind}|${r.programs}|${r.birth_years}|${r.countries}` };
    p.names.push(r.name);
    parts.set(r.entry_id, p);
  }
  return new Map(
    [...parts].map(([id, p]) => [
      id,
      createHash('sha256')
        .update(`${[...p.names].sort().join('|')}|${p.rest}`)
        .digest('hex')
        .slice(0, 32),
    ]),
  );
}

/** An entry's content digest now, or undefined when no imported list holds it. */
export async function entryContent(deps: Deps, source: string, entryId: string): Promise<string | undefined> {
  return (await currentIndex(deps)).contents.get(`${source}\u0000${entryId}`);
}

/**
 * One round of a search's voting (a reading's votes, or one token's best key for each name): per
 * listed name, in arrays as long as the index's names, kept and used again by each search (the
 * voting is synchronous, so two searches never share them at once). A search's tokens find
 * thousands of names under common keys, and maps of objects made and dropped each search were
 * most of the voting's time. A name is in the round when its stamp is the round's; the round
 * keeps its names in the order they came in, so ties sort as they always did.
 */
class Round {
  readonly weight: Float64Array;
  readonly rare: Uint8Array;
  readonly tokens: Uint16Array;
  order: number[] = [];
  readonly #stamp: Uint32Array;
  #now = 0;

  constructor(names: number) {
    this.weight = new Float64Array(names);
    this.rare = new Uint8Array(names);
    this.tokens = new Uint16Array(names);
    this.#stamp = new Uint32Array(names);
  }

  start(): this {
    // Stamps that would wrap round start again from nothing.
    if (++this.#now === 0xffffffff) {
      this.#stamp.fill(0);
      this.#now = 1;
    }
    this.order = [];
    return this;
  }

  has(i: number): boolean {
    return this.#stamp[i] === this.#now;
  }

  /** Sets a name's weight and rarity. */
  set(i: number, weight: number, rare: boolean): void {
    this.#take(i);
    this.weight[i] = weight;
    this.rare[i] = rare ? 1 : 0;
  }

  /** Adds a token's vote to a name's. */
  add(i: number, weight: number, rare: boolean): void {
    this.#take(i);
    this.weight[i]! += weight;
    this.tokens[i]! += 1;
    if (rare) this.rare[i] = 1;
  }

  #take(i: number): void {
    if (this.#stamp[i] === this.#now) return;
    this.#stamp[i] = this.#now;
    this.weight[i] = 0;
    this.rare[i] = 0;
    this.tokens[i] = 0;
    this.order.push(i);
  }
}

/** How few listed names may share an index key for it to find candidates alone. */
const RARE = 40;
/** How many of the best-voted names of each reading are compared in full. */
const CANDIDATES = 150;
// One per database (tests run several in a process).
const indexes = new WeakMap<object, { version: string; built: Promise<Index> }>();

/**
 * The lists' version: when the last import wrote them (every import stamps all it writes). One
 * read of an index's end (migration 0016), so every search asks, and an import made by any
 * process is used by every process from its next search.
 */
async function currentVersion(deps: Deps): Promise<string> {
  return store.lastImported(deps.db);
}

async function build(deps: Deps, version: string): Promise<Index> {
  const rows = await store.allNames(deps.db);
  const names: Listed[] = rows.map((r) => ({
    source: r.source,
    entryId: r.entry_id,
    name: r.name,
    primaryName: r.primary_name,
    kind: r.kind,
    programs: JSON.parse(r.programs) as string[],
    birthYears: JSON.parse(r.birth_years) as number[],
    countries: JSON.parse(r.countries) as string[],
    dataDate: r.data_date,
  }));
  const byKey = new Map<string, number[]>();
  // Most of a build's time, on the thread that may be answering requests too.
  const breathe = timeSlicer();
  for (const [i, n] of names.entries()) {
    for (const t of nameTokens(n.name)) {
      for (const k of indexKeys(t)) {
        const list = byKey.get(k);
        if (list) list.push(i);
        else byKey.set(k, [i]);
      }
    }
    await breathe();
  }
  const contents = new Map<string, string>();
  const bySource = new Map<string, typeof rows>();
  for (const r of rows) {
    const list = bySource.get(r.source);
    if (list) list.push(r);
    else bySource.set(r.source, [r]);
  }
  for (const [source, list] of bySource) for (const [id, digest] of entryContents(list)) contents.set(`${source}\u0000${id}`, digest);
  const lists = new Map<string, { source: string; dataDate: string; names: number }>();
  for (const n of names) {
    const key = `${n.source}\u0000${n.dataDate}`;
    const list = lists.get(key) ?? { source: n.source, dataDate: n.dataDate, names: 0 };
    list.names += 1;
    lists.set(key, list);
  }
  return { version, names, byKey, contents, lists: [...lists.values()].sort((a, b) => a.source.localeCompare(b.source)) };
}

/** The imported lists, in memory with their index, rebuilt when an import (by any process) changed them. */
async function currentIndex(deps: Deps): Promise<Index> {
  const version = await currentVersion(deps);
  const index = indexes.get(deps.db);
  if (index && index.version === version) return index.built;
  const built = build(deps, version);
  built.catch(() => indexes.delete(deps.db));
  indexes.set(deps.db, { version, built });
  return built;
}

/** Forgets this database's index, so the next search reads the lists again (after an import). */
export function forgetSanctionsIndex(deps: Deps): void {
  indexes.delete(deps.db);
}

/** A list-change job's payload (what an import changed) as the `only` of a search. */
export const changedEntries = ({ source, entry_ids }: ListChange): NonNullable<SanctionsQuery['only']> => {
  return { source, entryIds: entry_ids ? new Set(entry_ids) : null };
};

/** The imported lists: each source with its data date and how many names (aliases included) it holds. */
export async function sanctionsLists(deps: Deps): Promise<{ source: string; dataDate: string; names: number }[]> {
  // From the index where this process has built it for the current lists; else counted in the
  // database, so a process that only reports them (the API's data sources, metrics) builds none.
  const version = await currentVersion(deps);
  const index = indexes.get(deps.db);
  if (index?.version === version) return (await index.built).lists;
  return store.listCounts(deps.db);
}

/** Listed people (individuals' primary names, "FAMILY, Given", with a listed full date of birth when there is one), up to `n`, in list order: for the demo's guests. */
export async function listedPeople(deps: Deps, n: number): Promise<{ name: string; birthDate: string | null }[]> {
  const rows = await store.individualNames(deps.db, n * 4);
  const seen = new Set<string>();
  return rows
    .filter((r) => !seen.has(r.primary_name) && seen.add(r.primary_name))
    .slice(0, n)
    .map((r) => ({ name: r.primary_name, birthDate: identifiers(r.remarks).birthDates[0] ?? null }));
}

/** Each hit's full dates of birth and document numbers, from its entry's remarks, by `source\u0000entry id`. */
export async function entryIdentifiers(deps: Deps, hits: readonly { source: string; entryId: string }[]): Promise<Map<string, { birthDates: string[]; documents: string[] }>> {
  const out = new Map<string, { birthDates: string[]; documents: string[] }>();
  for (const source of new Set(hits.map((h) => h.source))) {
    const ids = [...new Set(hits.filter((h) => h.source === source).map((h) => h.entryId))];
    const rows = await store.entryRemarks(deps.db, deps.dialect.kind, source, ids);
    for (const r of rows) out.set(`${source}\u0000${r.entry_id}`, identifiers(r.remarks));
  }
  return out;
}

/** A listed entry whole, as the list gives it: for a host to compare with a guest's document. */
export interface ListedEntry {
  source: string;
  entryId: string;
  dataDate: string;
  name: string;
  aliases: string[];
  kind: string;
  programs: string[];
  birthYears: number[];
  /** Full dates of birth and document numbers, where the remarks give them. */
  birthDates: string[];
  documents: string[];
  countries: string[];
  remarks: string | null;
}

/** The entries named, whole, in the order given (those no imported list holds now are left out). */
export async function listedEntries(deps: Deps, wanted: readonly { source: string; entryId: string }[]): Promise<ListedEntry[]> {
  const found = new Map<string, ListedEntry>();
  for (const source of new Set(wanted.map((h) => h.source))) {
    const ids = [...new Set(wanted.filter((h) => h.source === source).map((h) => h.entryId))];
    for (const row of await store.entryRows(deps.db, source, ids)) {
      const key = `${source}\u0000${row.entry_id}`;
      const alias = Boolean(row.is_alias);
      const entry = found.get(key) ?? {
        source,
        entryId: row.entry_id,
        dataDate: row.data_date,
        name: row.primary_name,
        aliases: [],
        kind: row.kind,
        programs: JSON.parse(row.programs) as string[],
        birthYears: JSON.parse(row.birth_years) as number[],
        birthDates: [],
        documents: [],
        countries: JSON.parse(row.countries) as string[],
        remarks: null,
      };
      if (alias) entry.aliases.push(row.name);
      else Object.assign(entry, { remarks: row.remarks, ...identifiers(row.remarks) });
      found.set(key, entry);
    }
  }
  return wanted.flatMap((h) => found.get(`${h.source}\u0000${h.entryId}`) ?? []);
}

/**
 * Whether any sanctions list has been imported: the lists' version, without the index, so a
 * process that never searches (`guestscreen serve`, a start-up's check) does not build it.
 */
export async function sanctionsImported(deps: Deps): Promise<boolean> {
  return (await currentVersion(deps)) !== '';
}

/**
 * Builds the index ahead of the first search, in a process that will search (a worker): the
 * build gives the event loop a turn every few milliseconds, so requests answered meanwhile wait
 * no longer than that.
 */
export async function warmSanctionsIndex(deps: Deps): Promise<void> {
  await currentIndex(deps);
}

/**
 * Where a listed token is filed: its sounds (Double Metaphone), its consonants, its letters in
 * order, and, for tokens of five letters or more, its first and its last four letters (a slip in
 * the middle of a name changes its sound, rarely both of its ends).
 */
function indexKeys(token: string): string[] {
  const keys = [...phoneticKeys(token), `c:${consonants(token)}`, `c:${consonants(token, 'arabic')}`];
  // As Hebrew script reads it (k, kh and c one letter), where that differs: COHEN under khn.
  const hebrew = consonants(token, 'hebrew');
  if (hebrew !== consonants(token, 'arabic')) keys.push(`h:${hebrew}`);
  if (token.length >= 5) keys.push(`p:${token.slice(0, 4)}`, `s:${token.slice(-4)}`);
  // Its letters in any order: two letters swapped (Sikti for Sitki) change its sound and its ends' keys alike.
  if (token.length >= 4) keys.push(`l:${[...token].sort().join('')}`);
  return keys;
}

/**
 * The index keys a token of the person's name looks under: a listed token's, the consonants
 * without an Arabic article, and, for a name given as one word (VladimirPutin), its halves'.
 */
function keysOf(token: string, oneWord: boolean, script: Script): string[] {
  const keys = [...indexKeys(token), `c:${consonants(token.replace(/^l(?=..)/, ''), 'arabic')}`];
  if (script === 'hebrew') keys.push(`h:${consonants(token, 'hebrew')}`);
  if (oneWord && token.length >= 6) {
    for (let at = 3; at <= token.length - 3; at++) keys.push(...phoneticKeys(token.slice(0, at)), ...phoneticKeys(token.slice(at)));
  }
  return keys;
}

/**
 * Listed names that may be the person: candidates share a sound or their consonants with one of
 * the person's names (two, when the person gives two or more), are not ruled out by a different
 * year of birth (more than a year apart) when both are known, and score at least the threshold
 * (0.90, matchName) once the year and the country have moved the name's score, each effect
 * named in the explanation.
 */
export async function searchSanctions(deps: Deps, q: SanctionsQuery): Promise<SanctionsHit[]> {
  const idx = await currentIndex(deps);
  // Each reading the matcher compares (Korean has several spellings; Arabic script keeps its hamza
  // and ayn in the word) finds its own candidates.
  const candidates = new Set<number>();
  const script = scriptOf(q.name);
  const tally = (idx.tally ??= { votes: new Round(idx.names.length), seen: new Round(idx.names.length) });
  for (const tokens of personReadings(q.name)) {
    // Each token votes for the names it finds, as much as the key it found them under is rare
    // (log(names / names under the key)): a family name few share counts for more than Pavel or
    // -evich. A name found by two tokens, or by one through a key few names share, is a
    // candidate; the best-voted CANDIDATES are compared in full.
    const votes = tally.votes.start();
    // Neighbouring tokens joined vote too: a name a list writes as one word (نصر الله, Nasrallah).
    const joined = tokens.slice(1).map((t, i) => `${tokens[i]}${t}`);
    for (const t of new Set([...tokens, ...joined])) {
      // A token's vote for a name is its best key's.
      const seen = tally.seen.start();
      for (const k of keysOf(t, tokens.length === 1, script)) {
        const found = idx.byKey.get(k);
        if (!found) continue;
        const weight = Math.log(idx.names.length / found.length);
        const rare = found.length <= RARE;
        for (const i of found) if (!seen.has(i) || seen.weight[i]! < weight) seen.set(i, weight, rare || (seen.has(i) && seen.rare[i] === 1));
      }
      for (const i of seen.order) votes.add(i, seen.weight[i]!, seen.rare[i] === 1);
    }
    const need = Math.min(2, tokens.length);
    const eligible = votes.order.filter((i) => votes.tokens[i]! >= need || votes.rare[i] === 1);
    eligible.sort((a, b) => votes.weight[b]! - votes.weight[a]!);
    for (const i of eligible.slice(0, CANDIDATES)) candidates.add(i);
  }
  const best = new Map<string, SanctionsHit>();
  const scoreOf = nameScorer(q.name);
  const threshold = q.threshold ?? SANCTIONS_THRESHOLD;
  for (const i of candidates) {
    const n = idx.names[i] as Listed;
    if (q.individualsOnly && n.kind !== 'individual') continue;
    if (q.only && (n.source !== q.only.source || (q.only.entryIds && !q.only.entryIds.has(n.entryId)))) continue;
    const nameScore = scoreOf(n.name);
    if (nameScore < threshold - MOST_RAISED) continue;
    // What the list says besides the name moves the name's score across the threshold, and says so.
    const evidence: string[] = [];
    let shift = 0;
    if (q.yearOfBirth && n.birthYears.length) {
      // A listed year of birth more than a year from the person's rules the entry out.
      if (!n.birthYears.some((y) => Math.abs(y - (q.yearOfBirth as number)) <= 1)) continue;
      shift += YEAR_AGREES;
      evidence.push(`year of birth ${q.yearOfBirth} listed (+${YEAR_AGREES.toFixed(2)})`);
    }
    const country = q.country?.toUpperCase();
    if (country && n.countries.length) {
      const agrees = n.countries.includes(country);
      shift += agrees ? COUNTRY_AGREES : -COUNTRY_DISAGREES;
      evidence.push(agrees ? `country ${country} listed (+${COUNTRY_AGREES.toFixed(2)})` : `country ${country} not among those listed, ${n.countries.join(', ')} (−${COUNTRY_DISAGREES.toFixed(2)})`);
    }
    if (nameScore + shift < threshold) continue;
    const m = matchName(q.name, n.name);
    const hit: SanctionsHit = {
      source: n.source,
      entryId: n.entryId,
      listedName: n.name,
      primaryName: n.primaryName,
      kind: n.kind,
      programs: n.programs,
      birthYears: n.birthYears,
      countries: n.countries,
      dataDate: n.dataDate,
      score: Math.round(m.score * 100) / 100,
      tokens: m.pairs,
      explanation: `${m.explanation}${n.name !== n.primaryName ? ` (an alias of '${n.primaryName}')` : ''}${evidence.length ? `; ${evidence.join(', ')}: ${(nameScore + shift).toFixed(2)} in all` : ''}`,
    };
    const key = `${n.source}:${n.entryId}`;
    const prior = best.get(key);
    if (!prior || prior.score < hit.score) best.set(key, hit);
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.primaryName.localeCompare(b.primaryName)).slice(0, 20);
}

import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import { matchName, type TokenPair } from '../../lib/names/match.js';
import { listedEntries, sanctionsLists, searchSanctions, type ListedEntry } from '../../providers/sanctions/index.js';
import type { AccountRow } from '../accounts/index.js';
import { candidates as blocklistCandidates } from '../blocklist/index.js';
import type { ReservationRow } from '../../db/schema.js';

export type { ListedEntry };
import { openIdentification } from './identity.js';
import { sanctionsMatchKind, type SanctionsMatchKind } from './checks/watchlists.js';
import { sanctionsMatches, screeningSettings } from './run.js';

export const MATCH_LISTS = ['blocklist', 'sanctions'] as const;
export type MatchList = (typeof MATCH_LISTS)[number];

export interface MatchQuery {
  name?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  birth_date?: string | undefined;
  birth_year?: number | undefined;
  country?: string | undefined;
  lists?: MatchList[] | undefined;
}

export interface MatchCandidate {
  list: string;
  list_date: string | null;
  entry_id: string;
  listed_name: string;
  primary_name: string;
  score: number;
  explanation: string;
  tokens: { listed: string; person: string | null; role: TokenPair['role']; how: TokenPair['how']; similarity: number }[];
  birth_years: number[];
  countries: string[];
  reason: string | null;
}

const tokenView = (pairs: TokenPair[] | undefined) => (pairs ?? []).map(({ listed, person, role, how, similarity }) => ({ listed, person, role, how, similarity: Math.round(similarity * 100) / 100 }));

/**
 * A person's name against the account's blocklist and every imported sanctions list, with the
 * same matcher and threshold the screening checks use: every candidate at or above the account's
 * threshold, best first, each with why it matched, and the lists it was matched against.
 */
export async function matchPerson(deps: Deps, account: AccountRow, q: MatchQuery) {
  const name = (q.name ?? [q.first_name, q.last_name].filter(Boolean).join(' ')).trim();
  if (!name) throw badRequest('body: give name, or first_name and last_name');
  if (q.name && (q.first_name || q.last_name)) throw badRequest('body: give name, or first_name and last_name, not both');
  const birthYear = q.birth_year ?? (q.birth_date ? Number(q.birth_date.slice(0, 4)) : undefined);
  if (q.birth_year && q.birth_date && Number(q.birth_date.slice(0, 4)) !== q.birth_year) throw badRequest('body.birth_year: differs from birth_date');
  const lists = new Set<MatchList>(q.lists ?? MATCH_LISTS);
  const threshold = (await screeningSettings(deps.db, account.id)).nameMatchThreshold;
  const found: MatchCandidate[] = [];
  const searched: { list: string; date: string | null; names: number }[] = [];

  if (lists.has('blocklist')) {
    const entries = (await blocklistCandidates(deps.db, account.id, { email: null, phone: null, document: null })).filter((e) => e.name);
    searched.push({ list: 'blocklist', date: null, names: entries.length });
    for (const e of entries) {
      const m = matchName(name, e.name as string);
      if (m.score < threshold) continue;
      found.push({
        list: 'blocklist',
        list_date: null,
        entry_id: e.id,
        listed_name: e.name as string,
        primary_name: e.name as string,
        score: m.score,
        explanation: m.explanation,
        tokens: tokenView(m.pairs),
        birth_years: [],
        countries: [],
        reason: e.reason,
      });
    }
  }
  if (lists.has('sanctions')) {
    for (const l of await sanctionsLists(deps)) searched.push({ list: l.source, date: l.dataDate, names: l.names });
    const hits = await searchSanctions(deps, { name, yearOfBirth: birthYear ?? null, country: q.country ?? null, individualsOnly: true, threshold });
    for (const h of hits) {
      found.push({
        list: h.source,
        list_date: h.dataDate,
        entry_id: h.entryId,
        listed_name: h.listedName,
        primary_name: h.primaryName,
        score: h.score,
        explanation: h.explanation,
        tokens: tokenView(h.tokens),
        birth_years: h.birthYears,
        countries: h.countries,
        reason: h.programs.length ? h.programs.join(', ') : null,
      });
    }
  }
  found.sort((a, b) => b.score - a.score || a.primary_name.localeCompare(b.primary_name));
  return { query: { name, birth_year: birthYear ?? null, country: q.country ?? null }, threshold, lists: searched, candidates: found };
}

/**
 * The listed entries the guest may be (the sanctions check's matches, those the host dismissed
 * left out), whole: names and aliases, dates of birth, countries, programmes and remarks, for the
 * host to compare with the guest's identity document.
 */
export async function guestListedEntries(deps: Deps, r: ReservationRow): Promise<(ListedEntry & { match: SanctionsMatchKind })[]> {
  const { nameMatchThreshold } = await screeningSettings(deps.db, r.account_id);
  const { sanctions } = await sanctionsMatches(deps, r, openIdentification(deps, r), nameMatchThreshold);
  if (!sanctions?.length) return [];
  const kinds = new Map(sanctions.map((h) => [`${h.source}\u0000${h.entryId}`, sanctionsMatchKind(h)]));
  return (await listedEntries(deps, sanctions)).map((e) => ({ ...e, match: kinds.get(`${e.source}\u0000${e.entryId}`) ?? 'possible' }));
}

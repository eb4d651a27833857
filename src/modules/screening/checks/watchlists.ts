import { dateInWords, listInWords, say, topicsInWords } from '../../../lib/host-messages.js';
import { SAME_NAME } from '../../../lib/names/match.js';
import type { Check, Finding, Snapshot } from '../types.js';
import { outcome, strongestFirst } from './outcome.js';

type Hit = NonNullable<Snapshot['sanctions']>[number];

/**
 * What a sanctions match is, for the host: probable when the name and the date of birth or the
 * document number agree (or the same name and the year of birth, where the list gives only the
 * year); a namesake when the list gives another date of birth; else possible, a name with nothing
 * besides it to compare.
 */
export type SanctionsMatchKind = 'probable' | 'possible' | 'namesake';

export function sanctionsMatchKind(h: Hit): SanctionsMatchKind {
  if (h.document === 'same' || h.birthDate === 'same') return 'probable';
  // Another listed date of birth outweighs the same year.
  if (h.birthDate === 'other') return 'namesake';
  return h.score >= SAME_NAME && h.birthYear === 'same' ? 'probable' : 'possible';
}

/**
 * One match, weighed by what besides the name agrees (docs/verdicts.md): the name with the date
 * of birth or the document number is a probable match, decisive; the same name with the year of
 * birth, strong; the name alone a possible match, moderate, which asks for the guest's date of
 * birth when the guest has not given it; a list that gives another date of birth makes it weak
 * (a namesake, most likely).
 */
function sanctionsFinding(h: Hit, guestBorn: boolean): Finding {
  const listed = `“${h.primaryName}”`;
  const at = { listed, source: h.source };
  const exact = h.score >= SAME_NAME;
  const kind = sanctionsMatchKind(h);
  if (kind === 'namesake') return { code: 'sanctions.born_otherwise', text: say('sanctions.born_otherwise', at), strength: 'weak', recommendation: say('sanctions.born_otherwise.do') };
  if (kind === 'probable') {
    const confirmedBy = h.document === 'same' ? 'document' : h.birthDate === 'same' ? 'birth' : null;
    if (!confirmedBy) return { code: 'sanctions.year', text: say('sanctions.year', at), strength: 'strong', recommendation: say('sanctions.year.do') };
    return {
      code: exact ? 'sanctions.confirmed' : 'sanctions.close_confirmed',
      text: say(exact ? 'sanctions.confirmed' : 'sanctions.close_confirmed', { ...at, confirmedBy }),
      strength: 'decisive',
      recommendation: say('sanctions.confirmed.do'),
    };
  }
  const missing = guestBorn ? 'list' : 'guest';
  return {
    code: 'sanctions.possible_match',
    text: say(exact ? 'sanctions.name' : 'sanctions.name_close', { ...at, missing }),
    strength: 'moderate',
    recommendation: say('sanctions.name.do', { missing }),
  };
}

/** The guest's name against the installed sanctions lists, each match weighed by what else agrees. */
export const sanctions: Check = (s) => {
  if (s.sanctions === null || s.sanctions === undefined) {
    return { status: 'INCOMPLETE', value: say('sanctions.none_installed.value'), help: say('sanctions.none_installed.help'), findings: [] };
  }
  const lists = listInWords(s.sanctionsLists?.length ? s.sanctionsLists.map((l) => say('sanctions.list', { source: l.source, date: dateInWords(l.dataDate) })) : []);
  const names = listInWords((s.sanctionsDismissed ?? []).map((d) => `“${d.primaryName}”`));
  const clear = names ? say('sanctions.clear_dismissed.value', { lists, names }) : say('sanctions.clear.value', { lists });
  // The strongest three: a confirmed match is never crowded out by closer-named weaker ones.
  const findings = strongestFirst(s.sanctions.map((h) => sanctionsFinding(h, Boolean(s.identification.birth_date)))).slice(0, 3);
  return outcome(findings, { value: clear }, { value: say('sanctions.found.value', { count: s.sanctions.length, lists }) });
};

/**
 * Articles of the installed news corpus naming the guest. An article naming the guest near words
 * of a topic of wrongdoing (the taxonomy: sanctions, corruption, money laundering, terrorism,
 * fraud, violence, and the rest) is moderate evidence, since it may be about a namesake; a
 * mention alone is context.
 */
export const adverseMedia: Check = (s) => {
  if (s.adverseMedia === null || s.adverseMedia === undefined) {
    return { status: 'INCOMPLETE', value: say('media.none_installed.value'), help: say('media.none_installed.help'), findings: [] };
  }
  const articles = s.adverseMedia;
  const all: Finding[] = articles.map((a) =>
    a.topics.length
      ? {
          code: 'adverse_media.risk',
          text: say('media.risk', { ...topicsInWords(a.topics), title: a.title, date: a.publishedAt ? dateInWords(a.publishedAt) : 'none' }),
          strength: 'moderate',
          recommendation: say('media.risk.help'),
        }
      : { code: 'adverse_media.mention', text: say('media.mention', { title: a.title }), strength: 'context' },
  );
  // The five strongest, newest first among equals: an older article about wrongdoing outranks newer mentions.
  const findings = strongestFirst(all).slice(0, 5);
  const risky = articles.filter((a) => a.topics.length);
  const topics = [...new Set(risky.flatMap((a) => a.topics.map((t) => t.topic)))];
  return outcome(
    findings,
    { value: articles.length ? say('media.mentions.value', { count: articles.length }) : say('media.clear.value') },
    { value: say('media.risk.value', { count: risky.length, topics: listInWords(topics) }), help: say('media.risk.help') },
  );
};

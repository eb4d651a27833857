import type { Check, Finding } from '../types.js';

/** Weight of a possible sanctions match, and of one that also has the guest's year of birth. */
const POSSIBLE = 45;
const STRONG = 70;

/** The guest's name against the imported sanctions lists, with the reason for every match. */
export const sanctions: Check = (s) => {
  if (s.sanctions === null || s.sanctions === undefined) {
    return { status: 'INCOMPLETE', value: 'no sanctions list imported', help: 'Import one with `guestscreen data import sanctions`; until then this check does not count.', findings: [] };
  }
  const lists = s.sanctionsLists?.length ? s.sanctionsLists.map((l) => `${l.source} of ${l.dataDate}`).join(' and ') : 'the imported sanctions lists';
  const dismissed = s.sanctionsDismissed?.length
    ? `; ${s.sanctionsDismissed.map((d) => `'${d.primaryName}'`).join(', ')} dismissed by the host as a different person`
    : '';
  if (s.sanctions.length === 0) return { status: 'PASS', value: `no match on ${lists}${dismissed}`, help: 'No action needed.', findings: [] };
  const findings: Finding[] = s.sanctions.slice(0, 3).map((h) => {
    const strong = h.score >= 0.97 && h.birthYearListed;
    return {
      code: strong ? 'sanctions.strong_match' : 'sanctions.possible_match',
      text: `Guest's name matches '${h.primaryName}' on ${h.source} (entry ${h.entryId}, score ${h.score.toFixed(2)}${strong ? ', year of birth listed too' : ''})`,
      weight: strong ? STRONG : POSSIBLE,
      recommendation: "Compare the guest's identity document with the listed entry before accepting: a shared name is not proof.",
    };
  });
  const strong = findings.some((f) => f.code === 'sanctions.strong_match');
  return {
    status: strong ? 'FAIL' : 'REVIEW',
    value: `${s.sanctions.length} possible match${s.sanctions.length > 1 ? 'es' : ''} on ${lists}${dismissed}`,
    help: findings[0]?.recommendation ?? '',
    findings,
  };
};

/** Articles of the imported news corpus naming the guest near a risk term. */
export const adverseMedia: Check = (s) => {
  if (s.adverseMedia === null || s.adverseMedia === undefined) {
    return { status: 'INCOMPLETE', value: 'no news corpus imported', help: 'Import one with `guestscreen data import news`, or run an adverse-media search; until then this check does not count.', findings: [] };
  }
  const risky = s.adverseMedia.filter((a) => a.riskCategories.some((c) => c !== 'Other News'));
  const findings: Finding[] = s.adverseMedia.slice(0, 5).map((a) => {
    const categories = a.riskCategories.filter((c) => c !== 'Other News');
    return {
      code: categories.length ? 'adverse_media.risk' : 'adverse_media.mention',
      text: categories.length
        ? `News names the guest near ${categories.join(' and ').toLowerCase()} terms: "${a.title}"${a.publishedAt ? ` (${a.publishedAt.slice(0, 10)})` : ''}`
        : `News names the guest with no risk term near: "${a.title}"`,
      weight: categories.length ? Math.min(40, 20 * categories.length) : 0,
      ...(categories.length ? { recommendation: 'Read the article and make sure it is about this guest before deciding.' } : {}),
    };
  });
  if (risky.length === 0) {
    return { status: 'PASS', value: s.adverseMedia.length ? `${s.adverseMedia.length} article(s) name the guest, none near a risk term` : 'no article names the guest', help: 'No action needed.', findings };
  }
  return { status: 'REVIEW', value: `${risky.length} article${risky.length > 1 ? 's' : ''} with risk terms near the guest's name`, help: 'Read the articles listed and make sure they are about this guest.', findings };
};

import { normaliseDocument, normaliseEmail, normalisePhone } from '../../blocklist/service.js';
import { matchName } from '../../../lib/names/match.js';
import type { Check, Finding } from '../types.js';

/**
 * The account's blocklist: an exact e-mail, phone or document number is a match; a name is a
 * possible match when the name matcher finds it (src/lib/names/match.ts), since namesakes exist.
 */
export const blacklist: Check = (s) => {
  const g = s.reservation.guest;
  const email = g.email ? normaliseEmail(g.email) : null;
  const phone = g.phone ? normalisePhone(g.phone) : null;
  const doc = s.identification.document_number ? normaliseDocument(s.identification.document_number) : null;
  const name = [g.first_name, g.last_name].filter(Boolean).join(' ');
  const findings: Finding[] = [];
  for (const e of s.blocklist) {
    const exact = [
      e.email && e.email === email ? 'e-mail' : null,
      e.phone && e.phone === phone ? 'phone' : null,
      e.document_number && e.document_number === doc ? 'document number' : null,
    ].filter(Boolean);
    if (exact.length) {
      findings.push({
        code: `blocklist.exact:${e.id}`,
        text: `Guest's ${exact.join(' and ')} match${exact.length === 1 ? 'es' : ''} blocklist entry ${e.id} (${e.reason})`,
        weight: 100,
        recommendation: 'Decline: this guest is on your blocklist.',
      });
      continue;
    }
    if (e.name && name) {
      const m = matchName(name, e.name);
      if (m.score >= s.settings.nameMatchThreshold) {
        findings.push({
          code: `blocklist.name:${e.id}`,
          text: `Guest's name is close to blocklist entry ${e.id} "${e.name}" (${e.reason}): ${m.explanation}`,
          weight: 30,
          recommendation: 'Check whether this is the blocked person or a namesake.',
        });
      }
    }
  }
  findings.sort((a, b) => b.weight - a.weight || a.code.localeCompare(b.code));
  if (findings.length === 0) return { status: 'PASS', value: 'not on the blocklist', help: 'No action needed.', findings };
  const exact = findings.some((f) => f.weight >= 100);
  return { status: exact ? 'FAIL' : 'REVIEW', value: findings[0]!.text, help: findings[0]!.recommendation!, findings };
};

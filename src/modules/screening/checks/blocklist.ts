import { normaliseDocument, normaliseEmail, normalisePhone } from '../../blocklist/index.js';
import { listInWords, say } from '../../../lib/host-messages.js';
import { matchName } from '../../../lib/names/match.js';
import { normaliseName } from '../../../lib/names/names.js';
import type { Check, Finding } from '../types.js';
import { outcome } from './outcome.js';

/**
 * The account's blocklist. The same e-mail or document number is decisive; the same phone is
 * strong (numbers are reassigned); a name is a possible match when the name matcher finds it
 * (src/lib/names/match.ts), moderate, since namesakes exist.
 */
export const blacklist: Check = (s) => {
  const g = s.reservation.guest;
  const email = g.email ? normaliseEmail(g.email) : null;
  const phone = g.phone ? normalisePhone(g.phone) : null;
  const doc = s.identification.document_number ? normaliseDocument(s.identification.document_number) : null;
  const name = [g.first_name, g.last_name].filter(Boolean).join(' ');
  const findings: Finding[] = [];
  for (const e of s.blocklist) {
    const exact = [e.email && e.email === email ? say('blocklist.field.email') : null, e.document_number && e.document_number === doc ? say('blocklist.field.document') : null].filter(
      (x): x is string => Boolean(x),
    );
    if (exact.length) {
      findings.push({
        code: `blocklist.exact:${e.id}`,
        text: say('blocklist.exact', { fields: listInWords(exact), count: exact.length, reason: e.reason }),
        strength: 'decisive',
        recommendation: say('blocklist.exact.do'),
      });
      continue;
    }
    if (e.phone && e.phone === phone) {
      findings.push({ code: `blocklist.phone:${e.id}`, text: say('blocklist.phone', { reason: e.reason }), strength: 'strong', recommendation: say('blocklist.phone.do') });
      continue;
    }
    const score = e.name && name ? matchName(name, e.name).score : 0;
    if (score >= s.settings.nameMatchThreshold) {
      // "The same" only for the same letters: a variant spelling (Jonathon, Jonathan) is close.
      const text = say(normaliseName(name) === normaliseName(e.name!) ? 'blocklist.name_same' : 'blocklist.name', { name: e.name!, reason: e.reason });
      findings.push({ code: `blocklist.name:${e.id}`, text, strength: 'moderate', recommendation: say('blocklist.name.do') });
    }
  }
  return outcome(findings, { value: say('blocklist.none.value') });
};

import { parse as parseMrz } from 'mrz';
import { normaliseDocument } from '../../blocklist/service.js';
import { matchName, SAME_PERSON } from '../../../lib/names/match.js';
import type { Check, Finding } from '../types.js';

function ageOn(birth: string, day: string): number {
  const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number];
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

/** The check digits of a machine-readable zone (ICAO 9303), via the mrz package. */
function readMrz(text: string): { unreadable: string } | { badDigits: string[]; documentNumber: string | null } {
  const lines = text.toUpperCase().split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  try {
    const result = parseMrz(lines);
    return {
      badDigits: result.details.filter((d) => !d.valid && /check digit/i.test(d.label)).map((d) => d.label),
      documentNumber: result.fields.documentNumber ?? null,
    };
  } catch (err) {
    return { unreadable: (err as Error).message };
  }
}

/** The guest's identity document: present, valid through the stay, old enough, and theirs. */
export const identificationDocument: Check = (s) => {
  const id = s.identification;
  if (!id.document_number && !id.birth_date && !id.expiry_date) {
    return {
      status: 'INCOMPLETE',
      value: 'no identity document yet',
      help: 'The guest has not provided an identity document; ask for one through the guest portal.',
      findings: [],
    };
  }
  const findings: Finding[] = [];
  const today = s.now.slice(0, 10);
  const until = s.reservation.check_out_date ?? today;
  let fail = false;
  if (id.expiry_date && id.expiry_date < until) {
    fail = true;
    findings.push({
      code: 'id.expires_before_checkout',
      text: `Identity document expires ${id.expiry_date}, before check-out (${until})`,
      weight: 40,
      recommendation: 'Ask the guest for a document valid through the stay.',
    });
  }
  if (id.birth_date) {
    const age = ageOn(id.birth_date, s.reservation.check_in_date ?? today);
    if (age < s.settings.minimumAge) {
      fail = true;
      findings.push({
        code: 'id.under_minimum_age',
        text: `Guest is ${age}, under the minimum age of ${s.settings.minimumAge}`,
        weight: 70,
        recommendation: 'Decline or ask for an adult to book; the guest is under your minimum age.',
      });
    }
  }
  if (id.mrz) {
    const mrz = readMrz(id.mrz);
    if ('unreadable' in mrz) {
      fail = true;
      findings.push({ code: 'id.mrz_unreadable', text: `The MRZ cannot be read: ${mrz.unreadable}`, weight: 45, recommendation: 'Ask for a clear photo of the document.' });
    } else if (mrz.badDigits.length) {
      fail = true;
      findings.push({
        code: 'id.mrz_check_digits',
        text: `MRZ check digits do not match: ${mrz.badDigits.join(', ')}`,
        weight: 45,
        recommendation: 'The document may be forged or mistyped: verify it in person.',
      });
    } else if (mrz.documentNumber && id.document_number && normaliseDocument(mrz.documentNumber) !== normaliseDocument(id.document_number)) {
      findings.push({
        code: 'id.mrz_number_mismatch',
        text: `Document number ${id.document_number} differs from the MRZ (${mrz.documentNumber})`,
        weight: 25,
        recommendation: 'Confirm the document number with the guest.',
      });
    }
  }
  const guestName = [s.reservation.guest.first_name, s.reservation.guest.last_name].filter(Boolean).join(' ');
  const docName = [id.first_name, id.middle_name, id.last_name].filter(Boolean).join(' ');
  if (docName && guestName) {
    // The document's name read as a list writes it (family name first), so the matcher knows
    // which part must agree and which may be left out of the booking (middle names).
    const given = [id.first_name, id.middle_name].filter(Boolean).join(' ');
    const m = matchName(guestName, id.last_name && given ? `${id.last_name}, ${given}` : docName);
    if (m.score < SAME_PERSON) {
      findings.push({
        code: 'id.name_mismatch',
        text: `Name on the document (${docName}) does not match the guest (${guestName})`,
        weight: 25,
        recommendation: 'Confirm who is staying: the document belongs to someone else.',
      });
    }
  }
  if (findings.length === 0) {
    return { status: 'PASS', value: 'document valid through the stay', help: 'No action needed.', findings };
  }
  return {
    status: fail ? 'FAIL' : 'REVIEW',
    value: findings[0]!.text,
    help: findings[0]!.recommendation ?? 'Review the identity document.',
    findings,
  };
};

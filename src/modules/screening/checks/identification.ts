import { parse as parseMrz } from 'mrz';
import { normaliseDocument } from '../../blocklist/index.js';
import { matchName, SAME_PERSON } from '../../../lib/names/match.js';
import { dateInWords, listInWords, say, type HostMessage } from '../../../lib/host-messages.js';
import type { SelfieCheck } from '../../../lib/faces/selfie.js';
import { documentKind, type Check, type Finding } from '../types.js';
import { outcome } from './outcome.js';
import { ageOn } from '../../../lib/time.js';

type MrzField = 'documentNumber' | 'birthDate' | 'expirationDate' | 'personalNumber' | 'composite';

/**
 * The check digits of a machine-readable zone (ICAO 9303), via the mrz package. Its errors are
 * for programmers; what they mean for the document is said in words (unreadable).
 */
function readMrz(text: string): { unreadable: HostMessage } | { badDigits: MrzField[]; documentNumber: string | null } {
  const lines = text
    .toUpperCase()
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  try {
    const result = parseMrz(lines);
    return {
      badDigits: result.details.filter((d) => !d.valid && /CheckDigit$/.test(String(d.field))).map((d) => String(d.field).replace(/CheckDigit$/, '') as MrzField),
      documentNumber: result.fields.documentNumber ?? null,
    };
  } catch (err) {
    const message = (err as Error).message;
    return { unreadable: /alphanumeric/i.test(message) ? 'id.mrz_problem.characters' : /length|characters/i.test(message) ? 'id.mrz_problem.length' : 'id.mrz_problem.format' };
  }
}

/** What is wrong with a document's dates and machine-readable lines, for the host's check and the guest's portal alike. */
export type DocumentProblem =
  | { code: 'expires_before_checkout'; expiry: string; checkout: string }
  | { code: 'under_minimum_age'; age: number; minimum: number }
  | { code: 'mrz_unreadable'; problem: HostMessage }
  | { code: 'mrz_check_digits'; fields: MrzField[] }
  | { code: 'mrz_number_mismatch'; given: string; printed: string };

/**
 * The problems of a document as given: an expiry before check-out (or today, without one), an
 * age under the minimum on the check-in day, check digits that do not add up.
 */
export function documentProblems(
  id: { expiry_date?: string | null | undefined; birth_date?: string | null | undefined; mrz?: string | null | undefined; document_number?: string | null | undefined },
  stay: { checkIn: string | null; checkOut: string | null; today: string; minimumAge: number },
): DocumentProblem[] {
  const found: DocumentProblem[] = [];
  const until = stay.checkOut ?? stay.today;
  if (id.expiry_date && id.expiry_date < until) found.push({ code: 'expires_before_checkout', expiry: id.expiry_date, checkout: until });
  if (id.birth_date) {
    const age = ageOn(id.birth_date, stay.checkIn ?? stay.today);
    if (age < stay.minimumAge) found.push({ code: 'under_minimum_age', age, minimum: stay.minimumAge });
  }
  if (id.mrz) {
    const mrz = readMrz(id.mrz);
    if ('unreadable' in mrz) found.push({ code: 'mrz_unreadable', problem: mrz.unreadable });
    else if (mrz.badDigits.length) found.push({ code: 'mrz_check_digits', fields: mrz.badDigits });
    else if (mrz.documentNumber && id.document_number && normaliseDocument(mrz.documentNumber) !== normaliseDocument(id.document_number)) {
      found.push({ code: 'mrz_number_mismatch', given: id.document_number, printed: mrz.documentNumber });
    }
  }
  return found;
}

/** A document problem as the host reads it: the finding, its strength and what to do. */
function finding(p: DocumentProblem): Finding {
  switch (p.code) {
    case 'expires_before_checkout':
      return {
        code: 'id.expires_before_checkout',
        text: say('id.expires_before_checkout', { expiry: dateInWords(p.expiry), checkout: dateInWords(p.checkout) }),
        strength: 'strong',
        recommendation: say('id.expires_before_checkout.do'),
      };
    case 'under_minimum_age':
      return { code: 'id.under_minimum_age', text: say('id.under_minimum_age', { age: p.age, minimum: p.minimum }), strength: 'decisive', recommendation: say('id.under_minimum_age.do') };
    case 'mrz_unreadable':
      return { code: 'id.mrz_unreadable', text: say('id.mrz_unreadable', { problem: say(p.problem) }), strength: 'moderate', recommendation: say('id.mrz_unreadable.do') };
    case 'mrz_check_digits':
      return {
        code: 'id.mrz_check_digits',
        text: say('id.mrz_check_digits', { fields: listInWords(p.fields.map((f) => say(`id.mrz_field.${f}`))) }),
        strength: 'strong',
        recommendation: say('id.mrz_check_digits.do'),
      };
    case 'mrz_number_mismatch':
      return {
        code: 'id.mrz_number_mismatch',
        text: say('id.mrz_number_mismatch', { given: p.given, printed: p.printed }),
        strength: 'moderate',
        recommendation: say('id.mrz_number_mismatch.do'),
      };
  }
}

/**
 * What the document read from the guest's photo says against the booking and the typed values.
 * Read data is stronger evidence than typed data: a name read that is another person's is
 * strong, a check digit that fails is strong (a misread or an altered document; the guest is
 * asked for a better photo first), typed values that disagree with it are moderate.
 */
function readFindings(s: Parameters<Check>[0], guestName: string): { findings: Finding[]; name: string | null } {
  const doc = s.document;
  if (!doc) return { findings: [], name: null };
  const read = doc.read;
  if (!read) {
    const problems = listInWords(doc.problems.map((p) => say(`id.photo_problem.${p}`)));
    return { findings: [{ code: 'id.photo_unreadable', text: say('id.photo_unreadable', { problems }), strength: 'moderate', recommendation: say('id.photo_unreadable.do') }], name: null };
  }
  const findings: Finding[] = [];
  // Read, but from a screen: whose document it is, the photo cannot say.
  if (doc.problems.includes('screen_photo')) findings.push({ code: 'id.screen_photo', text: say('id.screen_photo'), strength: 'moderate', recommendation: say('id.screen_photo.do') });
  else if (doc.screen_hint) findings.push({ code: 'id.screen_hint', text: say('id.screen_hint'), strength: 'weak', recommendation: say('id.screen_hint.do') });
  const failing = (
    [
      ['documentNumber', read.document_number.check],
      ['birthDate', read.birth_date.check],
      ['expirationDate', read.expiry_date.check],
      ['personalNumber', read.optional_data.check],
      ['composite', read.composite],
    ] as const
  )
    .filter(([, check]) => check === 'invalid')
    .map(([field]) => say(`id.mrz_field.${field}`));
  if (failing.length)
    findings.push({ code: 'id.read_check_digits', text: say('id.read_check_digits', { fields: listInWords(failing) }), strength: 'strong', recommendation: say('id.read_check_digits.do') });
  const surname = read.surname.value ?? '';
  const given = read.given_names.value ?? '';
  const name = [given, surname].filter(Boolean).join(' ');
  // A name is invalid where the reader saw a letter lost in it: a gap its line's characters do not fill.
  if (read.surname.check === 'invalid' || read.given_names.check === 'invalid')
    findings.push({ code: 'id.read_name_lost', text: say('id.read_name_lost', { name }), strength: 'moderate', recommendation: say('id.read_name_lost.do') });
  // The zone's name has no check digit: the printed page, read apart from it, is what catches a misread or an altered one.
  const printed = read.printed;
  if (printed && (printed.surname.agrees === 'differs' || printed.given_names.agrees === 'differs')) {
    const onPage = [printed.given_names.printed ?? read.given_names.value, printed.surname.printed ?? read.surname.value].filter(Boolean).join(' ');
    findings.push({ code: 'id.printed_name_mismatch', text: say('id.printed_name_mismatch', { page: onPage, zone: name }), strength: 'strong', recommendation: say('id.printed_name_mismatch.do') });
  }
  // Nothing printed confirmed the name: said, so that "valid" is not taken to cover it. Context,
  // not a finding that counts: an ID card's back sent alone is no sign of fraud.
  else if (read.name_confirmed === false && name)
    findings.push({ code: 'id.name_zone_only', text: say('id.name_zone_only', { name }), strength: 'context', recommendation: say('id.name_zone_only.do') });
  if (name && guestName && matchName(guestName, surname && given ? `${surname}, ${given}` : name).score < SAME_PERSON) {
    findings.push({ code: 'id.read_name_mismatch', text: say('id.read_name_mismatch', { document: name, guest: guestName }), strength: 'strong', recommendation: say('id.read_name_mismatch.do') });
  }
  const kind = documentKind(read.document_type.value);
  if (kind && !s.settings.acceptedDocuments.includes(kind)) {
    findings.push({ code: 'id.type_not_accepted', text: say('id.type_not_accepted', { type: say(`id.doc_type.${kind}`) }), strength: 'strong', recommendation: say('id.type_not_accepted.do') });
  }
  const typed = s.identification;
  if (typed.document_number && read.document_number.value && read.document_number.check === 'valid' && normaliseDocument(typed.document_number) !== normaliseDocument(read.document_number.value)) {
    findings.push({
      code: 'id.read_number_mismatch',
      text: say('id.read_number_mismatch', { typed: typed.document_number, read: read.document_number.value }),
      strength: 'moderate',
      recommendation: say('id.read_number_mismatch.do'),
    });
  }
  if (typed.birth_date && read.birth_date.value && read.birth_date.check === 'valid' && typed.birth_date !== read.birth_date.value) {
    findings.push({
      code: 'id.read_birth_mismatch',
      text: say('id.read_birth_mismatch', { typed: dateInWords(typed.birth_date), read: dateInWords(read.birth_date.value) }),
      strength: 'moderate',
      recommendation: say('id.read_birth_mismatch.do'),
    });
  }
  findings.push(...faceFindings(doc.face));
  return { findings, name };
}

/**
 * What the guest's selfie says against the document's portrait (lib/faces/selfie.ts): not the
 * same person is strong, as is a selfie that is the document held up to the camera; a comparison
 * that cannot tell is moderate (the guest is asked for a new selfie, then the host looks); a
 * screen is moderate; a head that did not turn or eyes that did not blink across the frames are
 * weak (the guest may not have followed the camera's prompts).
 */
function faceFindings(face: SelfieCheck | null | undefined): Finding[] {
  if (!face) return [];
  const findings: Finding[] = [];
  const c = face.face;
  const two = (x: number | null) => (x === null ? '' : x.toFixed(2));
  if (c.verdict === 'not_same_person')
    findings.push({
      code: 'id.face_mismatch',
      text: say('id.face_mismatch', { similarity: two(c.similarity), threshold: two(c.threshold) }),
      strength: 'strong',
      recommendation: say('id.face_mismatch.do'),
    });
  if (c.verdict === 'cannot_tell') {
    const why = [...(c.document_face ? [] : ['no_document_face' as const]), ...c.problems, ...(c.strength === 'too_close' && !c.problems.length ? ['too_close' as const] : [])];
    findings.push({
      code: 'id.face_unclear',
      text: say('id.face_unclear', { why: listInWords(why.map((w) => say(`id.face_why.${w}`))) }),
      strength: 'moderate',
      recommendation: say('id.face_unclear.do'),
    });
  }
  const failed = new Set(face.liveness.signals.filter((s) => s.result === 'failed').map((s) => s.code));
  if (failed.has('not_the_document')) findings.push({ code: 'id.selfie_copy', text: say('id.selfie_copy'), strength: 'strong', recommendation: say('id.selfie_copy.do') });
  if (failed.has('screen')) findings.push({ code: 'id.selfie_screen', text: say('id.selfie_screen'), strength: 'moderate', recommendation: say('id.selfie_screen.do') });
  const still = (['head_turn', 'blink'] as const).filter((s) => failed.has(s));
  if (still.length)
    findings.push({
      code: 'id.selfie_still',
      text: say('id.selfie_still', { what: listInWords(still.map((s) => say(`id.selfie_still.${s}`))) }),
      strength: 'weak',
      recommendation: say('id.selfie_still.do'),
    });
  return findings;
}

/**
 * The guest's identity document: present, valid through the stay, old enough, and theirs. Under
 * the account's minimum age is decisive (the host's own rule); an expiry before check-out and
 * check digits that do not add up are strong; the rest is moderate. Where the document was read
 * from its photo, its dates (when their check digits hold) stand in for the typed ones.
 */
export const identificationDocument: Check = (s) => {
  const id = s.identification;
  const read = s.document?.read;
  const trusted = (f: { value: string | null; check: string } | undefined) => (f?.value && f.check === 'valid' ? f.value : undefined);
  const birth = trusted(read?.birth_date) ?? id.birth_date;
  const expiry = trusted(read?.expiry_date) ?? id.expiry_date;
  if (!id.document_number && !birth && !expiry && !s.document) {
    return {
      status: 'INCOMPLETE',
      value: say('id.missing.value'),
      help: say('id.missing.help'),
      findings: [],
    };
  }
  const today = s.now.slice(0, 10);
  const findings: Finding[] = documentProblems(
    // The typed zone is checked only where no photo was read: the read zone's checks are its own findings.
    { ...id, birth_date: birth, expiry_date: expiry, mrz: read ? null : id.mrz },
    {
      checkIn: s.reservation.check_in_date ?? null,
      checkOut: s.reservation.check_out_date ?? null,
      today,
      minimumAge: s.settings.minimumAge,
    },
  ).map(finding);
  const guestName = [s.reservation.guest.first_name, s.reservation.guest.last_name].filter(Boolean).join(' ');
  const fromPhoto = readFindings(s, guestName);
  findings.push(...fromPhoto.findings);
  const docName = [id.first_name, id.middle_name, id.last_name].filter(Boolean).join(' ');
  if (!read && docName && guestName) {
    // The document's name read as a list writes it (family name first), so the matcher knows
    // which part must agree and which may be left out of the booking (middle names).
    const given = [id.first_name, id.middle_name].filter(Boolean).join(' ');
    const m = matchName(guestName, id.last_name && given ? `${id.last_name}, ${given}` : docName);
    if (m.score < SAME_PERSON) {
      findings.push({
        code: 'id.name_mismatch',
        text: say('id.name_mismatch', { document: docName, guest: guestName }),
        strength: 'moderate',
        recommendation: say('id.name_mismatch.do'),
      });
    }
  }
  const face = s.document?.face?.face;
  const value = !fromPhoto.name
    ? say('id.ok.value')
    : face?.verdict === 'same_person'
      ? say('id.read_face.value', { name: fromPhoto.name, strength: face.strength })
      : say('id.read.value', { name: fromPhoto.name });
  return outcome(findings, { value }, { help: say('id.help.review') });
};

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { screen } from '../engine.js';
import type { Snapshot } from '../types.js';
import type { ReadDocument } from '../../../lib/documents/read.js';
import { DEFAULT_SCREENING_SETTINGS } from '../run.js';
import { blacklist } from './blocklist.js';
import { fraudDetection } from './fraud.js';
import { identificationDocument } from './identification.js';
import { paymentVerification } from './payment.js';
import { adverseMedia, sanctions, sanctionsMatchKind } from './watchlists.js';

function snapshot(over: Partial<Snapshot> = {}, reservation: Partial<Snapshot['reservation']> = {}): Snapshot {
  return {
    now: '2026-11-22T10:00:00.000Z',
    reservation: {
      id: 'res_1',
      pms: 'api',
      status: 'CONFIRMED',
      source: 'Airbnb',
      listing_id: 'L1',
      listing_nickname: 'Loft',
      check_in_date: '2026-12-20',
      check_out_date: '2026-12-23',
      nights: 3,
      total_price: 450,
      number_of_guests: 2,
      created_at: '2026-11-20T09:00:00.000Z',
      guest: { first_name: 'Ines', last_name: 'Costa', full_name: 'Ines Costa', email: 'ines.costa@gmail.com', phone: '+351 912 345 678', location: null },
      ...reservation,
    },
    identification: {},
    payments: [],
    history: { reservations: 40, medianTotalPrice: 400, medianNights: 3, sameContactLast24h: 0 },
    guestPortalCompleted: false,
    skipGuestPortal: true,
    settings: { ...DEFAULT_SCREENING_SETTINGS },
    blocklist: [],
    rules: [],
    ...over,
  };
}

describe('checks', () => {
  it('identification: PASS, FAIL on expiry and age, REVIEW on another name, INCOMPLETE without data', () => {
    const ok = { first_name: 'Inês', last_name: 'Costa', birth_date: '1990-01-01', expiry_date: '2030-01-01', document_number: 'A1' };
    assert.equal(identificationDocument(snapshot({ identification: ok })).status, 'PASS', 'accents do not matter');
    assert.equal(identificationDocument(snapshot({ identification: { ...ok, expiry_date: '2026-12-21' } })).status, 'FAIL');
    assert.equal(identificationDocument(snapshot({ identification: { ...ok, birth_date: '2009-01-01' } })).status, 'FAIL');
    assert.equal(identificationDocument(snapshot({ identification: { ...ok, first_name: 'Paulo', last_name: 'Ferreira' } })).status, 'REVIEW');
    assert.equal(identificationDocument(snapshot({ identification: { ...ok, first_name: 'Inês Maria', middle_name: 'Sousa' } })).status, 'PASS', 'the names the booking leaves out');
    const spouse = identificationDocument(snapshot({ identification: { ...ok, first_name: 'Rui' } }));
    assert.equal(spouse.status, 'REVIEW', 'the same family name with another given name is someone else');
    assert.equal(spouse.value, 'Name on the document (Rui Costa) does not match the guest (Ines Costa)');
    assert.equal(identificationDocument(snapshot()).status, 'INCOMPLETE');
    const adult21 = snapshot({ identification: { ...ok, birth_date: '2004-06-01' }, settings: { ...DEFAULT_SCREENING_SETTINGS, minimumAge: 25 } });
    assert.match(identificationDocument(adult21).value, /Guest is 22, under your minimum age of 25/);
  });

  it('identification: what was read from the photo outweighs what was typed, and says why', () => {
    const f = (value: string | null, check: 'valid' | 'invalid' | 'none' = 'none') => ({ value, check });
    const read: ReadDocument = {
      format: 'TD3',
      document_type: f('P'),
      issuing_state: f('PRT'),
      document_number: f('CB1234567', 'valid'),
      surname: f('COSTA'),
      given_names: f('INES'),
      nationality: f('PRT'),
      birth_date: f('1990-01-01', 'valid'),
      sex: f('F'),
      expiry_date: f('2030-01-01', 'valid'),
      optional_data: f(null),
      composite: 'valid',
      valid: true,
      zone: [],
    };
    const withDoc = (doc: ReadDocument | null, over: Partial<Snapshot> = {}) => snapshot({ document: { verification_id: 'idv_1', read: doc, problems: doc ? [] : ['blurred', 'glare'] }, ...over });
    const ok = identificationDocument(withDoc(read));
    assert.equal(ok.status, 'PASS', JSON.stringify(ok));
    assert.equal(ok.value, 'Document read from its photo: INES COSTA, valid through the stay');
    const forged = identificationDocument(withDoc({ ...read, birth_date: f('1990-01-01', 'invalid'), composite: 'invalid', valid: false }));
    assert.notEqual(forged.status, 'PASS');
    assert.ok(forged.findings.some((x) => x.code === 'id.read_check_digits' && /date of birth and the whole line/.test(x.text)));
    const other = identificationDocument(withDoc({ ...read, surname: f('FERREIRA'), given_names: f('PAULO') }));
    assert.ok(other.findings.some((x) => x.code === 'id.read_name_mismatch' && x.strength === 'strong'));
    const typedOther = identificationDocument(withDoc(read, { identification: { document_number: 'ZZ999', birth_date: '1991-02-02' } }));
    assert.deepEqual(typedOther.findings.map((x) => x.code).sort(), ['id.read_birth_mismatch', 'id.read_number_mismatch']);
    const minor = identificationDocument(withDoc({ ...read, birth_date: f('2012-05-05', 'valid') }, { identification: { birth_date: '1990-01-01' } }));
    assert.equal(minor.status, 'FAIL', 'the age comes from the date read, not the date typed');
    const visa = identificationDocument(withDoc({ ...read, document_type: f('V') }));
    assert.ok(visa.findings.some((x) => x.code === 'id.type_not_accepted' && /a visa/.test(x.text)));
    // The printed page says another name than the zone: the zone's name has no check digit to catch it.
    const page = (agrees: 'same' | 'differs') => ({
      surname: { printed: agrees === 'same' ? 'COSTA' : 'CASTA', agrees },
      given_names: { printed: 'INES', agrees: 'same' as const },
      birth_date: 'same' as const,
      expiry_date: 'same' as const,
    });
    assert.equal(identificationDocument(withDoc({ ...read, printed: page('same') })).status, 'PASS');
    const misprinted = identificationDocument(withDoc({ ...read, printed: page('differs') }));
    assert.notEqual(misprinted.status, 'PASS');
    const printedFinding = misprinted.findings.find((x) => x.code === 'id.printed_name_mismatch');
    assert.equal(printedFinding?.strength, 'strong');
    assert.equal(printedFinding?.text, 'The name printed on the document, INES CASTA, is not the name in its machine-readable lines, INES COSTA: a misread or an altered document');
    // A letter the reader lost in the name (a gap in its line): the name is invalid, the host told.
    const lost = identificationDocument(withDoc({ ...read, surname: f('OSTA', 'invalid'), valid: false }, { identification: { first_name: 'Ines', last_name: 'Costa' } }));
    assert.notEqual(lost.status, 'PASS');
    assert.match(lost.findings.find((x) => x.code === 'id.read_name_lost')?.text ?? '', /INES OSTA, is missing a letter/);
    // Nothing printed read: said as context, the check passing.
    const zoneOnly = identificationDocument(withDoc({ ...read, printed: null, name_confirmed: false }));
    assert.equal(zoneOnly.status, 'PASS');
    assert.equal(zoneOnly.findings.find((x) => x.code === 'id.name_zone_only')?.strength, 'context');
    const unread = identificationDocument(withDoc(null));
    assert.equal(unread.findings[0]?.code, 'id.photo_unreadable');
    assert.match(unread.findings[0].text, /blurred and glare on the document/);
  });

  it("identification: the guest's selfie against the document's portrait, and the liveness signals", () => {
    const f = (value: string | null, check: 'valid' | 'invalid' | 'none' = 'none') => ({ value, check });
    const read: ReadDocument = {
      format: 'TD3',
      document_type: f('P'),
      issuing_state: f('PRT'),
      document_number: f('CB1234567', 'valid'),
      surname: f('COSTA'),
      given_names: f('INES'),
      nationality: f('PRT'),
      birth_date: f('1990-01-01', 'valid'),
      sex: f('F'),
      expiry_date: f('2030-01-01', 'valid'),
      optional_data: f(null),
      composite: 'valid',
      valid: true,
      zone: [],
    };
    type Face = NonNullable<NonNullable<Snapshot['document']>['face']>;
    const signals = (failed: string[] = []): Face['liveness'] => ({
      signals: (['one_face', 'not_the_document', 'head_turn', 'blink', 'screen'] as const).map((code) => ({ code, result: failed.includes(code) ? 'failed' : 'passed' })),
      frames: 6,
    });
    const face = (verdict: Face['face']['verdict'], strength: Face['face']['strength'], similarity: number | null, more: Partial<Face['face']> = {}, failed: string[] = []): Face => ({
      face: { similarity, threshold: 0.384, verdict, strength, problems: [], document_face: true, ...more },
      liveness: signals(failed),
    });
    const check = (x: Face) => identificationDocument(snapshot({ document: { verification_id: 'idv_1', read, problems: [], face: x } }));

    const same = check(face('same_person', 'very_likely', 0.62));
    assert.equal(same.status, 'PASS');
    assert.equal(same.value, 'Document read from its photo: INES COSTA, valid through the stay; the guest’s selfie is very likely the person on it');
    const other = check(face('not_same_person', 'unlikely', 0.12));
    assert.equal(other.status, 'FAIL');
    assert.equal(other.findings[0]?.strength, 'strong');
    assert.equal(other.findings[0]?.text, 'The guest’s selfie is not the person on the document (similarity 0.12; the same person from 0.38)');
    const unclear = check(face('cannot_tell', 'too_close', 0.3, { problems: ['too_dark'] }));
    assert.equal(unclear.status, 'REVIEW');
    assert.equal(unclear.findings[0]?.text, 'Whether the guest’s selfie is the person on the document cannot be told: the selfie is too dark');
    const noPortrait = check(face('cannot_tell', 'no_face', null, { document_face: false }));
    assert.match(noPortrait.findings[0]!.text, /no face was found on the document’s photo/);
    // The same person, but the selfie is the document held up to the camera: that is strong on its own.
    const held = check(face('same_person', 'very_likely', 0.9, {}, ['not_the_document', 'head_turn', 'blink']));
    assert.equal(held.status, 'FAIL');
    assert.deepEqual(
      held.findings.map((x) => [x.code, x.strength]),
      [
        ['id.selfie_copy', 'strong'],
        ['id.selfie_still', 'weak'],
      ],
    );
    assert.match(held.findings[1]!.text, /the head did not turn and the eyes did not blink/);
  });

  it('fraud: long and expensive stays against the account history, velocity, free webmail as a fact only', () => {
    assert.equal(fraudDetection(snapshot()).status, 'PASS');
    assert.deepEqual(
      fraudDetection(snapshot()).findings.map((f) => [f.code, f.strength]),
      [['fraud.free_webmail', 'context']],
    );
    const long = fraudDetection(snapshot({}, { nights: 30, check_out_date: '2027-01-19', total_price: 450 }));
    assert.ok(long.findings.some((f) => f.code === 'fraud.long_stay'));
    const dear = fraudDetection(snapshot({}, { total_price: 5000 }));
    assert.ok(dear.findings.some((f) => f.code === 'fraud.expensive'));
    const fewPast = fraudDetection(snapshot({ history: { reservations: 2, medianTotalPrice: 100, medianNights: 2, sameContactLast24h: 0 } }, { total_price: 5000 }));
    assert.ok(!fewPast.findings.some((f) => f.code === 'fraud.expensive'), 'no history, no comparison');
    const busy = fraudDetection(snapshot({ history: { reservations: 40, medianTotalPrice: 400, medianNights: 3, sameContactLast24h: 3 } }));
    assert.equal(busy.status, 'REVIEW');
    assert.equal(fraudDetection(snapshot({}, { guest: { first_name: 'A', last_name: 'B', full_name: 'A B', email: null, phone: null, location: null } })).status, 'INCOMPLETE');
  });

  it('payments: country mismatch and another name REVIEW, failed 3-D Secure FAIL, nothing yet INCOMPLETE', () => {
    const base = { event_source: 's', event_id: '1', event_type: 'authorization' as const, event_status: 'succeeded' as const, occurred_at: '2026-11-20T09:00:00.000Z' };
    assert.equal(paymentVerification(snapshot()).status, 'INCOMPLETE');
    assert.equal(paymentVerification(snapshot({ payments: [{ ...base, card_country: 'PT', billing_country_code: 'PT', name_on_card: 'INES COSTA' }] })).status, 'PASS');
    assert.equal(paymentVerification(snapshot({ payments: [{ ...base, card_country: 'BR', billing_country_code: 'PT' }] })).status, 'REVIEW');
    assert.equal(paymentVerification(snapshot({ payments: [{ ...base, name_on_card: 'RUI SANTOS' }] })).status, 'REVIEW');
    assert.equal(paymentVerification(snapshot({ payments: [{ ...base, card_country: 'PT', billing_country_code: 'PT', name_on_card: 'I COSTA' }] })).status, 'PASS', 'an initial as cards write it');
    assert.equal(paymentVerification(snapshot({ payments: [{ ...base, name_on_card: 'RUI COSTA' }] })).status, 'REVIEW', "a relative's card");
    assert.equal(paymentVerification(snapshot({ payments: [{ ...base, three_d_secure: 'failed' }] })).status, 'FAIL');
  });

  it('blocklist: token order and case do not hide a name; an exact phone in another format matches', () => {
    const entry = { id: 'blk_1', name: 'COSTA, Ines', email: null, phone: null, document_number: null, reason: 'no-show' };
    assert.equal(blacklist(snapshot({ blocklist: [entry] })).status, 'REVIEW');
    const phone = { ...entry, name: null, phone: '+351912345678' };
    assert.equal(blacklist(snapshot({ blocklist: [phone] })).status, 'FAIL');
    assert.equal(blacklist(snapshot({ blocklist: [{ ...entry, name: 'Maria Oliveira' }] })).status, 'PASS');
  });

  it('the verdict is the same for the same snapshot, and the tolerance moves it', () => {
    const s = snapshot({}, { guest: { first_name: 'Ines', last_name: 'Costa', full_name: null, email: 'x@mailinator.com', phone: '+351 912 345 678', location: null } });
    assert.deepEqual(screen(s), screen(structuredClone(s)));
    assert.equal(screen(s).status, 'review');
    const invalidPhone = snapshot({}, { guest: { first_name: 'Ines', last_name: 'Costa', full_name: null, email: 'ines@gmail.com', phone: '+1 555 0100', location: null } });
    assert.equal(screen(invalidPhone).status, 'verified');
    assert.equal(screen({ ...invalidPhone, settings: { ...invalidPhone.settings, riskTolerance: 'low' } }).status, 'review');
    assert.equal(screen({ ...invalidPhone, skipGuestPortal: false }).status, 'pending');
  });

  it('sanctions: not installed is incomplete; the name alone is a possible match (moderate), with the year strong, with the date of birth or document a probable match (decisive)', () => {
    const none = sanctions(snapshot());
    assert.equal(none.status, 'INCOMPLETE');
    assert.equal(none.value, 'Not checked: no sanctions list is installed');
    assert.equal(sanctions(snapshot({ sanctions: [] })).status, 'PASS');
    assert.equal(
      sanctions(
        snapshot({
          sanctions: [],
          sanctionsLists: [
            { source: 'OFAC SDN', dataDate: '2024-05-03' },
            { source: 'OFAC Consolidated (non-SDN)', dataDate: '2025-12' },
          ],
        }),
      ).value,
      'No match on OFAC SDN of 3 May 2024 and OFAC Consolidated (non-SDN) of December 2025',
      'the answer names the lists and their dates',
    );
    const hit: NonNullable<Snapshot['sanctions']>[number] = {
      source: 'OFAC SDN',
      entryId: '1',
      listedName: 'COSTA, Ines',
      primaryName: 'COSTA, Ines',
      score: 1,
      birthDate: 'unknown',
      birthYear: 'unknown',
      document: 'unknown',
      explanation: 'x',
    };
    const strengthOf = (h: Partial<typeof hit>) => sanctions(snapshot({ sanctions: [{ ...hit, ...h }] }));
    assert.deepEqual([strengthOf({}).status, strengthOf({}).strength], ['REVIEW', 'moderate']);
    assert.deepEqual([strengthOf({ birthYear: 'same' }).status, strengthOf({ birthYear: 'same' }).strength], ['FAIL', 'strong']);
    assert.equal(strengthOf({ birthYear: 'same', birthDate: 'same' }).strength, 'decisive');
    assert.equal(strengthOf({ document: 'same' }).strength, 'decisive');
    assert.equal(strengthOf({ birthYear: 'same', birthDate: 'other' }).strength, 'weak', 'the list gives another date of birth: a namesake');
    assert.equal(sanctionsMatchKind({ ...hit, birthYear: 'same', birthDate: 'other' }), 'namesake', 'the console says what the finding says');
    assert.equal(sanctionsMatchKind({ ...hit, birthYear: 'same' }), 'probable');
    assert.equal(sanctionsMatchKind(hit), 'possible');
    assert.equal(strengthOf({ score: 0.92, birthYear: 'same' }).strength, 'moderate', 'a close name is not strong even with the year');
    assert.equal(strengthOf({ score: 0.92, birthDate: 'same' }).strength, 'decisive', 'a close name with the same date of birth is a probable match');
    // A possible match says so and asks for what settles it: the guest's date of birth, or the document where the list gives none.
    assert.match(strengthOf({}).findings[0]?.text ?? '', /^Possible match: the guest's name is the same as “COSTA, Ines” on OFAC SDN, with no date of birth from the guest to compare$/);
    assert.match(strengthOf({}).help, /Ask the guest for their date of birth/);
    const born = sanctions(snapshot({ sanctions: [hit], identification: { ...snapshot().identification, birth_date: '1980-01-01' } }));
    assert.match(born.findings[0]?.text ?? '', /with no date of birth on the list to compare/);
    assert.match(born.help, /Compare the guest's identity document/);
    assert.match(strengthOf({ birthDate: 'same' }).findings[0]?.text ?? '', /^Probable match: /);
    const many = sanctions(snapshot({ sanctions: [...Array.from({ length: 4 }, (_, i) => ({ ...hit, entryId: String(i) })), { ...hit, entryId: '9', birthDate: 'same' }] }));
    assert.equal(many.strength, 'decisive', 'a confirmed match beyond the first three still counts');
  });
  it('adverse media: a mention alone passes, words of wrongdoing near the name are review', () => {
    assert.equal(adverseMedia(snapshot()).status, 'INCOMPLETE');
    const article = { title: 'Ines Costa opens a cafe', link: 'https://news.example/1', publishedAt: null, riskCategories: ['Other News'], topics: [], summary: '' };
    const mention = adverseMedia(snapshot({ adverseMedia: [article] }));
    assert.equal(mention.status, 'PASS');
    assert.equal(mention.findings[0]?.strength, 'context');
    const risky = adverseMedia(snapshot({ adverseMedia: [{ ...article, riskCategories: ['Fraud or Financial Crime'], topics: [{ topic: 'sanctions', words: 'sanctions' }] }] }));
    assert.equal(risky.status, 'REVIEW');
    assert.equal(risky.findings[0]?.strength, 'moderate');
    assert.match(risky.findings[0]?.text ?? '', /near words of sanctions \(“sanctions”\)/);
    const buried = adverseMedia(
      snapshot({ adverseMedia: [...Array.from({ length: 6 }, (_, i) => ({ ...article, link: `https://news.example/m${i}` })), { ...article, topics: [{ topic: 'fraud', words: 'fraud' }] }] }),
    );
    assert.equal(buried.status, 'REVIEW', 'an older article about wrongdoing is not crowded out by newer mentions');
    assert.equal(buried.findings.length, 5);
  });
  it('payments: a successful authenticated payment after a failed one supersedes it', () => {
    const base = { event_source: 's', event_type: 'authorization' as const, card_country: 'PT', billing_country_code: 'PT' };
    const failed = { ...base, event_id: '1', event_status: 'failed' as const, three_d_secure: 'failed' as const, occurred_at: '2026-11-20T09:00:00.000Z' };
    const passed = { ...base, event_id: '2', event_status: 'succeeded' as const, three_d_secure: 'authenticated' as const, occurred_at: '2026-11-20T09:05:00.000Z' };
    const later = paymentVerification(snapshot({ payments: [passed, failed] }));
    assert.equal(later.status, 'PASS', later.value);
    assert.deepEqual(
      later.findings.map((f) => [f.code, f.strength]),
      [
        ['payment.failure_recovered', 'context'],
        ['payment.3ds_recovered', 'context'],
      ],
    );
    const stillFailing = paymentVerification(snapshot({ payments: [{ ...passed, occurred_at: '2026-11-20T08:00:00.000Z' }, failed] }));
    assert.equal(stillFailing.status, 'FAIL');
    assert.match(stillFailing.value, /failed the bank’s identity check/);
    assert.match(stillFailing.help, /Do not accept this card/, 'the value and the help speak of the same finding');
  });
  it("payment: a payment from a country other than the card's and the billing one is noted", () => {
    const event: Snapshot['payments'][number] = {
      event_source: 'stripe',
      event_id: 'e1',
      event_type: 'charge',
      event_status: 'succeeded',
      card_country: 'PT',
      billing_country_code: 'PT',
      ip_address: '81.2.69.142',
      occurred_at: '2026-11-20T09:00:00.000Z',
    };
    const away = paymentVerification(snapshot({ payments: [event], ipCountries: [{ ip: '81.2.69.142', country: 'GB' }] }));
    assert.deepEqual(
      away.findings.map((f) => f.text),
      ['Payment made from 81.2.69.142 in GB; card issued in PT, billing country PT'],
    );
    assert.equal(away.status, 'REVIEW', 'a weak signal');
    assert.equal(screen(snapshot({ payments: [event], ipCountries: [{ ip: '81.2.69.142', country: 'GB' }] })).status, 'verified', 'alone, a note, not a review');
    const home = paymentVerification(snapshot({ payments: [event], ipCountries: [{ ip: '81.2.69.142', country: 'PT' }] }));
    assert.deepEqual(home.findings, []);
  });
});

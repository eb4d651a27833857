import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { screen } from '../engine.js';
import type { Snapshot } from '../types.js';
import { blacklist } from './blocklist.js';
import { fraudDetection } from './fraud.js';
import { identificationDocument } from './identification.js';
import { paymentVerification } from './payment.js';
import { adverseMedia, sanctions } from './watchlists.js';

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
    settings: { riskTolerance: 'balanced', minimumAge: 18, disabledChecks: [], nameMatchThreshold: 0.9 },
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
    const adult21 = snapshot({ identification: { ...ok, birth_date: '2004-06-01' }, settings: { riskTolerance: 'balanced', minimumAge: 25, disabledChecks: [], nameMatchThreshold: 0.9 } });
    assert.match(identificationDocument(adult21).value, /Guest is 22, under the minimum age of 25/);
  });

  it('fraud: long and expensive stays against the account history, velocity, free webmail as a fact only', () => {
    assert.equal(fraudDetection(snapshot()).status, 'PASS');
    assert.deepEqual(fraudDetection(snapshot()).findings.map((f) => [f.code, f.weight]), [['fraud.free_webmail', 0]]);
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

  it('sanctions: not imported is incomplete, a name match is review, a name and year of birth match fails', () => {
    assert.equal(sanctions(snapshot()).status, 'INCOMPLETE');
    assert.equal(sanctions(snapshot({ sanctions: [] })).status, 'PASS');
    assert.equal(
      sanctions(snapshot({ sanctions: [], sanctionsLists: [{ source: 'OFAC SDN', dataDate: '2024-05-03' }, { source: 'OFAC Consolidated (non-SDN)', dataDate: '2025-12' }] })).value,
      'no match on OFAC SDN of 2024-05-03 and OFAC Consolidated (non-SDN) of 2025-12',
      'the answer names the lists and their dates',
    );
    const hit = { source: 'OFAC SDN', entryId: '1', listedName: 'COSTA, Ines', primaryName: 'COSTA, Ines', score: 1, birthYearListed: false, explanation: 'x' };
    const possible = sanctions(snapshot({ sanctions: [hit] }));
    assert.equal(possible.status, 'REVIEW');
    assert.equal(possible.findings[0]?.weight, 45);
    assert.equal(sanctions(snapshot({ sanctions: [{ ...hit, birthYearListed: true }] })).status, 'FAIL');
    assert.equal(sanctions(snapshot({ sanctions: [{ ...hit, score: 0.92, birthYearListed: true }] })).status, 'REVIEW', 'a close name is not strong even with the year');
  });

  it('adverse media: a mention alone passes, a risk term near the name is review', () => {
    assert.equal(adverseMedia(snapshot()).status, 'INCOMPLETE');
    const article = { title: 'Ines Costa opens a cafe', link: 'https://news.example/1', publishedAt: null, riskCategories: ['Other News'], summary: '' };
    const mention = adverseMedia(snapshot({ adverseMedia: [article] }));
    assert.equal(mention.status, 'PASS');
    assert.equal(mention.findings[0]?.weight, 0);
    const risky = adverseMedia(snapshot({ adverseMedia: [{ ...article, riskCategories: ['Violence'] }] }));
    assert.equal(risky.status, 'REVIEW');
    assert.equal(risky.findings[0]?.weight, 20);
  });

  it('payment: a payment from a country other than the card\'s and the billing one is noted', () => {
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
    assert.deepEqual(away.findings.map((f) => f.text), ['Payment made from 81.2.69.142 in GB; card issued in PT, billing country PT']);
    assert.equal(away.status, 'PASS', 'weight 10 alone is a note, not a review');
    const home = paymentVerification(snapshot({ payments: [event], ipCountries: [{ ip: '81.2.69.142', country: 'PT' }] }));
    assert.deepEqual(home.findings, []);
  });
});

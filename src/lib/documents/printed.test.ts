import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparePrinted, printedDates } from './printed.js';
import type { ReadDocument } from './read.js';

const f = (value: string | null, check: 'valid' | 'invalid' | 'none' = 'none') => ({ value, check });
const zone = (surname: string, given: string): ReadDocument => ({
  format: 'TD3',
  document_type: f('P'),
  issuing_state: f('DEU'),
  document_number: f('C01X00T47', 'valid'),
  surname: f(surname),
  given_names: f(given),
  nationality: f('DEU'),
  birth_date: f('1964-08-12', 'valid'),
  sex: f('F'),
  expiry_date: f('2030-10-31', 'valid'),
  optional_data: f(null),
  composite: 'valid',
  valid: true,
  zone: [],
});

describe("a document's printed page against its zone", () => {
  const page = 'PASSPORT PASS\nSurname / Nom\nMÜLLER-LÜDENSCHEIDT\nGiven names / Prénoms\nERIKA ANNELIESE\nDate of birth\n12 AUG/AOÛT 1964\nDate of expiry\n31.10.2030';

  it('agrees where the zone writes the printed name as ICAO 9303 transliterates it', () => {
    const printed = comparePrinted(zone('MUELLER LUEDENSCHEIDT', 'ERIKA ANNELIESE'), page);
    assert.deepEqual(printed, {
      surname: { printed: 'MUELLER LUEDENSCHEIDT', agrees: 'same' },
      given_names: { printed: 'ERIKA ANNELIESE', agrees: 'same' },
      birth_date: 'same',
      expiry_date: 'same',
    });
  });

  it('agrees with a name the zone cut short', () => {
    assert.equal(comparePrinted(zone('MUELLER LUEDENSCH', 'ERIKA ANNELIESE'), page).surname.agrees, 'same');
  });

  // The zone's names as its reader read them, how sure it was of each letter, and its runner-up: unsure of the F, E second.
  const names = (text: string, unsureAt: number, second = 'E') => ({
    text,
    sure: [...text].map((_, i) => (i === unsureAt ? '0' : '1')).join(''),
    second: [...text].map((_, i) => (i === unsureAt ? second : ' ')).join(''),
  });
  const region = 'MUELLER<LUEDENSCHEIDT<<FRIKA<ANNELIESE<<<<<<';

  it('says a zone name differs from the page where the zone was unsure of the letter: a misread or an altered document', () => {
    const printed = comparePrinted(zone('MUELLER LUEDENSCHEIDT', 'FRIKA ANNELIESE'), page, names(region, region.indexOf('FRIKA')));
    assert.deepEqual(printed.given_names, { printed: 'ERIKA ANNELIESE', agrees: 'differs' });
  });

  it("takes a letter apart where the zone was sure or weighed another, or a letter lost, for the page's misread", () => {
    const sure = comparePrinted(zone('MUELLER LUEDENSCHEIDT', 'FRIKA ANNELIESE'), page, names(region, -1));
    assert.deepEqual(sure.given_names, { printed: null, agrees: 'unread' });
    // Unsure of the F, but its runner-up was P, not the E the page prints: the page's misread as likely as the zone's.
    const other = comparePrinted(zone('MUELLER LUEDENSCHEIDT', 'FRIKA ANNELIESE'), page, names(region, region.indexOf('FRIKA'), 'P'));
    assert.equal(other.given_names.agrees, 'unread');
    const lost = comparePrinted(zone('MUELLER LUEDENSCHEIDT', 'ERIKAS ANNELIESE'), page, names('MUELLER<LUEDENSCHEIDT<<ERIKAS<ANNELIESE<<<<<', 28));
    assert.equal(lost.given_names.agrees, 'unread');
  });

  it('says nothing of a name the page does not show', () => {
    assert.equal(comparePrinted(zone('SCHMIDT', 'ERIKA'), page).surname.agrees, 'unread');
    assert.equal(comparePrinted(zone('MUELLER LUEDENSCHEIDT', 'ERIKA ANNELIESE'), 'a blur').given_names.agrees, 'unread');
  });

  it('finds the dates as pages write them', () => {
    assert.deepEqual([...printedDates('2004-12-07 · 07.12.2004 · 07/12/2004 · 07 DEC 2004 · 08 FEB/FÉV 2001 · 31 JUN 2004')].sort(), ['2001-02-08', '2004-12-07']);
  });
});

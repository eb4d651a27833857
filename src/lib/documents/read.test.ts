import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { faker } from '@faker-js/faker';
import sharp from 'sharp';
import { documentData, photograph, scan } from '../../../bench/documents/generate.js';
import { charKinds, CHECKED, checkDigit, fieldHolds } from './layout.js';
import { readDocumentPhoto, zoneDocument } from './read.js';
import { fitLine } from './recognise.js';

/**
 * Specimen documents nobody here made (the shared data directory's documents/, with their sources
 * and licences in its SOURCES.md; read from there, never copied into the project): a passport page
 * on a white page, a German passport scanned, ICAO's own example passport (UTOPIA), a zone cut
 * out on its own, 146 pixels high, a small scan of the German specimen whose X the recogniser
 * takes for a multiplication sign, and a passport held in hand, small in a tall photo, whose
 * recogniser's looks drop letters of the names in some looks and not in others.
 */
const DIR = new URL('../../../../shared/data/documents/', import.meta.url);
const SPECIMENS = [
  'DocsaidLab__DocClassifier__16c7a6aaef6df8ddf7bc4d9557bef4b9.jpg',
  'DocsaidLab__DocClassifier__b1550d3900b7c41b9f3a510b7e090ebf.jpg',
  'yushulx__python-mrz-scanner-sdk__1.png',
  'kundestyrt-gruppe-5-2022__passport-mrz-reader-public__25899.jpeg',
  'DocsaidLab__DocClassifier__a659ff4055bda34fbe398352cc7429b3.jpg',
  'DocsaidLab__MRZScanner__test_mrz.jpg',
];

describe('documents nobody here made', { skip: !existsSync(new URL('truth.json', DIR)) && 'the shared specimen documents are not beside this checkout' }, () => {
  it('reads specimen passports, scans and a zone cut out, every check digit holding, with no photo problem said', async () => {
    const truth = JSON.parse(readFileSync(new URL('truth.json', DIR), 'utf8')) as Record<string, { mrz: string[] }>;
    for (const file of SPECIMENS) {
      const r = await readDocumentPhoto(readFileSync(new URL(file, DIR)), new Date('2026-11-28T00:00:00Z'));
      assert.deepEqual(r.document?.zone, truth[file]!.mrz, file);
      assert.equal(r.document?.valid, true, file);
      assert.deepEqual(r.problems, [], file);
    }
  });
});

describe('what keeps a photo from being read', () => {
  it('says glare where light blown white hides part of a document, never for a white page', async () => {
    const lines = Array.from({ length: 14 }, (_, i) => `<rect x="60" y="${40 + i * 40}" width="${300 + ((i * 97) % 400)}" height="14" fill="#333"/>`).join('');
    const svg = (background: string, extra = '') =>
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="900" height="620"><rect width="900" height="620" fill="${background}"/>${lines}${extra}</svg>`);
    // A white page with text and no machine-readable zone (a scan, a specimen image): its white is the paper.
    const page = await readDocumentPhoto(await sharp(svg('#ffffff')).jpeg().toBuffer());
    assert.equal(page.document, null);
    assert.ok(!page.problems.includes('glare'), `${page.problems}`);
    // The same page photographed under a lamp: grey paper, a blown-out spot over part of it.
    const spot =
      '<defs><radialGradient id="g"><stop offset="0.6" stop-color="#fff"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><circle cx="600" cy="300" r="190" fill="url(#g)"/>';
    const lit = await readDocumentPhoto(await sharp(svg('#a09a90', spot)).jpeg().toBuffer());
    assert.ok(lit.problems.includes('glare'), `${lit.problems}`);
  });
});

describe("a recognised line fitted to its format's length and kinds", () => {
  const read = (text: string) => [...text].map((char) => ({ char, p: 0.9, second: 0.05, secondChar: '' }));
  it('puts back fillers left out, drops fillers too many, and reads a letter as its look-alike digit where only digits go', () => {
    // ICAO 9303's example passport, its second line with O for 0 in the birth date and three fillers too few.
    const want = 'L898902C36UTO7408122F1204159ZE184226B<<<<<10';
    const kinds = charKinds('TD3')[1]!;
    assert.equal(fitLine(read('L898902C36UTO74O8122F1204159ZE184226B<<10'), kinds).text, want);
    assert.equal(fitLine(read('L898902C36UTO7408122F1204159ZE184226B<<<<<<<<10'), kinds).text, want);
    // The first line: the names' fillers miscounted inside and at the end.
    const names = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<';
    assert.equal(fitLine(read('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<'), charKinds('TD3')[0]!).text, names);
    // A line that needed no more than fillers is cheap; one with letters made up is dear.
    assert.ok(fitLine(read(want), kinds).cost < 0.5);
    assert.ok(fitLine(read('L898902C36UTO7408122F12'), kinds).cost > 4);
  });

  it('says where a letter was lost: two letters in neighbouring cells that stand two pitches apart', () => {
    // ZHANG's Z lost: the recogniser's frames put the H two pitches after the N of CHN.
    const line = 'P<CHNHANG<<WEI'.padEnd(44, '<');
    const at = (gapBefore: number) => [...line.slice(0, 14)].map((char, i) => ({ char, p: 0.9, second: 0.05, secondChar: '', at: i * 4 + (i >= gapBefore ? 4 : 0) }));
    const fitted = fitLine([...at(5), { char: '<', p: 0.9, second: 0.05, secondChar: '', at: 64 }], charKinds('TD3')[0]!);
    assert.equal(fitted.text, line, 'the fit closes the gap up, as no check digit sees');
    assert.deepEqual(fitted.lost, [5]);
    // Evenly spaced, nothing lost; a gap beside a filler is a run of fillers read short.
    assert.deepEqual(fitLine(at(99), charKinds('TD3')[0]!).lost, []);
    assert.deepEqual(fitLine(at(9), charKinds('TD3')[0]!).lost, []);
  });

  it('never passes a document number that begins with a filler, whatever its check digit says', () => {
    // A generated passport's number P7JA0Q50C, its first characters lost on a turned, compressed photo: the line
    // fitted with fillers in their place, and the digit 8 holding by chance.
    const line = '<<71NQ5OC8BRA8707280F2703165<<<<<<<<<<<<<<<8';
    assert.equal(checkDigit(line.slice(0, 9)), '8');
    assert.equal(fieldHolds(line, CHECKED.TD3[0]!), false);
    assert.equal(fieldHolds('P7JA0Q50C8BRA8707280F2703165<<<<<<<<<<<<<<<8', CHECKED.TD3[0]!), true);
    // A line's first cell is no cheaper for a filler than any other.
    assert.equal(fitLine(read('7JA0Q50C8BRA8707280F2703165<<<<<<<<<<<<<<<8'), charKinds('TD3')[1]!).text.startsWith('<'), false);
  });
});

describe('visas and the French identity card of 1988 to 2021, each in its own layout', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'layouts-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("parses ICAO's specimen visas and a French card's zone with their own fields and check digits", () => {
    const today = new Date('2026-12-01T00:00:00Z');
    // ICAO 9303 part 7's MRV-A: optional data where a passport has its personal number, no composite.
    const a = zoneDocument(['VIUSATRAVELER<<HAPPYPERSON<<<<<<<<<<<<<<<<<<', '555123ABC6GBR6502056F04122361FLNDDDAM5803085'], today)!;
    assert.equal(a.format, 'MRV-A');
    assert.deepEqual([a.document_type.value, a.issuing_state.value, a.nationality.value, a.surname.value, a.given_names.value], ['VI', 'USA', 'GBR', 'TRAVELER', 'HAPPYPERSON']);
    assert.deepEqual([a.document_number.check, a.birth_date.check, a.expiry_date.check, a.optional_data.check, a.composite], ['valid', 'valid', 'valid', 'none', 'none']);
    assert.equal(a.optional_data.value, '1FLNDDDAM5803085');
    assert.equal(a.valid, true);
    // MRV-B, 2 × 36, told from a TD2 card by its V.
    const b = zoneDocument(['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'], today)!;
    assert.equal(b.format, 'MRV-B');
    assert.deepEqual([b.document_number.value, b.birth_date.value, b.expiry_date.value, b.given_names.value, b.valid], ['L8988901C', '1940-09-07', '1996-12-10', 'ANNA MARIA', true]);
    // A figure changed is caught by its digit, as in any zone.
    assert.equal(zoneDocument(['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612119<<<<<<<<'], today)!.valid, false);
    // The French card: its number of 12 (issued June 2005, office 932), the given names on the
    // second line, no nationality (FRA: only French citizens hold it), and its life from its issue
    // month: fifteen years for a card issued from 2004 to 2013 to an adult.
    const fr = zoneDocument(['IDFRADOUEL<<<<<<<<<<<<<<<<<<<<932013', '0506932020438CHRISTIANE<<NI2906209F3'], today)!;
    assert.equal(fr.format, 'FR-ID');
    assert.deepEqual(
      [fr.document_number.value, fr.surname.value, fr.given_names.value, fr.nationality.value, fr.birth_date.value, fr.expiry_date.value],
      ['050693202043', 'DOUEL', 'CHRISTIANE NI', 'FRA', '1929-06-20', '2020-06-30'],
    );
    assert.deepEqual([fr.document_number.check, fr.birth_date.check, fr.composite, fr.valid], ['valid', 'valid', 'valid', true]);
  });

  for (const format of ['MRV-A', 'MRV-B', 'FR-ID'] as const) {
    it(`reads a photo and a scan of a ${format}, every field as written`, async () => {
      faker.seed(format.length * 31 + format.charCodeAt(4));
      for (const take of [photograph, scan]) {
        const truth = documentData(faker, format);
        const file = path.join(dir, `${format}-${take.name}.jpg`);
        await take(faker, truth, file);
        const r = await readDocumentPhoto(readFileSync(file), new Date('2026-12-01T00:00:00Z'));
        const doc = r.document!;
        assert.equal(doc.format, format, take.name);
        assert.deepEqual(doc.zone, truth.lines, take.name);
        assert.deepEqual(
          [doc.document_number.value, doc.surname.value, doc.given_names.value, doc.nationality.value, doc.birth_date.value, doc.expiry_date.value, doc.valid],
          [truth.documentNumber, truth.surname.replace(/</g, ' '), truth.givenNames.replace(/</g, ' '), truth.nationality, truth.birthDate, truth.expiryDate, true],
          take.name,
        );
      }
    });
  }
});

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { charKinds, CHECKED, checkDigit, fieldHolds } from './layout.js';
import { readDocumentPhoto } from './read.js';
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

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { readDocumentPhoto } from './read.js';

/**
 * Specimen documents nobody here made (the shared data directory's documents/, with their sources
 * and licences in its SOURCES.md; read from there, never copied into the project): a passport page
 * on a white page, a German passport scanned, ICAO's own example passport (UTOPIA), and a zone cut
 * out on its own, 146 pixels high.
 */
const DIR = new URL('../../../../shared/data/documents/', import.meta.url);
const SPECIMENS = [
  'DocsaidLab__DocClassifier__16c7a6aaef6df8ddf7bc4d9557bef4b9.jpg',
  'DocsaidLab__DocClassifier__b1550d3900b7c41b9f3a510b7e090ebf.jpg',
  'yushulx__python-mrz-scanner-sdk__1.png',
  'kundestyrt-gruppe-5-2022__passport-mrz-reader-public__25899.jpeg',
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

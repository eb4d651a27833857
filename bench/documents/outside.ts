/**
 * The reader on documents nobody here made: the specimen passports, ID cards and visas of public
 * repositories in the shared data directory (`documents/`, each image labelled with its zone's
 * lines in truth.json, with its source and licence; never copied into the project). Reported per
 * source, and split in two by source: the part the reader was tuned on, and the part held out,
 * whose figure is the one to quote. Each is read as the worker reads a reading's photos (the zone,
 * then the printed page beside it), and timed so. Run by bench/documents/run.ts before the
 * generated documents.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { zoneDocument, type ReadDocument } from '../../src/lib/documents/read.js';
import { readDocumentSet } from '../../src/lib/documents/set.js';
import { ImageRefused } from '../../src/lib/documents/image.js';

const FIELDS = ['document_number', 'surname', 'given_names', 'nationality', 'birth_date', 'sex', 'expiry_date'] as const;

/** The repositories the reader was tuned on; every other source is held out. */
const TUNED_ON = new Set(['DocsaidLab/DocClassifier', 'DocsaidLab/MRZScanner']);

interface Label {
  mrz: string[];
  format: string;
  repo: string;
  label: string;
}

export interface OutsideResult {
  part: string;
  sources: string[];
  documents: number;
  every_field_right_pct: number;
  zone_exact_pct: number;
  misreads_passed_by_a_check_digit: number;
  /** Documents read with a field wrong and answered `valid: true` (a name has no check digit to catch it). */
  misreads_passed_as_valid: number;
  /** Documents whose printed name was read and is the zone's (name_confirmed). */
  names_confirmed: number;
  said_screen: number;
  ms_median: number;
  ms_p95: number;
  wrong: { file: string; problems: string[]; got: string[] | null; want: string[] }[];
}

const pct = (k: number, n: number) => (n ? Math.round((k / n) * 1000) / 10 : 0);

export async function readOutside(dir: string, today: Date): Promise<OutsideResult[] | null> {
  const truthFile = path.join(dir, 'truth.json');
  if (!existsSync(truthFile)) return null;
  const truth = JSON.parse(readFileSync(truthFile, 'utf8')) as Record<string, Label>;
  const parts = new Map<
    string,
    { sources: Set<string>; n: number; right: number; exact: number; passed: number; validWrong: number; confirmed: number; screens: number; ms: number[]; wrong: OutsideResult['wrong'] }
  >();
  for (const [file, label] of Object.entries(truth)) {
    const part = TUNED_ON.has(label.repo) ? 'tuned on' : 'held out';
    const p = parts.get(part) ?? { sources: new Set(), n: 0, right: 0, exact: 0, passed: 0, validWrong: 0, confirmed: 0, screens: 0, ms: [], wrong: [] };
    parts.set(part, p);
    p.sources.add(label.repo);
    p.n++;
    const want = zoneDocument(label.mrz, today);
    const started = performance.now();
    let doc: ReadDocument | null = null;
    let problems: string[] = [];
    try {
      // Read as the worker reads a reading's photos: the zone, then the printed page beside it.
      const r = (await readDocumentSet([readFileSync(path.join(dir, file))], today)).reading;
      [doc, problems] = [r.document, r.problems];
    } catch (err) {
      if (!(err instanceof ImageRefused)) throw err;
      problems = [`refused: ${err.message}`];
    }
    p.ms.push(performance.now() - started);
    if (problems.includes('screen_photo')) p.screens++;
    let right = !!doc && !!want;
    for (const f of FIELDS) {
      const [got, expected] = [doc?.[f], want?.[f]];
      if (got?.value !== expected?.value) {
        right = false;
        if (got?.check === 'valid') p.passed++;
      }
    }
    if (doc?.name_confirmed) p.confirmed++;
    if (right) p.right++;
    else if (doc?.valid) p.validWrong++;
    if (doc?.zone.join('\n') === label.mrz.join('\n')) p.exact++;
    else p.wrong.push({ file, problems, got: doc?.zone ?? null, want: label.mrz });
  }
  return [...parts].map(([part, p]) => ({
    part,
    sources: [...p.sources].sort(),
    documents: p.n,
    every_field_right_pct: pct(p.right, p.n),
    zone_exact_pct: pct(p.exact, p.n),
    misreads_passed_by_a_check_digit: p.passed,
    misreads_passed_as_valid: p.validWrong,
    names_confirmed: p.confirmed,
    said_screen: p.screens,
    ms_median: Math.round([...p.ms].sort((a, b) => a - b)[p.ms.length >> 1] ?? 0),
    ms_p95: Math.round([...p.ms].sort((a, b) => a - b)[Math.min(p.ms.length - 1, Math.ceil(p.ms.length * 0.95) - 1)] ?? 0),
    wrong: p.wrong,
  }));
}

/**
 * npm run bench:faces: how well faces are told apart (src/lib/faces), on labelled photos of
 * people (Labeled Faces in the Wild: 60 people, three photos each, in the shared data directory,
 * never copied into the project).
 *
 * Photo pairs: every pair of photos of one person is a true pair, every pair of two people a
 * false one. The threshold is calibrated on half the people (the most distance at which no more
 * than 1 % of their false pairs match) and measured on the other half, and the other way round:
 * the rates printed are those of people the calibration never saw. Then the service's own
 * thresholds (lib/faces/compare.ts) on every pair: how many of each kind get each verdict.
 *
 * Document pairs: each person's first photo printed as the portrait of a generated passport or
 * ID card, photographed on a table (bench/documents/generate.ts) and read by the service's reader;
 * the face on the document cut out of the photo against the person's other two photos (true
 * pairs), another person's (false pairs), and the very photo printed (a copy); and the
 * document's own photo sent as the selfie (the document held up to the camera), which the
 * not_the_document signal must catch, against a genuine selfie, which it must not.
 *
 * Prints the time a photo takes, the time two photos' comparison takes, the time a document and a selfie take together (lib/faces/selfie
 * .ts, the job's own work) and the peak memory face matching adds to the process that runs it,
 * with the flags the service's reading process runs with (package.json); writes
 * bench/results/faces.json.
 *
 *   npm run bench:faces                   (FACES_DIR=dir for another set of <Name>__NNNN.jpg photos)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDocumentSet } from '../../src/lib/documents/set.js';
import { APART_DISTANCE, comparePhotos, faceIn, judgeDistance, SAME_DISTANCE, SURE_DISTANCE } from '../../src/lib/faces/compare.js';
import { faceDistance } from '../../src/lib/faces/faces.js';
import { checkSelfie, COPY_DISTANCE } from '../../src/lib/faces/selfie.js';
import { generateDocuments } from '../documents/generate.js';
import { peakRssMb } from '../processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = process.env.FACES_DIR ?? path.join(ROOT, '..', 'shared', 'data', 'faces');
const MOST_FALSE = 0.01;
const peakMb = () => peakRssMb(process.pid);
const log = (m: string) => process.stderr.write(`[faces] ${m}\n`);
const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const files = readdirSync(DIR)
  .filter((f) => /__\d+\.jpe?g$/i.test(f))
  .sort();
const before = peakMb();
const times: number[] = [];
const photos: { person: string; file: string; descriptor: Float32Array | null }[] = [];
for (const file of files) {
  const data = readFileSync(path.join(DIR, file));
  const started = performance.now();
  const face = await faceIn(data);
  times.push(performance.now() - started);
  photos.push({ person: file.split('__')[0]!, file, descriptor: face?.descriptor ?? null });
}
const afterPhotos = peakMb();
log(`${photos.length} photos described, median ${Math.round(median(times))} ms`);
// POST /v1/identity/compare's own work: two photos opened, their faces found, described and judged.
const compareTimes: number[] = [];
for (let i = 0; i + 1 < Math.min(files.length, 60); i += 2) {
  const [a, b] = [readFileSync(path.join(DIR, files[i]!)), readFileSync(path.join(DIR, files[i + 1]!))];
  const started = performance.now();
  await comparePhotos(a, b);
  compareTimes.push(performance.now() - started);
}
log(`${compareTimes.length} comparisons of two photos, median ${Math.round(median(compareTimes))} ms`);

type Pair = { same: boolean; distance: number | null; people: [string, string] };
const pairs: Pair[] = [];
for (let i = 0; i < photos.length; i++)
  for (let j = i + 1; j < photos.length; j++) {
    const [a, b] = [photos[i]!, photos[j]!];
    pairs.push({ same: a.person === b.person, distance: a.descriptor && b.descriptor ? faceDistance(a.descriptor, b.descriptor) : null, people: [a.person, b.person] });
  }

/** The largest threshold at which no more than `mostFalse` of the false pairs match (a pair with a face missing never matches). */
function calibrate(of: Pair[], mostFalse = MOST_FALSE): number {
  const distances = of
    .filter((p) => !p.same && p.distance !== null)
    .map((p) => p.distance!)
    .sort((a, b) => a - b);
  const allowed = Math.floor(of.filter((p) => !p.same).length * mostFalse);
  return distances[allowed] ?? Infinity;
}
const rates = (of: Pair[], threshold: number) => {
  const matched = (p: Pair) => p.distance !== null && p.distance < threshold;
  const truePairs = of.filter((p) => p.same);
  const falsePairs = of.filter((p) => !p.same);
  return {
    true_pairs: truePairs.length,
    true_match_pct: (100 * truePairs.filter(matched).length) / truePairs.length,
    false_pairs: falsePairs.length,
    false_match_pct: (100 * falsePairs.filter(matched).length) / falsePairs.length,
  };
};

const people = [...new Set(photos.map((p) => p.person))].sort();

/**
 * Look-alikes: pairs of two people of the same sex and age band (pairs-lookalike.csv, one's first
 * photo against the other's second), the impostors a fraudster with someone else's passport is.
 * "Same person" is calibrated on these, not on random strangers, most of whom differ in sex or age.
 */
const descriptorOf = new Map(photos.map((p) => [p.file, p.descriptor]));
const lookalikeFile = path.join(DIR, 'pairs-lookalike.csv');
const lookalikes: Pair[] = existsSync(lookalikeFile)
  ? readFileSync(lookalikeFile, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(','))
      .filter(([a, b]) => descriptorOf.has(a!) && descriptorOf.has(b!))
      .map(([a, b]) => {
        const [da, db] = [descriptorOf.get(a!)!, descriptorOf.get(b!)!];
        return { same: false, distance: da && db ? faceDistance(da, db) : null, people: [a!.split('__')[0]!, b!.split('__')[0]!] as [string, string] };
      })
  : [];
/** The largest count of false matches in n pairs that is still consistent, at 95 %, with a rate of `rate`: how sure a measured rate is. */
const upper95 = (k: number, n: number) => {
  // The exact (Clopper-Pearson) upper bound, by bisection on the binomial's tail.
  const tail = (p: number) => {
    let [term, sum] = [(1 - p) ** n, 0];
    for (let i = 0; i <= k; i++) {
      sum += term;
      term *= ((n - i) / (i + 1)) * (p / (1 - p));
    }
    return sum;
  };
  let [lo, hi] = [k / n, 1];
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (tail(mid) > 0.025) lo = mid;
    else hi = mid;
  }
  return round1(100 * hi);
};
const half = (k: number) => new Set(people.filter((_, i) => i % 2 === k));
const folds = [0, 1].map((k) => {
  const [tune, test] = [half(k), half(1 - k)];
  const within = (set: Set<string>) => pairs.filter((p) => set.has(p.people[0]) && set.has(p.people[1]));
  const threshold = calibrate(within(tune));
  return { threshold: round3(threshold), ...rates(within(test), threshold) };
});
/**
 * The share of look-alikes the service's distance is set to let through, read off a normal
 * distribution fitted to their distances: with some ninety pairs a half, the empirical 1 % is the
 * single closest pair, which moved the threshold by 0.04 from one half to the other. Under half
 * the goal: the shared look-alikes are strangers of one sex and age band, and siblings come closer.
 */
const LOOKALIKE_TAIL = 0.004;
/** The standard normal's distribution function (Abramowitz and Stegun 7.1.26, to 1.5e-7). */
function normalCdf(z: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(z)) / Math.SQRT2);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
/** A normal distribution fitted to the look-alikes' distances (their mean and spread). */
function fitTail(of: Pair[]) {
  const d = of.filter((p) => p.distance !== null).map((p) => p.distance!);
  const mean = d.reduce((a, b) => a + b, 0) / d.length;
  const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / d.length);
  /** The share of look-alikes closer than `distance`, by the fit. */
  const below = (distance: number) => normalCdf((distance - mean) / sd);
  /** The distance below which `share` of look-alikes lie, by the fit (bisection). */
  const at = (share: number) => {
    let [lo, hi] = [mean - 6 * sd, mean];
    for (let i = 0; i < 60; i++) [lo, hi] = below((lo + hi) / 2) < share ? [(lo + hi) / 2, hi] : [lo, (lo + hi) / 2];
    return lo;
  };
  return { mean, sd, below, at };
}
/** Look-alike folds: a pair is in the half of its first person; calibrated on one half's look-alikes (their fitted tail), measured on the other half's look-alikes and true pairs. */
const lookalikeFolds = [0, 1].map((k) => {
  const [tune, test] = [half(k), half(1 - k)];
  const of = (set: Set<string>) => [...pairs.filter((p) => p.same && set.has(p.people[0])), ...lookalikes.filter((p) => set.has(p.people[0]))];
  const threshold = fitTail(lookalikes.filter((p) => tune.has(p.people[0]))).at(LOOKALIKE_TAIL);
  const r = rates(of(test), threshold);
  return { threshold: round3(threshold), true_pairs: r.true_pairs, true_match_pct: round1(r.true_match_pct), lookalike_pairs: r.false_pairs, lookalike_match_pct: round1(r.false_match_pct) };
});
const matchedAt = (of: Pair[], d: number) => of.filter((p) => p.distance !== null && p.distance < d).length;
const pooled = {
  true_match_pct: (folds[0]!.true_match_pct * folds[0]!.true_pairs + folds[1]!.true_match_pct * folds[1]!.true_pairs) / (folds[0]!.true_pairs + folds[1]!.true_pairs),
  false_match_pct: (folds[0]!.false_match_pct * folds[0]!.false_pairs + folds[1]!.false_match_pct * folds[1]!.false_pairs) / (folds[0]!.false_pairs + folds[1]!.false_pairs),
};

/** How many pairs of each kind get each of the service's verdicts, in %. */
function verdicts(of: { same: boolean; distance: number | null }[]) {
  const share = (kind: boolean) => {
    const these = of.filter((p) => p.same === kind);
    const count = (v: string) => round1((100 * these.filter((p) => judgeDistance(p.distance).verdict === v).length) / Math.max(1, these.length));
    return { pairs: these.length, same_person_pct: count('same_person'), cannot_tell_pct: count('cannot_tell'), not_same_person_pct: count('not_same_person') };
  };
  return { true_pairs: share(true), false_pairs: share(false) };
}

// Document pairs: each person's first photo on a document, read, against their other photos and another person's.
const firsts = people.map((person) => photos.find((p) => p.person === person)!);
const docDir = mkdtempSync(path.join(tmpdir(), 'faces-documents-'));
const documents = await generateDocuments(docDir, firsts.length, 13, { portraits: firsts.map((p) => readFileSync(path.join(DIR, p.file))), fronts: true });
const documentPairs: { same: boolean; distance: number | null; copy?: boolean }[] = [];
/** Each person's document portrait, for the look-alike pairs: the portrait against the look-alike's selfie. */
const portraitOf = new Map<string, Float32Array | null>();
const selfieTimes: number[] = [];
/** Whether not_the_document failed: on the document's own photo sent as the selfie, and on another photo of its person. */
const heldUp = { copies: [] as boolean[], genuine: [] as boolean[] };
const failed = (c: Awaited<ReturnType<typeof checkSelfie>>, code: string) => c.liveness.signals.some((x) => x.code === code && x.result === 'failed');
let read = 0;
for (const [i, doc] of documents.entries()) {
  const person = firsts[i]!.person;
  // Read as the service reads it (an ID card's back and front together), and compared on what the
  // service compares: the picture it keeps, the passport's page cut out or the card's front upright.
  const set = await readDocumentSet([readFileSync(doc.file), ...(doc.front ? [readFileSync(doc.front)] : [])], new Date('2026-11-26'));
  const candidates = set.crop ? [set.crop] : [];
  if (set.crop) read++;
  let portrait: Awaited<ReturnType<typeof faceIn>> = null;
  for (const c of candidates) {
    const f = await faceIn(c).catch(() => null);
    if (f && (!portrait || f.share > portrait.share)) portrait = f;
  }
  const d = (b: Float32Array | null) => (portrait?.descriptor && b ? faceDistance(portrait.descriptor, b) : null);
  portraitOf.set(person, portrait?.descriptor ?? null);
  for (const other of photos.filter((p) => p.person === person && p !== firsts[i])) documentPairs.push({ same: true, distance: d(other.descriptor) });
  documentPairs.push({ same: true, distance: d(firsts[i]!.descriptor), copy: true });
  const stranger = photos.find((p) => p.person === people[(i + 1) % people.length] && p !== firsts[(i + 1) % people.length])!;
  documentPairs.push({ same: false, distance: d(stranger.descriptor) });
  // The job's own work for a document and a selfie: both faces found and described, and the selfie's liveness signals.
  const selfie = photos.find((p) => p.person === person && p !== firsts[i])!;
  const started = performance.now();
  const genuineCheck = await checkSelfie(candidates, readFileSync(path.join(DIR, selfie.file)), []);
  selfieTimes.push(performance.now() - started);
  heldUp.genuine.push(failed(genuineCheck, 'not_the_document'));
  // The document itself held up to the camera as the selfie: its photo sent again as one.
  heldUp.copies.push(failed(await checkSelfie(candidates, readFileSync(doc.file), []), 'not_the_document'));
}
rmSync(docDir, { recursive: true, force: true });
log(`${documents.length} documents read (${read} cut out of their photo), median ${Math.round(median(selfieTimes))} ms for a document and a selfie`);
const copies = documentPairs.filter((p) => p.copy);
const documentLookalikes = lookalikes.map((p) => {
  const [portrait, selfie] = [portraitOf.get(p.people[0]), photos.find((x) => x.person === p.people[1] && x.file.endsWith('0002.jpg'))?.descriptor];
  return { same: false, distance: portrait && selfie ? faceDistance(portrait, selfie) : null };
});
const genuine = documentPairs.filter((p) => !p.copy);

const sorted = [...times].sort((a, b) => a - b);
const trueDistances = pairs
  .filter((p) => p.same && p.distance !== null)
  .map((p) => p.distance!)
  .sort((a, b) => a - b);
const distancesOf = (of: { distance: number | null }[]) =>
  of
    .filter((p) => p.distance !== null)
    .map((p) => p.distance!)
    .sort((a, b) => a - b);
const at = (xs: number[], q: number) => round3(xs[Math.min(xs.length - 1, Math.floor(xs.length * q))]!);
const result = {
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 3).join(' ')}, Node ${process.version}`,
  photos: photos.length,
  people: people.length,
  faces_found: photos.filter((p) => p.descriptor).length,
  ms_per_photo: { median: Math.round(sorted[sorted.length >> 1]!), p90: Math.round(sorted[Math.floor(sorted.length * 0.9)]!), first: Math.round(times[0]!) },
  /** Two photos compared (POST /v1/identity/compare's work, in the reading process). */
  ms_compare: (() => {
    const c = [...compareTimes].sort((a, b) => a - b);
    return { pairs: c.length, median: Math.round(median(c)), p90: Math.round(c[Math.floor(c.length * 0.9)]!) };
  })(),
  /** Calibrated on one half of the people, measured on the other, both ways. */
  folds: folds.map((f) => ({ ...f, true_match_pct: round1(f.true_match_pct), false_match_pct: round1(f.false_match_pct) })),
  held_out: { true_match_pct: round1(pooled.true_match_pct), false_match_pct: round1(pooled.false_match_pct) },
  /** The distances calibrated on every person: at 1 % and 0.1 % false matches (compare.ts's SAME_DISTANCE and SURE_DISTANCE). */
  threshold_all: round3(calibrate(pairs)),
  threshold_all_0_1_pct: round3(calibrate(pairs, 0.001)),
  true_distances: { min: at(trueDistances, 0), p50: at(trueDistances, 0.5), p95: at(trueDistances, 0.95), p99: at(trueDistances, 0.99), max: at(trueDistances, 1) },
  /**
   * Look-alikes (pairs-lookalike.csv) beside random strangers, at the service's SAME_DISTANCE:
   * how many are called the same person, and the most that rate can be at 95 % confidence given
   * the pairs counted; then calibrated on one half of the people and measured on the other.
   */
  lookalikes: {
    pairs: lookalikes.length,
    same_person: matchedAt(lookalikes, SAME_DISTANCE),
    same_person_pct: round1((100 * matchedAt(lookalikes, SAME_DISTANCE)) / Math.max(1, lookalikes.length)),
    same_person_pct_95_upper: upper95(matchedAt(lookalikes, SAME_DISTANCE), lookalikes.length),
    random_strangers_same_person_pct: round3(
      (100 *
        matchedAt(
          pairs.filter((p) => !p.same),
          SAME_DISTANCE,
        )) /
        pairs.filter((p) => !p.same).length,
    ),
    true_pairs_same_person_pct: round1(
      (100 *
        matchedAt(
          pairs.filter((p) => p.same),
          SAME_DISTANCE,
        )) /
        pairs.filter((p) => p.same).length,
    ),
    folds: lookalikeFolds,
    /** The normal fitted to every look-alike's distance: the distance at LOOKALIKE_TAIL (compare.ts's SAME_DISTANCE is set from it), and the share it puts closer than SAME_DISTANCE. */
    fitted: (() => {
      const fit = fitTail(lookalikes);
      return {
        mean: round3(fit.mean),
        sd: round3(fit.sd),
        tail_pct: 100 * LOOKALIKE_TAIL,
        distance_at_tail: round3(fit.at(LOOKALIKE_TAIL)),
        same_person_pct_at_same_distance: round3(100 * fit.below(SAME_DISTANCE)),
      };
    })(),
    document_portrait_against_lookalike_selfie: {
      pairs: documentLookalikes.length,
      /** The closest look-alike selfies came to a document's portrait, and the distances of a portrait against its own person's photos. */
      closest: distancesOf(documentLookalikes).slice(0, 3).map(round3),
      true_distances: (() => {
        const d = distancesOf(genuine.filter((p) => p.same));
        return { p50: at(d, 0.5), p90: at(d, 0.9), p95: at(d, 0.95) };
      })(),
      same_person: documentLookalikes.filter((p) => judgeDistance(p.distance).verdict === 'same_person').length,
      same_person_pct_95_upper: upper95(documentLookalikes.filter((p) => judgeDistance(p.distance).verdict === 'same_person').length, documentLookalikes.length),
    },
  },
  /** The service's verdicts (compare.ts) on every photo pair. */
  service: { same_distance: SAME_DISTANCE, sure_distance: SURE_DISTANCE, apart_distance: APART_DISTANCE, photo_pairs: verdicts(pairs) },
  documents: {
    read: documents.length,
    cut_out: read,
    portraits_found: documents.length - copies.filter((p) => p.distance === null).length,
    /** The document's portrait against the person's other photos, and another person's. */
    verdicts: verdicts(genuine),
    /** The portrait against the very photo printed on the document: a copy, which not_the_document must catch below COPY_DISTANCE. */
    copy_distance: COPY_DISTANCE,
    copy_distances: (() => {
      const d = copies
        .filter((p) => p.distance !== null)
        .map((p) => p.distance!)
        .sort((a, b) => a - b);
      return { p50: at(d, 0.5), p90: at(d, 0.9), max: at(d, 1) };
    })(),
    copies_closer_than_copy_distance_pct: round1((100 * copies.filter((p) => p.distance !== null && p.distance < COPY_DISTANCE).length) / copies.length),
    genuine_closer_than_copy_distance_pct: round1((100 * genuine.filter((p) => p.same && p.distance !== null && p.distance < COPY_DISTANCE).length) / genuine.filter((p) => p.same).length),
    /** not_the_document as the service reads it (a zone in the selfie, or a face as close as a copy): the document's photo sent as the selfie, and a genuine selfie. */
    held_up_caught_pct: round1((100 * heldUp.copies.filter(Boolean).length) / heldUp.copies.length),
    genuine_selfies_flagged_pct: round1((100 * heldUp.genuine.filter(Boolean).length) / heldUp.genuine.length),
    ms_document_and_selfie: {
      median: Math.round(median(selfieTimes)),
      p90: Math.round(
        at(
          selfieTimes.sort((a, b) => a - b),
          0.9,
        ),
      ),
    },
  },
  /** The process's peak before any face was looked for, and after the photos (face matching alone; the documents' reading adds its own after). */
  peak_rss_mb: { before_models: before, after_faces: afterPhotos, added: afterPhotos - before },
  target: { true_match_pct: 90, lookalike_match_pct: 1, ms_compare: 1000, ms_document_and_selfie: 1000, added_mb: 300 },
};
writeFileSync(new URL('../results/faces.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);

/**
 * npm run bench:faces: how well faces are told apart (src/lib/faces), on labelled photos of
 * people (Labeled Faces in the Wild: 60 people, three photos each, in the shared data directory,
 * never copied into the project). Every pair of photos of one person is a true pair, every pair of
 * two people a false one. The threshold is calibrated on half the people (the most distance at
 * which no more than 1 % of their false pairs match) and measured on the other half, and the
 * other way round: the true-match and false-match rates printed are those of people the
 * calibration never saw. Prints the time a photo takes and the process's peak memory; writes
 * bench/results/faces.json.
 *
 *   npm run bench:faces                   (FACES_DIR=dir for another set of <Name>__NNNN.jpg photos)
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describeFace, faceDistance } from '../../src/lib/faces/faces.js';
import { peakRssMb } from '../processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = process.env.FACES_DIR ?? path.join(ROOT, '..', 'shared', 'data', 'faces');
const MOST_FALSE = 0.01;
const peakMb = () => peakRssMb(process.pid);

const files = readdirSync(DIR)
  .filter((f) => /__\d+\.jpe?g$/i.test(f))
  .sort();
const before = peakMb();
const times: number[] = [];
const photos: { person: string; descriptor: Float32Array | null }[] = [];
for (const file of files) {
  const { data, info } = await sharp(path.join(DIR, file)).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const started = performance.now();
  const face = await describeFace({ data, width: info.width, height: info.height });
  times.push(performance.now() - started);
  photos.push({ person: file.split('__')[0]!, descriptor: face?.descriptor ?? null });
}

type Pair = { same: boolean; distance: number | null; people: [string, string] };
const pairs: Pair[] = [];
for (let i = 0; i < photos.length; i++)
  for (let j = i + 1; j < photos.length; j++) {
    const [a, b] = [photos[i]!, photos[j]!];
    pairs.push({ same: a.person === b.person, distance: a.descriptor && b.descriptor ? faceDistance(a.descriptor, b.descriptor) : null, people: [a.person, b.person] });
  }

/** The largest threshold at which no more than MOST_FALSE of the false pairs match (a pair with a face missing never matches). */
function calibrate(of: Pair[]): number {
  const distances = of
    .filter((p) => !p.same && p.distance !== null)
    .map((p) => p.distance!)
    .sort((a, b) => a - b);
  const allowed = Math.floor(of.filter((p) => !p.same).length * MOST_FALSE);
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
const half = (k: number) => new Set(people.filter((_, i) => i % 2 === k));
const folds = [0, 1].map((k) => {
  const [tune, test] = [half(k), half(1 - k)];
  const within = (set: Set<string>) => pairs.filter((p) => set.has(p.people[0]) && set.has(p.people[1]));
  const threshold = calibrate(within(tune));
  return { threshold: Math.round(threshold * 1000) / 1000, ...rates(within(test), threshold) };
});
const pooled = {
  true_match_pct: (folds[0]!.true_match_pct * folds[0]!.true_pairs + folds[1]!.true_match_pct * folds[1]!.true_pairs) / (folds[0]!.true_pairs + folds[1]!.true_pairs),
  false_match_pct: (folds[0]!.false_match_pct * folds[0]!.false_pairs + folds[1]!.false_match_pct * folds[1]!.false_pairs) / (folds[0]!.false_pairs + folds[1]!.false_pairs),
};
const sorted = [...times].sort((a, b) => a - b);
const round1 = (x: number) => Math.round(x * 10) / 10;
const result = {
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 3).join(' ')}, Node ${process.version}`,
  photos: photos.length,
  people: people.length,
  faces_found: photos.filter((p) => p.descriptor).length,
  ms_per_photo: { median: Math.round(sorted[sorted.length >> 1]!), p90: Math.round(sorted[Math.floor(sorted.length * 0.9)]!), first: Math.round(times[0]!) },
  /** Calibrated on one half of the people, measured on the other, both ways. */
  folds: folds.map((f) => ({ ...f, true_match_pct: round1(f.true_match_pct), false_match_pct: round1(f.false_match_pct) })),
  held_out: { true_match_pct: round1(pooled.true_match_pct), false_match_pct: round1(pooled.false_match_pct) },
  /** The threshold calibrated on every person: the one the service would use. */
  threshold_all: Math.round(calibrate(pairs) * 1000) / 1000,
  peak_rss_mb: { before_models: before, after: peakMb() },
  target: { true_match_pct: 95, false_match_pct: 1 },
};
writeFileSync(new URL('../results/faces.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);

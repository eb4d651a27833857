/**
 * `npm run bench:matching`: the name matcher against the labelled pairs of pairs.json
 * (make-pairs.ts), on the held-out half (or `--half tune`); against the dev half of
 * nomenklatura's name_bench by case group, beside OpenSanctions' logic-v2 on the same pairs; and the sanctions search over the
 * shipped OFAC lists as the screening checks run it. Prints precision, recall and F1 at the
 * sanctions threshold with each kind of pair's recall or false hits; over the whole lists, the
 * listed people found (first and last name only, a typo, their own script), the unlisted guests
 * with a hit by their name alone and with a birth year that disagrees, and the time a search takes.
 *
 *   npm run bench:matching [-- --half tune] [--record]
 */
import { parse } from 'csv-parse/sync';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { matchName, NAME_THRESHOLD } from '../../src/lib/names/match.js';
import { loadBundledLists } from '../../src/providers/sanctions/bundled.js';
import { SANCTIONS_THRESHOLD, searchSanctions, type SanctionsHit } from '../../src/providers/sanctions/index.js';
import { createTestApp } from '../../test/harness.js';
import type { Pair } from './make-pairs.js';
import { logicV2Predictions } from './logic-v2.js';

const { values } = parseArgs({ options: { half: { type: 'string', default: 'held-out' }, record: { type: 'boolean', default: false } } });
const file = JSON.parse(readFileSync(new URL('./pairs.json', import.meta.url), 'utf8')) as { pairs: Pair[]; source: string[] };
const pairs = file.pairs.filter((p) => p.half === values.half);
const out = (line: string) => process.stdout.write(`${line}\n`);
const kindOf = (p: Pair) => p.kind.replace(/ \(.*\)$/, '');
const results: Record<string, unknown> = { half: values.half, pairs: pairs.length, of: file.pairs.length, source: file.source, threshold: SANCTIONS_THRESHOLD };
const misses: string[] = [];

// Pairs: each query against its listed name.
const scores = (subset: Pair[], noteMisses = false) => {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of subset) {
    const m = matchName(p.query, p.listed);
    const hit = m.score >= SANCTIONS_THRESHOLD;
    if (hit && p.same) tp += 1;
    if (hit && !p.same) fp += 1;
    if (!hit && p.same) fn += 1;
    if (noteMisses && hit !== (p.same === 1)) misses.push(`${p.same ? 'missed' : 'false hit'} [${p.kind}] ${m.explanation}`);
  }
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  return { tp, fp, fn, precision, recall, f1: (2 * precision * recall) / Math.max(1e-9, precision + recall) };
};
const total = scores(pairs, true);
const byKind: Record<string, { n: number; same: boolean; hits: number; rate: number; precision: number; recall: number; f1: number }> = {};
const positives = pairs.filter((p) => p.same);
for (const kind of [...new Set(pairs.map(kindOf))]) {
  const of = pairs.filter((p) => kindOf(p) === kind);
  const same = of[0]?.same === 1;
  // A kind's F1: its positives alone, or its negatives against every positive.
  const s = scores(same ? of : [...of, ...positives]);
  const hits = same ? s.tp : s.fp;
  byKind[kind] = { n: of.length, same, hits, rate: hits / of.length, precision: s.precision, recall: s.recall, f1: s.f1 };
}
results.pairScores = { ...total, byKind };
out(
  `${pairs.length} labelled pairs of ${file.pairs.length} (the ${values.half} half), threshold ${SANCTIONS_THRESHOLD}: precision ${total.precision.toFixed(3)}, recall ${total.recall.toFixed(3)}, F1 ${total.f1.toFixed(3)}`,
);
for (const [kind, k] of Object.entries(byKind)) {
  out(
    `  ${kind.padEnd(44)} ${k.same ? 'recall    ' : 'false hits'} ${k.rate.toFixed(3)} (${k.hits} of ${k.n})  precision ${k.precision.toFixed(3)} recall ${k.recall.toFixed(3)} F1 ${k.f1.toFixed(3)}`,
  );
}

// nomenklatura's name_bench, the dev half of its Person pairs (../shared/data/names, never copied
// into the project): a listed name (name2) on a blocklist, a guest of the other name (name1)
// screened against it at the screening's threshold, as the blocklist check matches names.
const NAME_BENCH = new URL('../../../shared/data/names/name_bench_person_dev.csv', import.meta.url);
if (existsSync(NAME_BENCH)) {
  const rows = parse<Record<string, string>>(readFileSync(NAME_BENCH, 'utf8'), { columns: true, skip_empty_lines: true });
  const logicV2 = logicV2Predictions();
  const count = (subset: typeof rows, predict: (r: Record<string, string>) => boolean | undefined) => {
    let [tp, fp, fn, n] = [0, 0, 0, 0];
    for (const r of subset) {
      const hit = predict(r);
      if (hit === undefined) continue;
      n += 1;
      const same = r.is_match === 'true';
      if (hit && same) tp += 1;
      if (hit && !same) fp += 1;
      if (!hit && same) fn += 1;
    }
    const precision = tp / Math.max(1, tp + fp);
    const recall = tp / Math.max(1, tp + fn);
    return { n, tp, fp, fn, precision, recall, f1: (2 * precision * recall) / Math.max(1e-9, precision + recall) };
  };
  // Each pair matched once; its misses noted once (SHOW_MISSES).
  const matched = new Map(rows.map((r) => [r, matchName(r.name1 ?? '', r.name2 ?? '')]));
  for (const [r, m] of matched)
    if (m.score >= NAME_THRESHOLD !== (r.is_match === 'true')) misses.push(`name_bench ${r.is_match === 'true' ? 'missed' : 'false hit'} [${r.case_group}] ${m.explanation}`);
  const ours = (r: Record<string, string>) => (matched.get(r)?.score ?? 0) >= NAME_THRESHOLD;
  const theirs = (r: Record<string, string>) => logicV2?.get(`${r.name1}\u0000${r.name2}`);
  const groups = ['all', ...new Set(rows.map((r) => r.case_group ?? ''))];
  const nameBench: Record<string, unknown> = {};
  out(`name_bench, dev half (${rows.length} Person pairs), threshold ${NAME_THRESHOLD}; beside it OpenSanctions' logic-v2 (its frozen run, threshold 0.7)${logicV2 ? '' : ': not at hand'}`);
  for (const g of groups) {
    const subset = g === 'all' ? rows : rows.filter((r) => r.case_group === g);
    const a = count(subset, ours);
    const b = logicV2 ? count(subset, theirs) : undefined;
    nameBench[g] = { guestscreen: a, logic_v2: b };
    out(
      `  ${g.padEnd(16)} ${String(subset.length).padStart(4)} pairs  precision ${a.precision.toFixed(3)} recall ${a.recall.toFixed(3)} F1 ${a.f1.toFixed(3)}${b ? `   logic-v2 F1 ${b.f1.toFixed(3)} (${b.n} pairs)` : ''}`,
    );
  }
  results.nameBenchDev = nameBench;
}

// The whole shipped lists, searched as the checks search them.
const t = await createTestApp();
try {
  await loadBundledLists(t.deps);
  await searchSanctions(t.deps, { name: 'warm up', individualsOnly: true });
  const times: number[] = [];
  const search = async (name: string, yearOfBirth?: number) => {
    const started = performance.now();
    const hits = await searchSanctions(t.deps, { name, yearOfBirth: yearOfBirth ?? null, individualsOnly: true });
    times.push(performance.now() - started);
    return hits;
  };
  const listed = pairs.filter((p) => p.same && /^(first and last name only|a typo|own script)/.test(p.kind));
  let found = 0;
  for (const p of listed) {
    const hits = await search(p.query);
    if (hits.some((h) => h.primaryName === p.listed || h.listedName === p.listed)) found += 1;
    else misses.push(`not found in the lists [${p.kind}] ${p.query} ~ ${p.listed}`);
  }
  // Realistic unlisted guests, by first and last name in Latin letters: faker's names of many
  // countries, and the hard negatives (a listed family name with another given name, a look-alike
  // or a woman's given name, a feminine form, the second of two family names alone).
  const unlisted = pairs.filter((p) => !p.same && !p.kind.includes('own script') && !p.kind.startsWith('same given name'));
  const faker = (p: Pair) => p.kind.startsWith('unlisted guest (');
  let fakerAlarms = 0;
  let alarms = 0;
  let namesakes = 0;
  let alarmsWithYear = 0;
  // A guest may bear the very name of another listed person (Omar Al-Tikriti, AL-TIKRITI, Omar
  // Sabawi): a possible match by name, not a false alarm. Any other hit is one.
  const sameName = (h: SanctionsHit) => {
    const core = (h.tokens ?? []).filter((x) => x.role === 'family' || x.role === 'given');
    // Of two family names, one given is the name (MORENO, for MORENO MEDINA).
    const familyFound = core.some((x) => x.role === 'family' && x.how !== 'missing');
    return core.every((x) => ['same', 'spelling', 'known variant'].includes(x.how) || (x.role === 'family' && x.how === 'missing' && familyFound));
  };
  for (const p of unlisted) {
    const hits = await search(p.query);
    if (!hits.length) continue;
    // A year of birth that is none of the listed years: no hit on an entry that lists a year may stay.
    const years = hits.flatMap((h) => h.birthYears);
    const year = [1996, 1984, 1972, 1960].find((y) => years.every((l) => Math.abs(l - y) > 1)) ?? 1990;
    const withYear = await search(p.query, year);
    if (withYear.some((h) => h.birthYears.length)) alarmsWithYear += 1;
    if (hits.every(sameName)) {
      namesakes += 1;
      continue;
    }
    alarms += 1;
    if (faker(p)) fakerAlarms += 1;
    misses.push(`hit for an unlisted guest ${hits[0]?.explanation}`);
    if (withYear.length) misses.push(`  with year ${year}: ${withYear.map((h) => `${h.primaryName} (${h.birthYears.join(', ') || 'no year listed'})`).join('; ')}`);
  }

  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const sum = times.reduce((a, b) => a + b, 0);
  results.fullList = {
    listedFound: found,
    listed: listed.length,
    recall: found / listed.length,
    unlisted: unlisted.length,
    unlistedWithHit: alarms,
    realistic: unlisted.filter(faker).length,
    realisticWithHit: fakerAlarms,
    unlistedNamesakes: namesakes,
    unlistedWithHitDespiteYear: alarmsWithYear,
    searches: times.length,
    medianMs: median,
    p95Ms: times[Math.floor(times.length * 0.95)],
    perSecond: (times.length / sum) * 1000,
  };
  out(`whole lists: ${found} of ${listed.length} listed people found (recall ${(found / listed.length).toFixed(3)})`);
  out(`  realistic unlisted guests (faker's names of 24 countries) with a hit: ${fakerAlarms} of ${unlisted.filter(faker).length}`);
  out(
    `  unlisted guests, the hard negatives included, with a hit: ${alarms} of ${unlisted.length} (${((alarms / unlisted.length) * 100).toFixed(1)} %) by name alone, and ${namesakes} more bear the very name of a listed person; ${alarmsWithYear} keep a hit on an entry that lists a year with a birth year it disagrees with`,
  );
  out(`  a search: median ${median.toFixed(2)} ms, p95 ${(times[Math.floor(times.length * 0.95)] ?? 0).toFixed(2)} ms, ${((times.length / sum) * 1000).toFixed(0)} a second on one core`);
} finally {
  await t.close();
}
if (values.record) {
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('matching.json', dir), `${JSON.stringify({ at: new Date().toISOString(), ...results }, null, 2)}\n`);
}
if (process.env.SHOW_MISSES) for (const m of misses) out(m);

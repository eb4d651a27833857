/**
 * `npm run bench:matching`: the name matcher against the labelled pairs of pairs.json
 * (make-pairs.ts), and, given an OFAC SDN file, against the whole list as the screening checks
 * search it. Prints precision, recall and F1 at the sanctions threshold, recall by kind of
 * variation, the share of unlisted guests with a hit, and the time a search takes.
 *
 *   npm run bench:matching [-- --sdn path/to/sdn.csv] [--record]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { matchName } from '../../src/lib/names/match.js';
import { SANCTIONS_THRESHOLD, searchSanctions } from '../../src/providers/sanctions/index.js';
import { importSanctions } from '../../src/providers/sanctions/import.js';
import { createTestApp } from '../../test/harness.js';
import type { Pair } from './make-pairs.js';

const { values } = parseArgs({ options: { sdn: { type: 'string' }, record: { type: 'boolean', default: false } } });
const { pairs, source } = JSON.parse(readFileSync(new URL('./pairs.json', import.meta.url), 'utf8')) as { pairs: Pair[]; source: string };
const out = (line: string) => process.stdout.write(`${line}\n`);
const results: Record<string, unknown> = { pairs: pairs.length, source, threshold: SANCTIONS_THRESHOLD };

// Pairs: each query against its listed name.
let tp = 0;
let fp = 0;
let fn = 0;
const byKind = new Map<string, { n: number; hits: number; same: boolean }>();
const misses: string[] = [];
for (const p of pairs) {
  const hit = matchName(p.query, p.listed).score >= SANCTIONS_THRESHOLD;
  const k = byKind.get(p.kind.replace(/ \(.*\)$/, '')) ?? { n: 0, hits: 0, same: p.same === 1 };
  k.n += 1;
  if (hit) k.hits += 1;
  byKind.set(p.kind.replace(/ \(.*\)$/, ''), k);
  if (hit && p.same) tp += 1;
  if (hit && !p.same) fp += 1;
  if (!hit && p.same) fn += 1;
  if (hit !== (p.same === 1) && misses.length < 400) misses.push(`${p.same ? 'missed' : 'false hit'} [${p.kind}] ${p.query} ~ ${p.listed}`);
}
const precision = tp / Math.max(1, tp + fp);
const recall = tp / Math.max(1, tp + fn);
const f1 = (2 * precision * recall) / Math.max(1e-9, precision + recall);
results.pairScores = { precision, recall, f1, byKind: Object.fromEntries(byKind) };
out(`${pairs.length} labelled pairs (${source}), threshold ${SANCTIONS_THRESHOLD}: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}, F1 ${f1.toFixed(3)}`);
for (const [kind, k] of byKind) out(`  ${kind.padEnd(40)} ${k.same ? 'recall' : 'false hits'} ${(k.hits / k.n).toFixed(3)} (${k.hits} of ${k.n})`);

// The whole list, searched as the checks search it.
if (values.sdn) {
  const t = await createTestApp();
  try {
    await importSanctions(t.deps, { primary: values.sdn });
    const listed = pairs.filter((p) => p.same);
    const unlisted = pairs.filter((p) => p.kind.startsWith('unlisted guest'));
    await searchSanctions(t.deps, { name: 'warm up', individualsOnly: true });
    const times: number[] = [];
    let found = 0;
    for (const p of listed) {
      const started = performance.now();
      const hits = await searchSanctions(t.deps, { name: p.query, individualsOnly: true });
      times.push(performance.now() - started);
      // The short forms of the labelled set are made from the listed full names.
      if (hits.some((h) => h.listedName === p.listed || h.primaryName === p.listed || h.primaryName.startsWith(`${p.listed} `))) found += 1;
      else if (process.env.SHOW_MISSES) misses.push(`not found in the list [${p.kind}] ${p.query} ~ ${p.listed}`);
    }
    let guestsWithHit = 0;
    for (const p of unlisted) {
      const started = performance.now();
      const hits = await searchSanctions(t.deps, { name: p.query, individualsOnly: true });
      if (hits.length) {
        guestsWithHit += 1;
        if (process.env.SHOW_MISSES) misses.push(`hit for an unlisted guest ${p.query} ~ ${hits[0]?.listedName}`);
      }
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    const total = times.reduce((a, b) => a + b, 0);
    results.fullList = {
      searches: times.length,
      listedFound: found,
      listed: listed.length,
      unlistedWithHit: guestsWithHit,
      unlisted: unlisted.length,
      medianMs: median,
      p95Ms: times[Math.floor(times.length * 0.95)],
      perSecond: (times.length / total) * 1000,
    };
    out(`whole list: ${found} of ${listed.length} listed people found (recall ${(found / listed.length).toFixed(3)}); ${guestsWithHit} of ${unlisted.length} unlisted guests with a hit`);
    out(`  a search: median ${median.toFixed(2)} ms, p95 ${(times[Math.floor(times.length * 0.95)] ?? 0).toFixed(2)} ms, ${((times.length / total) * 1000).toFixed(0)} a second on one core`);
  } finally {
    await t.close();
  }
}
if (values.record) {
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('matching.json', dir), `${JSON.stringify({ at: new Date().toISOString(), ...results }, null, 2)}\n`);
}
if (process.env.SHOW_MISSES) for (const m of misses) out(m);

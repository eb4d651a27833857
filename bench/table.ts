/**
 * Writes the latest benchmark's table into docs/performance.md, between its two markers, from a
 * results file (`bench/results.json` by default, which `npm run bench` writes), and keeps a copy
 * of that file in bench/results/ as the data behind the table.
 *
 *   npm run bench:table [-- FILE]
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface Run {
  rps: number;
  p99_ms: number;
  ratio: number;
}
interface Results {
  date: string;
  machine: string;
  baseline_rps: number;
  scenarios: (Run & { name: string; db: string; floor?: Run; floor_keyed?: Run })[];
  screening_per_s: number;
  cold_start_ms: number;
  peak_rss_mb: number;
  postgres?: { screening_per_s: number; cold_start_ms: number; peak_rss_mb: number };
}

const ROOT = path.resolve(import.meta.dirname, '..');
const DOC = path.join(ROOT, 'docs', 'performance.md');
const START = '<!-- bench table: written by npm run bench:table from bench/results/latest.json -->';
const END = '<!-- end of bench table -->';

// What each scenario is held to (docs/performance.md, "Targets").
const TARGETS: Record<string, string> = {
  'sqlite me': '≥ 50 % of baseline',
  'sqlite get_reservation': '≥ 40 %, p99 ≤ 10 ms',
  'sqlite search_text': 'p99 ≤ 25 ms',
  'sqlite search_filtered': 'p99 ≤ 15 ms',
  'sqlite create': '≥ 2,000/s',
  'postgres get_reservation': '≥ 12 %',
  'postgres search_text': 'p99 ≤ 40 ms',
};

const file = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench', 'results.json'));
const r = JSON.parse(readFileSync(file, 'utf8')) as Results;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const n = (x: number) => x.toLocaleString('en-US');
const run = (x: Run) => `${n(x.rps)}/s, ${pct(x.ratio)}, p99 ${x.p99_ms} ms`;

const rows = r.scenarios.map((s) => {
  const floor = [s.floor ? run(s.floor) : '', s.floor_keyed ? `with key and decryption: ${run(s.floor_keyed)}` : ''].filter(Boolean).join('; ');
  return `| \`${s.name}\` | ${s.db === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | ${run(s)} | ${floor} | ${TARGETS[`${s.db} ${s.name}`] ?? ''} |`;
});
const pg = r.postgres;
const table = [
  START,
  '',
  `${r.date.slice(0, 10)}, ${r.machine}; the bare Fastify baseline answered ${n(r.baseline_rps)} req/s on average next to the scenarios.`,
  '',
  '| scenario | db | service | floor route | target |',
  '|---|---|---|---|---|',
  ...rows,
  '',
  `Screening, one worker: ${r.screening_per_s} reservations/s on SQLite${pg ? `, ${pg.screening_per_s} on PostgreSQL` : ''} (target 500). ` +
    `Cold start: ${n(r.cold_start_ms)} ms${pg ? ` (${n(pg.cold_start_ms)} on PostgreSQL)` : ''} (target 1,500). ` +
    `Peak RSS: ${r.peak_rss_mb} MB${pg ? ` (${pg.peak_rss_mb} on PostgreSQL)` : ''} (target 300).`,
  '',
  END,
].join('\n');

const doc = readFileSync(DOC, 'utf8');
const a = doc.indexOf(START);
const b = doc.indexOf(END);
if (a === -1 || b === -1) throw new Error(`docs/performance.md has no bench table markers (${START})`);
writeFileSync(DOC, doc.slice(0, a) + table + doc.slice(b + END.length));
const kept = path.join(ROOT, 'bench', 'results', 'latest.json');
if (path.resolve(file) !== kept) copyFileSync(file, kept);
process.stdout.write(`docs/performance.md: table from ${path.relative(ROOT, file)} (${r.date})\n`);

/**
 * What each microsecond of work a route adds costs on this machine: the bare Fastify baseline
 * (bench/baseline.ts) loaded as the benchmark loads it, answering after 0, 5, 10, 15, 20 and 30 µs
 * of work on its thread, with the CPU time a request took in the server and on the whole machine
 * (the load generator included). A route's ratio to the baseline falls faster than its own work
 * grows; this shows by how much, with nothing else in the way.
 *
 *   node --import tsx bench/work-curve.ts
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Busy CPU ms so far: the machine's (/proc/stat) and the process's, all its threads. */
function cpuMs(pid: number) {
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const own = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // In clock ticks of 10 ms (USER_HZ 100, as on Linux everywhere).
  return { machine: (user! + nice! + system! + irq! + softirq!) * 10, server: (Number(own[11]) + Number(own[12])) * 10 };
}

const server = spawn(process.execPath, ['--import', 'tsx', `${ROOT}bench/baseline.ts`, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => server.stdout.on('data', (d: Buffer) => /ready (\d+)/.test(d.toString()) && resolve(Number(/ready (\d+)/.exec(d.toString())![1]))));
process.stdout.write(`${'work µs'.padStart(8)}${'req/s'.padStart(9)}${'ratio'.padStart(8)}${'server µs'.padStart(11)}${'machine µs'.padStart(12)}\n`);
let baseline = 0;
for (const us of [0, 5, 10, 15, 20, 30]) {
  const url = `http://127.0.0.1:${port}/${us ? `work/${us}` : ''}`;
  await autocannon({ url, connections: 50, duration: 2 });
  const before = cpuMs(server.pid!);
  const r = await autocannon({ url, connections: 50, duration: SECONDS });
  const after = cpuMs(server.pid!);
  if (us === 0) baseline = r.requests.average;
  const per = (ms: number) => Math.round((ms * 1000) / r.requests.total);
  process.stdout.write(
    `${String(us).padStart(8)}${String(Math.round(r.requests.average)).padStart(9)}${`${((r.requests.average / baseline) * 100).toFixed(1)}%`.padStart(8)}` +
      `${String(per(after.server - before.server)).padStart(11)}${String(per(after.machine - before.machine)).padStart(12)}\n`,
  );
}
server.kill('SIGTERM');

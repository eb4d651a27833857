/** What the benchmarks read of the processes they start: the flags they run with, and their memory. */
import { readFileSync } from 'node:fs';

/** The node flags in the command's `#!/usr/bin/env -S node …` line, which `guestscreen start` runs with. */
export function shebangFlags(file: string): string[] {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0]!;
  return /^#!\/usr\/bin\/env -S node\b/.test(first) ? first.split(/\s+/).slice(3) : [];
}

const statusMb = (pid: number, field: 'VmHWM' | 'VmRSS') => Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

/** A process's peak resident memory so far, MB. */
export const peakRssMb = (pid: number) => statusMb(pid, 'VmHWM');
/** A process's resident memory now, MB. */
export const rssMb = (pid: number) => statusMb(pid, 'VmRSS');

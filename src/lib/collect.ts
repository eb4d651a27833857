/**
 * A collection of the JavaScript heap's young generation, on demand. Photos pass through the
 * service in copies of a megabyte or more (received, sealed, read back, opened, sent to a reading
 * process), each short-lived; V8 counts their bytes as external memory and collects for it only
 * once tens of megabytes more of it are held, and glibc's allocator keeps what it then frees.
 * Collected as soon as they are dropped, while their objects are still young, they are freed by
 * the cheapest collection V8 has.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;
let collect: Collect | undefined;

export function collectYoung(): void {
  if (!collect) {
    // The way test runners get V8's collector without a flag on the command line: a context made
    // after the flag is set has `gc`.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Collect;
  }
  collect({ type: 'minor' });
}

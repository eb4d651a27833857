/**
 * A collection of the JavaScript heap's young generation, on demand. Photos pass through the
 * service in copies of a megabyte or more (received, sealed, read back, opened, sent to a reading
 * process), each short-lived; V8 counts their bytes as external memory and collects for it only
 * once some 64 MB more of it is held, and glibc's allocator keeps what it then frees. Collected as
 * soon as they are dropped, they are freed while their objects are still young, which costs about
 * a millisecond.
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

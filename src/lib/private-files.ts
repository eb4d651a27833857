/**
 * The data directory holds guests' identities, sealed secrets and the key that opens them: only
 * the account the service runs as reads it. Files are made 0600 and folders 0700 by every
 * command (the umask set before anything is opened), a restored backup is made so whatever modes
 * its archive carried, and `start` names what others can still read.
 */
import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What any file or folder this process makes from now on denies to everyone but its owner. */
export const keepPrivate = () => process.umask(0o077);

/** Every file and folder under `dir` (itself included), deepest first. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  out.push(dir);
  return out;
}

/** Makes `dir` and all it holds its owner's alone: files 0600, folders 0700. */
export function makePrivate(dir: string): void {
  for (const p of walk(dir)) chmodSync(p, statSync(p).isDirectory() ? 0o700 : 0o600);
}

/** What under `dir` others may read or enter, with its mode in octal. */
export function readableByOthers(dir: string): { path: string; mode: string }[] {
  return walk(dir)
    .map((p) => ({ path: p, mode: statSync(p).mode & 0o777 }))
    .filter((f) => f.mode & 0o077)
    .map((f) => ({ path: f.path, mode: f.mode.toString(8) }));
}

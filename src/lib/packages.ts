import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The installed version of a dependency, read from its package.json (which its exports may hide). */
export function packageVersion(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!existsSync(path.join(dir, 'package.json')) || (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A file this package ships (lists/, …), from the sources and from the built bundle alike. */
export function packageFile(relative: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'guestscreen') return path.join(dir, relative);
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`guestscreen's own ${relative} was not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

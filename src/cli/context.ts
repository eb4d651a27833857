import { InvalidArgumentError } from 'commander';
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';

// The service's modules load with the first command that opens a database: `--help`,
// `--version` and `keys generate` load none of them (the command's own module only).

/** A mistake in how the command was called or what it names: printed without a stack, exit 1. */
export class UsageError extends Error {}

export const out = (line: string) => process.stdout.write(`${line}\n`);
/** What the operator must see but a script reading standard output (`--json`) must not parse. */
export const note = (line: string) => process.stderr.write(`${line}\n`);

export interface OpenOptions {
  /** Serving commands, `migrate` and `demo` make the database when there is none. */
  create: boolean;
  /** Says which database on standard error (serving commands say it in their banner). */
  announce: boolean;
}

/**
 * The dependencies over the database the configuration names. A command that is not meant to
 * make a database refuses to when there is none: run from another folder, `./data` is another
 * directory, and a command that quietly made a new database there would answer from it.
 */
export async function openDeps(opts: OpenOptions): Promise<Deps> {
  const [{ loadConfig }, { ensurePostgresDatabase, sqliteFile }, { isNewDatabase }, { createDeps }] = await Promise.all([
    import('../config.js'),
    import('../db/connection.js'),
    import('../db/migrate.js'),
    import('../runtime.js'),
  ]);
  const config = loadConfig();
  // Before anything is opened: opening SQLite makes the file, and the secret is generated into the data directory.
  if (!config.databaseUrl && !opts.create && !existsSync(sqliteFile(config.dataDir))) throw new UsageError(missingDatabase(config, sqliteFile(config.dataDir)));
  if (config.databaseUrl && opts.create && (await ensurePostgresDatabase(config.databaseUrl)) === 'created') {
    note(`guestscreen: made the PostgreSQL database ${new URL(config.databaseUrl).pathname.slice(1)}`);
  }
  const deps = createDeps(config);
  if (config.databaseUrl && !opts.create && (await isNewDatabase(deps.database))) {
    await deps.database.close();
    throw new UsageError(missingDatabase(config, sqliteFile(config.dataDir)));
  }
  if (opts.announce) note(`guestscreen: using ${deps.database.description}`);
  return deps;
}

function missingDatabase(config: Config, file: string): string {
  const where = config.databaseUrl
    ? 'the PostgreSQL database of DATABASE_URL has no guestscreen schema yet'
    : `there is no guestscreen database at ${file} (the data directory, GUESTSCREEN_DATA_DIR, is ./data of the current folder unless set)`;
  return `${where}. Point the command at the service's database (run it from the service's folder, or set GUESTSCREEN_DATA_DIR or DATABASE_URL as the service has them), run \`guestscreen migrate\` to make a new one, or pass --create-database`;
}

/**
 * Migrations and the root account. Whichever command makes the root account prints its key,
 * the only time it can be read: a data import run before the first start must not make an
 * account nobody can sign in as.
 */
export async function ready(deps: Deps, print: (line: string) => void = note): Promise<{ rootId: string }> {
  const { prepare } = await import('../runtime.js');
  const { rootKey, rootId } = await prepare(deps);
  if (rootKey) print(`Root account created. Its API key, shown only now:\n  ${rootKey}`);
  return { rootId };
}

/** On a database without sanctions lists, the ones that ship with the service (providers/sanctions/bundled.ts). */
export async function loadLists(deps: Deps, print: ((line: string) => void) | null = out): Promise<void> {
  const { loadBundledLists } = await import('../providers/sanctions/bundled.js');
  for (const l of await loadBundledLists(deps))
    print?.(`Sanctions list loaded: ${l.source} of ${l.date} (${l.imported} names with aliases); \`guestscreen data import sanctions\` replaces it with a newer copy`);
}

/** A whole number of at least `min`, for commander's option parsers. */
export function wholeNumber(min: number) {
  return (v: string) => {
    const n = Number(v);
    if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`a whole number of at least ${min} is needed.`);
    return n;
  };
}

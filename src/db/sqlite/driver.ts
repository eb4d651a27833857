import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

/**
 * better-sqlite3 as the running Node.js needs it. From Node.js 22 on, version 13, installed as the
 * optional dependency `better-sqlite3-napi` (npm skips it on Node.js 20, whose engine it refuses):
 * its objects are Node-API objects. Node.js 24.19 and later abort a process when a
 * node::ObjectWrap object, as version 12's statements are, is collected outside JavaScript
 * (nodejs/node#65446). On Node.js 20, version 12, which 13 does not support.
 */
function load(): typeof BetterSqlite3 {
  if (major >= 22) {
    try {
      return require('better-sqlite3-napi') as typeof BetterSqlite3;
    } catch (err) {
      if (major >= 24) throw new Error(`better-sqlite3 13 (better-sqlite3-napi) is not installed for Node.js ${process.versions.node}: run \`npm ci\` with this Node.js`, { cause: err });
    }
  }
  return require('better-sqlite3') as typeof BetterSqlite3;
}

let driver: typeof BetterSqlite3 | undefined;

/** Opens an SQLite database file with the driver this Node.js needs (chosen on the first open). */
export function openSqliteFile(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  driver ??= load();
  return new driver(file, options);
}

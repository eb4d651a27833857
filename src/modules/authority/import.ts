/**
 * Alloggiati Web's code tables brought in: fetched from the service with an establishment's
 * credentials (`Tabella`: Luoghi, Tipi_Documento) when it is saved, on the worker's weekly look and
 * by `guestscreen data import alloggiati-tables`, or read from the CSV files downloaded from its
 * portal; installed in the data directory with the day they were taken.
 */
import { readFileSync } from 'node:fs';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { generateToken, table, type AlloggiatiConnection } from './alloggiati.js';
import { installAlloggiatiTables, parseDocumentTypes, parsePlaces } from './tables.js';

export interface TablesImported {
  places: number;
  documents: number;
  as_of: string;
}

function install(deps: Deps, places: string, documents: string): TablesImported {
  const tables = { as_of: iso(deps.clock()).slice(0, 10), places: parsePlaces(places), documents: parseDocumentTypes(documents) };
  installAlloggiatiTables(deps.config.dataDir, tables);
  return { places: tables.places.length, documents: tables.documents.length, as_of: tables.as_of };
}

/** The tables fetched from the service over a connection, and installed. */
export async function fetchAlloggiatiTables(deps: Deps, conn: AlloggiatiConnection): Promise<TablesImported> {
  const token = await generateToken(conn);
  const places = await table(conn, token, 'Luoghi');
  return install(deps, places, await table(conn, token, 'Tipi_Documento'));
}

/** The tables read from the CSV files of the service's portal, and installed. */
export function importAlloggiatiFiles(deps: Deps, files: { places: string; documents: string }): TablesImported {
  return install(deps, readFileSync(files.places, 'utf8'), readFileSync(files.documents, 'utf8'));
}

/**
 * Alloggiati Web's code tables brought in (`guestscreen data import alloggiati-tables`): fetched
 * from the service with an establishment's credentials (`Tabella`: Luoghi, Tipi_Documento), or
 * read from the CSV files downloaded from its portal, and installed in the data directory.
 */
import { readFileSync } from 'node:fs';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { generateToken, table } from './alloggiati.js';
import { alloggiatiConnection, openEstablishment } from './establishments.js';
import * as repo from './repo.js';
import { installAlloggiatiTables, parseDocumentTypes, parsePlaces } from './tables.js';

export type TablesSource = { account: string; listing?: string | undefined } | { places: string; documents: string };

export async function importAlloggiatiTables(deps: Deps, source: TablesSource): Promise<{ places: number; documents: number; as_of: string }> {
  let places: string;
  let documents: string;
  if ('account' in source) {
    const row = await repo.establishmentFor(deps.db, source.account, source.listing ?? null);
    if (!row || row.system !== 'alloggiati') throw new Error(`no Alloggiati Web establishment for ${source.listing ? `listing ${source.listing} of ` : ''}account ${source.account}`);
    const open = openEstablishment(deps, row);
    const conn = alloggiatiConnection(deps, open.settings, open.credentials);
    const token = await generateToken(conn);
    places = await table(conn, token, 'Luoghi');
    documents = await table(conn, token, 'Tipi_Documento');
  } else {
    places = readFileSync(source.places, 'utf8');
    documents = readFileSync(source.documents, 'utf8');
  }
  const tables = { as_of: iso(deps.clock()).slice(0, 10), places: parsePlaces(places), documents: parseDocumentTypes(documents) };
  installAlloggiatiTables(deps.config.dataDir, tables);
  return { places: tables.places.length, documents: tables.documents.length, as_of: tables.as_of };
}

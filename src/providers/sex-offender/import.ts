import type { Insertable } from 'kysely';
import { withTx } from '../../db/connection.js';
import type { SexOffenderRecordsTable } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { importCsv } from '../../lib/csv-import.js';
import { iso } from '../../lib/time.js';
import * as store from './store.js';

const COLUMNS = ['id', 'first_name', 'last_name', 'dob', 'city', 'county', 'state', 'zip', 'charges', 'aliases', 'image_url', 'registered_at'];
const list = (v: string | undefined) =>
  JSON.stringify(
    (v ?? '')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/**
 * Imports sex-offender registry records: CSV with columns id, first_name, last_name, dob
 * (YYYY-MM-DD), city, county, state (two letters), zip, charges and aliases (each a list
 * separated by ";"), image_url, registered_at. Importing a source again replaces its records.
 */
export function importSexOffenders(deps: Deps, file: string, opts: { source?: string | undefined; progress: boolean }) {
  const source = opts.source ?? file.split('/').pop() ?? 'imported registry';
  const at = iso(deps.clock());
  const seen = new Set<string>();
  return withTx(deps.db, async (tx) => {
    await store.deleteSource(tx, source);
    const result = await importCsv<Insertable<SexOffenderRecordsTable>>(
      file,
      COLUMNS,
      (r) => {
        if (!r.id) return { problem: 'id: every record needs the registry id' };
        if (seen.has(r.id)) return { problem: `id: ${r.id} appears twice` };
        if (!r.first_name || !r.last_name) return { problem: 'first_name and last_name are required' };
        if (!r.dob || !/^\d{4}-\d{2}-\d{2}$/.test(r.dob)) return { problem: `dob: must be YYYY-MM-DD (got ${r.dob ?? ''})` };
        if (!r.state || !/^[A-Za-z]{2}$/.test(r.state)) return { problem: `state: must be a two-letter code (got ${r.state ?? ''})` };
        seen.add(r.id);
        return {
          id: `${source}:${r.id}`,
          first_name: r.first_name,
          last_name: r.last_name,
          dob: r.dob,
          city: r.city || null,
          county: r.county || null,
          state: r.state.toUpperCase(),
          zip: r.zip || null,
          charges: list(r.charges),
          aliases: list(r.aliases),
          image_url: r.image_url || null,
          registered_at: r.registered_at || null,
          source,
          imported_at: at,
        };
      },
      (batch) => store.insertRecords(tx, batch),
      opts,
    );
    return { source, ...result };
  });
}

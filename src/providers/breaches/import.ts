import type { Insertable } from 'kysely';
import { withTx } from '../../db/connection.js';
import type { BreachRecordsTable } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { importCsv } from '../../lib/csv-import.js';
import { iso } from '../../lib/time.js';
import { emailDigest } from './index.js';
import * as store from './store.js';

const COLUMNS = ['email', 'name', 'domain', 'breach_date'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Imports a breach corpus: CSV with columns email, name (the breach), domain, breach_date
 * (YYYY-MM-DD). Addresses are stored only as keyed digests. Importing a source again replaces
 * its records, in one transaction.
 */
export function importBreaches(deps: Deps, file: string, opts: { source?: string | undefined; progress: boolean }) {
  const source = opts.source ?? file.split('/').pop() ?? 'imported breach corpus';
  const at = iso(deps.clock());
  const ctx = { deps, accountId: '' };
  return withTx(deps.db, async (tx) => {
    await store.deleteSource(tx, source);
    const result = await importCsv<Insertable<BreachRecordsTable>>(
      file,
      COLUMNS,
      (r) => {
        if (!r.email || !EMAIL.test(r.email)) return { problem: `email: not an e-mail address (${(r.email ?? '').slice(0, 60)})` };
        if (!r.name) return { problem: 'name: the breach needs a name' };
        if (r.breach_date && !/^\d{4}-\d{2}-\d{2}$/.test(r.breach_date)) return { problem: `breach_date: must be YYYY-MM-DD (got ${r.breach_date})` };
        return { email_digest: emailDigest(ctx, r.email), name: r.name, domain: r.domain ?? '', breach_date: r.breach_date ?? '', source, imported_at: at };
      },
      (batch) => store.insertRecords(tx, batch),
      opts,
    );
    return { source, ...result };
  });
}

import type { Deps } from '../../deps.js';
import { importCsv } from '../../lib/csv-import.js';
import { iso } from '../../lib/time.js';
import { buildEntry, insertNewEntries } from './service.js';

const COLUMNS = ['name', 'email', 'phone', 'document_number', 'reason'];

/**
 * Imports blocklist entries from a CSV file (a path or the uploaded bytes) with a header row (columns: name, email, phone,
 * document_number, reason; any may be empty but each row needs one identifier and a reason).
 * Rows are written in batches; bad rows are reported by line and skipped, and rows already on the
 * blocklist (the same identifiers) are counted as duplicates and left as they are.
 */
export function importBlocklist(deps: Deps, accountId: string, file: string | Buffer, opts: { progress: boolean }) {
  const at = iso(deps.clock());
  return importCsv(
    file,
    COLUMNS,
    (record) => {
      const built = buildEntry(accountId, { name: record.name, email: record.email, phone: record.phone, document_number: record.document_number, reason: record.reason ?? '' }, at);
      return 'problem' in built ? { problem: built.problem ?? 'invalid row' } : built.entry;
    },
    (batch) => insertNewEntries(deps, accountId, batch),
    opts,
  );
}

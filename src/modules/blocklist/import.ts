import { SingleBar, Presets } from 'cli-progress';
import { parse } from 'csv-parse';
import { createReadStream, statSync } from 'node:fs';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { buildEntry, insertEntries } from './service.js';

const COLUMNS = ['name', 'email', 'phone', 'document_number', 'reason'];
const BATCH = 500;

/**
 * Imports blocklist entries from a CSV file with a header row (columns: name, email, phone,
 * document_number, reason; any may be empty but each row needs one identifier and a reason).
 * Rows are written in batches; bad rows are reported by line and skipped.
 */
export async function importBlocklist(deps: Deps, accountId: string, file: string, opts: { progress: boolean }) {
  const size = statSync(file).size;
  const bar = opts.progress ? new SingleBar({ format: 'importing [{bar}] {percentage}% | {rows} rows', hideCursor: true }, Presets.shades_classic) : undefined;
  bar?.start(size, 0, { rows: 0 });
  const stream = createReadStream(file);
  const parser = stream.pipe(parse({ columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), skip_empty_lines: true, trim: true, bom: true, info: true }));
  let batch: NonNullable<ReturnType<typeof buildEntry>['entry']>[] = [];
  let imported = 0;
  const rejected: { line: number; problem: string }[] = [];
  let checkedHeader = false;
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    if (!checkedHeader) {
      const unknown = Object.keys(record).filter((k) => !COLUMNS.includes(k));
      if (unknown.length) throw new Error(`unknown column(s) ${unknown.join(', ')}; expected ${COLUMNS.join(', ')}`);
      checkedHeader = true;
    }
    const line = info.lines;
    const built = buildEntry(accountId, { name: record.name, email: record.email, phone: record.phone, document_number: record.document_number, reason: record.reason ?? '' }, iso(deps.clock()));
    if ('problem' in built) rejected.push({ line, problem: built.problem ?? 'invalid row' });
    else batch.push(built.entry);
    if (batch.length >= BATCH) {
      await insertEntries(deps.db, batch);
      imported += batch.length;
      batch = [];
      bar?.update(stream.bytesRead, { rows: imported });
    }
  }
  await insertEntries(deps.db, batch);
  imported += batch.length;
  bar?.update(size, { rows: imported });
  bar?.stop();
  return { imported, rejected };
}

import { SingleBar, Presets } from 'cli-progress';
import { parse } from 'csv-parse';
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';

export interface CsvImportResult {
  imported: number;
  /** Rows the writer left out as already there (an import run twice). */
  duplicates: number;
  rejected: { line: number; problem: string }[];
}

/**
 * Reads a CSV file (a path, or its bytes as uploaded) with a header row (names trimmed and lower-cased; a column not in `columns`
 * stops the import), turns each row into a record with `build` (or a problem, reported by line
 * and skipped) and hands them to `write` in batches of 500; `write` may say how many of a batch it
 * wrote, the rest being duplicates.
 */
export async function importCsv<T>(
  file: string | Buffer,
  columns: readonly string[],
  build: (record: Record<string, string>) => T | { problem: string },
  write: (batch: T[]) => Promise<number | void>,
  opts: { progress: boolean },
): Promise<CsvImportResult> {
  const size = typeof file === 'string' ? statSync(file).size : file.length;
  const bar = opts.progress ? new SingleBar({ format: 'importing [{bar}] {percentage}% | {rows} rows', hideCursor: true }, Presets.shades_classic) : undefined;
  bar?.start(size, 0, { rows: 0 });
  const stream = typeof file === 'string' ? createReadStream(file) : Object.assign(Readable.from([file]), { bytesRead: file.length });
  const parser = stream.pipe(parse({ columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), skip_empty_lines: true, trim: true, bom: true, info: true }));
  let batch: T[] = [];
  let imported = 0;
  let duplicates = 0;
  const written = async (rows: T[]) => {
    const n = (await write(rows)) ?? rows.length;
    imported += n;
    duplicates += rows.length - n;
  };
  const rejected: CsvImportResult['rejected'] = [];
  let checkedHeader = false;
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    if (!checkedHeader) {
      const unknown = Object.keys(record).filter((k) => !columns.includes(k));
      if (unknown.length) throw new Error(`unknown column(s) ${unknown.join(', ')}; expected ${columns.join(', ')}`);
      checkedHeader = true;
    }
    const built = build(record);
    if (typeof built === 'object' && built !== null && 'problem' in built) rejected.push({ line: info.lines, problem: built.problem });
    else batch.push(built);
    if (batch.length >= 500) {
      await written(batch);
      batch = [];
      bar?.update(stream.bytesRead, { rows: imported });
    }
  }
  if (batch.length) await written(batch);
  bar?.update(size, { rows: imported });
  bar?.stop();
  return { imported, duplicates, rejected };
}

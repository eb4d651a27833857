/**
 * OpenSanctions' logic-v2 matcher as its frozen run on name_bench answered each pair
 * (nomenklatura, contrib/name_bench/run_data/logicv2-frozen.csv, MIT): the file is not kept in the
 * project; `LOGICV2=<that file> npm run bench:matching` reads it to print logic-v2's figures on
 * the same pairs as ours.
 */
import { parse } from 'csv-parse/sync';
import { existsSync, readFileSync } from 'node:fs';

/** Each pair's prediction (name1, NUL, name2), or undefined without the file. */
export function logicV2Predictions(): Map<string, boolean> | undefined {
  const file = process.env.LOGICV2;
  if (!file || !existsSync(file)) return undefined;
  const rows = parse<Record<string, string>>(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true });
  return new Map(rows.map((r) => [`${r.name1}\u0000${r.name2}`, r.predicted_match === 'true']));
}

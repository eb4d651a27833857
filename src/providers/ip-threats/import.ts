import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { cidrRange } from '../ip.js';
import * as store from './store.js';

export interface ThreatFeedOptions {
  /** The feed's name; defaults to the FireHOL header's name, then the file's name. */
  source?: string | undefined;
  title?: string | undefined;
  /** YYYY-MM-DD or an ISO time; defaults to the FireHOL "Source File Date", then today. */
  date?: string | undefined;
  link?: string | undefined;
  tags?: string[] | undefined;
}

const BATCH = 1000;

/**
 * Imports an IP threat feed: FireHOL ipset/netset files, plain lists of addresses and CIDR
 * blocks, and TorDNSEL exit lists (`ExitAddress` lines). A feed is a snapshot: importing a
 * source again replaces what it listed before, in one transaction.
 */
export async function importThreatFeed(deps: Deps, file: string, opts: ThreatFeedOptions) {
  const header: Record<string, string> = {};
  let firstComment: string | undefined;
  const description: string[] = [];
  const blocks: { start: string; end: string; cidr: string }[] = [];
  const rejected: { line: number; problem: string }[] = [];
  let line = 0;
  for await (const raw of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line++;
    const text = raw.trim();
    if (!text) continue;
    if (text.startsWith('#') || text.startsWith(';')) {
      const body = text.replace(/^[#;]\s?/, '');
      const kv = /^([A-Za-z][A-Za-z ]*?)\s*:\s+(.*)$/.exec(body);
      if (kv) header[kv[1]!.toLowerCase()] = kv[2]!.trim();
      else if (body.trim() && firstComment === undefined) firstComment = body.trim();
      else if (body.trim() && Object.keys(header).length === 0 && !/ipset|netset/.test(body)) description.push(body.trim());
      continue;
    }
    const token = (text.startsWith('ExitAddress ') ? text.split(/\s+/)[1] : text.split(/[\s;#,]+/)[0]) ?? '';
    if (/^(ExitNode|Published|LastStatus)\b/.test(text)) continue;
    try {
      blocks.push(cidrRange(token));
    } catch {
      rejected.push({ line, problem: `not an IP address or CIDR block: ${token.slice(0, 60)}` });
    }
  }
  const source = opts.source ?? firstComment ?? file.split('/').pop() ?? 'imported feed';
  const parsedDate = header['source file date'] ? new Date(header['source file date'].replace(/\s+UTC\s+(\d{4})$/, ' $1 UTC')) : undefined;
  const date = opts.date ?? (parsedDate && !Number.isNaN(parsedDate.getTime()) ? iso(parsedDate) : iso(deps.clock()));
  const category = header.category;
  const title = opts.title ?? (description.length ? description.join(' ').replace(/\s+/g, ' ') : `Listed in ${source}`);
  const tags = opts.tags ?? (category ? [category] : []);
  const link = opts.link ?? header['maintainer url'] ?? null;
  const at = iso(deps.clock());
  const rows = blocks.map((b) => ({ source, range_start: b.start, range_end: b.end, cidr: b.cidr, title, link, tags: JSON.stringify(tags), data_date: date, imported_at: at }));
  await withTx(deps.db, (tx) => store.replaceSource(tx, source, rows, BATCH));
  return { source, imported: blocks.length, date, title, tags, rejected };
}

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Deps } from '../../deps.js';
import { requestOutbound } from '../../lib/outbound.js';
import { importSanctions, type SanctionsFiles } from './import.js';
import { OFAC_COMPANIONS } from './ofac-files.js';

/** The largest list file taken (the EU's XML is about 25 MiB). */
const MAX_LIST_BYTES = 256 * 1024 * 1024;
const TIMEOUT_MS = 300_000;

async function download(deps: Deps, url: string, file: string, optional: boolean): Promise<boolean> {
  const res = await requestOutbound(
    'GET',
    url,
    { headers: { 'user-agent': `guestscreen/1 (+${deps.config.publicUrl})` } },
    { allowPrivate: deps.config.allowPrivateTargets, timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_LIST_BYTES },
  );
  if (optional && res.status === 404) return false;
  if (res.status !== 200) throw new Error(`${url.replace(/\?.*/, '')} answered HTTP ${res.status}`);
  if (res.truncated) throw new Error(`${url.replace(/\?.*/, '')} is larger than ${MAX_LIST_BYTES / 1024 / 1024} MiB`);
  await writeFile(file, res.body);
  return true;
}

/**
 * The `sanctions.refresh` job, queued by the worker every GUESTSCREEN_SANCTIONS_REFRESH_HOURS:
 * each list of GUESTSCREEN_SANCTIONS_REFRESH_URLS is downloaded through the outbound guard (no
 * private addresses unless allowed, no redirects) and imported as `data import sanctions` would,
 * which re-screens what changed (a list that did not change re-screens nothing). A list that
 * fails stops the job, which is retried.
 */
export async function refreshSanctionsLists(deps: Deps): Promise<{ url: string; source: string; date: string; changed: number }[]> {
  const urls = deps.config.sanctionsRefresh?.urls ?? [];
  const out: { url: string; source: string; date: string; changed: number }[] = [];
  const dir = await mkdtemp(path.join(deps.config.dataDir, 'lists-'));
  try {
    for (const url of urls) {
      const { pathname } = new URL(url);
      const files: SanctionsFiles = { primary: path.join(dir, pathname.split('/').pop() || 'list') };
      await download(deps, url, files.primary, false);
      const companions = OFAC_COMPANIONS.find(([re]) => re.test(pathname))?.[1];
      for (const [kind, sibling] of Object.entries(companions ?? {}) as [keyof (typeof OFAC_COMPANIONS)[0][1], string][]) {
        const file = path.join(dir, sibling);
        if (await download(deps, new URL(sibling, url).toString(), file, true)) files[kind] = file;
      }
      const r = await importSanctions(deps, files);
      deps.log?.info({ url: url.replace(/\?.*/, ''), source: r.source, date: r.date, entries: r.entries, changed: r.changed }, 'sanctions list refreshed');
      out.push({ url, source: r.source, date: r.date, changed: r.changed });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

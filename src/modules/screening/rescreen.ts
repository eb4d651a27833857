import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';
import { iso } from '../../lib/time.js';
import { changedEntries, searchSanctions } from '../../providers/sanctions/index.js';
import { staysNotEnded } from './repo.js';
import { requestScreening, screeningSettings } from './run.js';

const PAGE = 500;

/**
 * The `sanctions.rescreen` job, queued by a sanctions import: every stay that has not ended is
 * matched against the entries the import added or changed (all of a list imported for the first
 * time), with its account's threshold, and a stay with a hit is screened again, which records the
 * decision and fires the webhooks its new verdict calls for.
 */
export async function rescreenOnListChange(payload: JobPayload<'sanctions.rescreen'>, { deps, signal, breathe }: JobContext): Promise<void> {
  const only = changedEntries(payload);
  const thresholds = new Map<string, number>();
  const today = iso(deps.clock()).slice(0, 10);
  for (let after = ''; ;) {
    // Stopped part-way (its time ran out, the worker is stopping): run again, from the start.
    if (signal.aborted) throw new Error('stopped before every stay was matched');
    const page = await staysNotEnded(deps.db, today, after, PAGE);
    for (const r of page) {
      await breathe();
      const name = [r.guest_first_name, r.guest_last_name].filter(Boolean).join(' ');
      if (!name) continue;
      let threshold = thresholds.get(r.account_id);
      if (threshold === undefined) {
        threshold = (await screeningSettings(deps.db, r.account_id)).nameMatchThreshold;
        thresholds.set(r.account_id, threshold);
      }
      const hits = await searchSanctions(deps, { name, individualsOnly: true, threshold, only });
      if (hits.length) await requestScreening(deps.db, deps, r.id, 'list_update');
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

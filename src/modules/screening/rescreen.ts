import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';
import { iso } from '../../lib/time.js';
import { changedEntries, searchSanctions } from '../../providers/sanctions/index.js';
import { matchName } from '../../lib/names/match.js';
import { entriesById, type EntryRow, normaliseDocument, normaliseEmail, normalisePhone } from '../blocklist/index.js';
import { openIdentification } from './identity.js';
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

/**
 * The `blocklist.rescreen` job, queued with new blocklist entries: each of the account's stays
 * that have not ended whose guest an entry may name (the same e-mail, phone or document number,
 * or a name the matcher finds at the account's threshold, as the blocklist check judges) is
 * screened again, so the host sees the entry's finding on the bookings it concerns at once.
 */
export async function rescreenOnBlocklistChange(payload: JobPayload<'blocklist.rescreen'>, { deps, signal, breathe }: JobContext): Promise<void> {
  const entries = await entriesById(deps.db, payload.account_id, payload.entry_ids);
  if (!entries.length) return;
  const { nameMatchThreshold } = await screeningSettings(deps.db, payload.account_id);
  const today = iso(deps.clock()).slice(0, 10);
  for (let after = ''; ;) {
    if (signal.aborted) throw new Error('stopped before every stay was matched');
    const page = await staysNotEnded(deps.db, today, after, PAGE, payload.account_id);
    for (const r of page) {
      await breathe();
      if (entries.some((e) => mayName(e, r, nameMatchThreshold, () => openIdentification(deps, { ...r, account_id: payload.account_id }).document_number))) {
        await requestScreening(deps.db, deps, r.id, 'list_update');
      }
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

/** Whether a blocklist entry may name a booking's guest (the document read only when the entry has one). */
function mayName(
  e: EntryRow,
  r: { guest_first_name: string | null; guest_last_name: string | null; guest_email: string | null; guest_phone: string | null },
  threshold: number,
  document: () => string | undefined,
) {
  if (e.email && r.guest_email && normaliseEmail(r.guest_email) === e.email) return true;
  if (e.phone && r.guest_phone && normalisePhone(r.guest_phone) === e.phone) return true;
  const name = [r.guest_first_name, r.guest_last_name].filter(Boolean).join(' ');
  if (e.name && name && matchName(name, e.name).score >= threshold) return true;
  const doc = e.document_number ? document() : undefined;
  return Boolean(doc && normaliseDocument(doc) === e.document_number);
}

import { parsePhoneNumberFromString } from '../../lib/phone.js';
import { withTx, type Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/index.js';
import { entryFingerprint } from '../../lib/blocklist-fingerprint.js';
import { enqueue } from '../../jobs/repo.js';
import type { Insertable } from 'kysely';
import type { BlocklistEntriesTable } from '../../db/schema.js';
import * as repo from './repo.js';

/** Writes entries as they are, with no re-screening: for the demo, which seeds them before any booking. */
export { insertEntries } from './repo.js';

export interface EntryInput {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  document_number?: string | undefined;
  reason: string;
}

export const normaliseEmail = (e: string) => e.trim().toLowerCase();
export const normalisePhone = (p: string) => parsePhoneNumberFromString(p)?.number ?? p.replace(/[^0-9+]/g, '');
export const normaliseDocument = (d: string) => d.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** An entry ready to store, or the reason it cannot be: it must name at least one way to recognise the guest. */
export function buildEntry(accountId: string, input: EntryInput, at: string) {
  const clean = (v: string | undefined) => (v && v.trim() ? v.trim() : null);
  const identifiers = {
    name: clean(input.name),
    email: clean(input.email) ? normaliseEmail(input.email!) : null,
    phone: clean(input.phone) ? normalisePhone(input.phone!) : null,
    document_number: clean(input.document_number) ? normaliseDocument(input.document_number!) : null,
  };
  const entry = {
    id: newId('job').replace('job_', 'blk_'),
    account_id: accountId,
    ...identifiers,
    fingerprint: entryFingerprint(identifiers),
    reason: input.reason.trim(),
    created_at: at,
  };
  if (!entry.name && !entry.email && !entry.phone && !entry.document_number) {
    return { problem: 'needs at least one of name, email, phone, document_number' } as const;
  }
  if (entry.email && !EMAIL.test(entry.email)) return { problem: `email: '${input.email!.trim().slice(0, 100)}' is not an e-mail address` } as const;
  if (!entry.reason) return { problem: 'reason is required' } as const;
  return { entry } as const;
}

/** An address of the shape name@domain.tld, as the API's `format: email` asks (a CSV or a form is checked by this). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Adds an entry, or gives back the one that already names the guest the same way (the same
 * identifiers: a second add or import changes nothing). The account's stays that have not ended
 * are matched against it and screened again where it may be their guest (blocklist.rescreen).
 */
export async function addEntry(deps: Deps, account: AccountRow, input: EntryInput) {
  const built = buildEntry(account.id, input, iso(deps.clock()));
  if ('problem' in built) throw badRequest(`body: ${built.problem}`);
  const stored = await withTx(
    deps.db,
    async (tx) => {
      if (!(await repo.insertEntries(tx, [built.entry])).length) return repo.findByFingerprint(tx, account.id, built.entry.fingerprint);
      await rescreenFor(tx, deps, account.id, [built.entry.id]);
      return built.entry;
    },
    { subject: built.entry.id },
  );
  deps.wakeWorker();
  const { fingerprint: _f, ...entry } = stored ?? built.entry;
  return entry;
}

/** Writes a batch of entries (an import's), skipping those already on the account's blocklist; queues the re-screening of what is new. */
export async function insertNewEntries(deps: Deps, accountId: string, entries: Insertable<BlocklistEntriesTable>[]): Promise<number> {
  const written = await withTx(deps.db, async (tx) => {
    const ids = await repo.insertEntries(tx, entries);
    if (ids.length) await rescreenFor(tx, deps, accountId, ids);
    return ids.length;
  });
  deps.wakeWorker();
  return written;
}

/** Queues the matching of the account's stays that have not ended against these new entries. */
async function rescreenFor(tx: Db, deps: Deps, accountId: string, entryIds: string[]) {
  await enqueue(tx, deps, 'blocklist.rescreen', { account_id: accountId, entry_ids: entryIds });
}

export async function listEntries(deps: Deps, account: AccountRow, from: number, size: number) {
  const { total, rows } = await repo.listEntries(deps.db, account.id, from, size);
  return { from, size, total, items: rows.map(({ account_id: _a, fingerprint: _f, ...e }) => e) };
}

export async function getEntry(deps: Deps, account: AccountRow, id: string) {
  const row = await repo.findEntry(deps.db, account.id, id);
  if (!row) throw notFound(`blocklist entry ${id}`);
  const { account_id: _a, fingerprint: _f, ...e } = row;
  return e;
}

/** Replaces the given fields of an entry; the result must still identify someone and say why. */
export async function updateEntry(deps: Deps, account: AccountRow, id: string, input: Partial<EntryInput>) {
  const current = await getEntry(deps, account, id);
  const merged: EntryInput = {
    name: input.name ?? current.name ?? undefined,
    email: input.email ?? current.email ?? undefined,
    phone: input.phone ?? current.phone ?? undefined,
    document_number: input.document_number ?? current.document_number ?? undefined,
    reason: input.reason ?? current.reason,
  };
  const built = buildEntry(account.id, merged, current.created_at);
  if ('problem' in built) throw badRequest(`body: ${built.problem}`);
  const { id: _id, account_id: _a, created_at: _c, ...fields } = built.entry;
  await withTx(deps.db, async (tx) => {
    const twin = await repo.findByFingerprint(tx, account.id, fields.fingerprint);
    if (twin && twin.id !== id) throw conflict(`blocklist entry ${twin.id} already names the guest this way`);
    await repo.updateEntry(tx, id, fields);
    await rescreenFor(tx, deps, account.id, [id]);
  });
  deps.wakeWorker();
  const { fingerprint: _f, ...shown } = fields;
  return { ...current, ...shown };
}

export async function removeEntry(deps: Deps, account: AccountRow, id: string) {
  await getEntry(deps, account, id);
  await repo.deleteEntry(deps.db, id);
  return { message: `blocklist entry ${id} removed` };
}

/** The entries that could match a guest: exact identifiers, plus every named entry for fuzzy matching. */
export function candidates(db: Db, accountId: string, guest: { email: string | null; phone: string | null; document: string | null }) {
  return repo.candidates(db, accountId, {
    email: guest.email ? normaliseEmail(guest.email) : null,
    phone: guest.phone ? normalisePhone(guest.phone) : null,
    document: guest.document ? normaliseDocument(guest.document) : null,
  });
}

import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { ReservationRow } from '../../db/schema.js';
import { listRuns } from './repo.js';
import type { DecisionList } from './schemas.js';
import { decidedBy } from './verdict.js';

/** What a run's sealed record of the document is bound to: its account and the run. */
export const runDocumentAad = (accountId: string, runId: string) => `screening_run_document:${accountId}:${runId}`;

/** Every screening run of the reservation, newest first. */
export async function decisionsView(deps: Deps, r: ReservationRow) {
  const rows = await listRuns(deps.db, r.id);
  const runs = rows.map((row) => ({
    id: row.id,
    trigger: row.trigger,
    engine_version: row.engine_version,
    inputs_digest: row.inputs_digest,
    verdict: JSON.parse(row.verdict) as never,
    checks: JSON.parse(row.checks) as never,
    rules_fired: JSON.parse(row.rules_fired) as string[],
    ...(row.document_enc ? { document: JSON.parse(deps.secrets.open(row.document_enc, runDocumentAad(row.account_id, row.id))) as never } : {}),
    created_at: row.created_at,
  }));
  const at = r.decided_at;
  if (!r.supervised || !at) return runs;
  // The runs are newest first: the decision stands where its time puts it, on the latest run
  // before it (or, decided before any screening finished, a record of the decision alone).
  const before = runs.findIndex((run) => run.created_at <= at);
  const madeOn = runs[before] ?? {
    id: r.id,
    trigger: 'manual',
    engine_version: '',
    inputs_digest: '',
    verdict: { status: '', score: 0, risk_color: '', reason: '', trace: [] } as never,
    checks: {} as never,
    rules_fired: [],
    created_at: at,
  };
  // The host's decision, on the checks of the run it was made on: who, when, why, and what it set.
  const decider = decidedBy(r);
  const decided = r.supervised === 'approve' ? 'verified' : 'declined';
  const words = `${r.supervised === 'approve' ? 'Approved' : 'Declined'} by ${decider?.name ?? 'a person'}${r.supervised_reason ? `: ${r.supervised_reason}` : ''}`;
  const verdict = madeOn.verdict as Static<typeof DecisionList>[number]['verdict'];
  const record = {
    ...madeOn,
    id: `${madeOn.id}-manual`,
    trigger: 'manual',
    verdict: { ...verdict, status: decided, reason: words },
    ...(decider ? { decided_by: { type: decider.type, id: decider.id, name: decider.name } } : {}),
    reason: r.supervised_reason,
    created_at: at,
  };
  const place = before < 0 ? runs.length : before;
  return [...runs.slice(0, place), record, ...runs.slice(place)];
}

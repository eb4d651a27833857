import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { ReservationRow } from '../../db/schema.js';
import { Nullable } from '../../http/validation.js';
import { ReadDocument, SelfieRecord } from '../identity/schemas.js';
import { listRuns } from './repo.js';
import { decidedBy } from './verdict.js';

export const DecisionList = Type.Array(
  Type.Object({
    id: Type.String(),
    trigger: Type.String({
      description:
        'created, updated, payment_event, manual, guest_portal, list_update (a sanctions import changed an entry the guest may be) or document_read (an identity document photo was read, or a selfie compared with it)',
    }),
    engine_version: Type.String(),
    inputs_digest: Type.String({ description: 'SHA-256 of everything the checks saw; equal digests give equal verdicts' }),
    verdict: Type.Object({
      status: Type.String(),
      score: Type.Number(),
      risk_color: Type.String(),
      reason: Type.String(),
      trace: Type.Array(
        Type.Object({
          risk: Type.String(),
          check: Type.String(),
          code: Type.String(),
          strength: Type.Optional(
            Type.String({ description: "the finding's strength (context, weak, moderate, strong, decisive), or rule for a business rule; records of engine version 1 have a weight instead" }),
          ),
          weight: Type.Optional(Type.Number()),
        }),
      ),
    }),
    checks: Type.Record(
      Type.String(),
      Type.Object({
        status: Type.String(),
        value: Type.String(),
        help: Type.String(),
        strength: Type.Optional(Type.String({ description: 'the strongest finding of the check (docs/verdicts.md)' })),
        findings: Type.Array(
          Type.Object({ code: Type.String(), text: Type.String(), strength: Type.Optional(Type.String()), weight: Type.Optional(Type.Number()), recommendation: Type.Optional(Type.String()) }),
        ),
      }),
    ),
    rules_fired: Type.Array(Type.String()),
    document: Type.Optional(
      Type.Object(
        {
          verification_id: Type.String({ description: 'the reading the run used (GET /v1/identity-verifications/{id})' }),
          read: Type.Union([ReadDocument, Type.Null()], { description: 'the fields read from the zone as the run saw them; null when the photo could not be read' }),
          problems: Type.Array(Type.String(), { description: "what kept the photo from being read whole (the reading's problem codes)" }),
          face: Type.Optional(Nullable(SelfieRecord)),
        },
        { description: 'what the run read of the identity document: kept with the decision, never the photo. Absent when no document had been read' },
      ),
    ),
    decided_by: Type.Optional(
      Type.Object(
        { type: Type.String({ description: 'user or api_key' }), id: Type.String(), name: Type.String() },
        { description: 'who decided, on a record of trigger manual: a person in the console, or an API key' },
      ),
    ),
    reason: Type.Optional(Nullable(Type.String({ description: 'the reason they gave, on a record of trigger manual' }))),
    created_at: Type.String(),
  }),
  {
    description:
      "The screening runs, newest first; a host's manual decision (approve or decline) stands among them where its time puts it, as a record of trigger manual with decided_by: the verdict it set, who decided and why, and the checks of the run it was made on",
  },
);

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

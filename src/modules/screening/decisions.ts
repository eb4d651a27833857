import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { ReservationRow } from '../../db/schema.js';
import { listRuns } from './repo.js';

export const DecisionList = Type.Array(
  Type.Object({
    id: Type.String(),
    trigger: Type.String({
      description: 'created, updated, payment_event, manual, guest_portal, list_update (a sanctions import changed an entry the guest may be) or document_read (an identity document photo was read)',
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
    created_at: Type.String(),
  }),
);

/** Every screening run of the reservation, newest first. */
export async function decisionsView(deps: Deps, r: ReservationRow) {
  const rows = await listRuns(deps.db, r.id);
  return rows.map((row) => ({
    id: row.id,
    trigger: row.trigger,
    engine_version: row.engine_version,
    inputs_digest: row.inputs_digest,
    verdict: JSON.parse(row.verdict) as never,
    checks: JSON.parse(row.checks) as never,
    rules_fired: JSON.parse(row.rules_fired) as string[],
    created_at: row.created_at,
  }));
}

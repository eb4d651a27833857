import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { accountFor, type AccountRow } from '../accounts/index.js';
import { writeSetting } from '../settings/index.js';
import { screeningSettings } from './run.js';
import { CHECK_NAMES, type CheckName, type DocumentKind, type RiskTolerance } from './types.js';

/** The checks an account may turn off: all but the booking pattern. */
export const OPTIONAL_CHECKS = CHECK_NAMES.filter((c): c is Exclude<CheckName, 'general_risk'> => c !== 'general_risk');
type OptionalCheck = (typeof OPTIONAL_CHECKS)[number];

export interface ScreeningSettingsInput {
  risk_tolerance?: RiskTolerance | undefined;
  minimum_age?: number | undefined;
  disabled_checks?: OptionalCheck[] | undefined;
  name_match_threshold?: number | undefined;
  accepted_documents?: DocumentKind[] | undefined;
  document_photo_days?: number | undefined;
}

/** The account's screening settings (or, with userId, a managed account's), as the API shows them. */
export async function readScreeningSettings(deps: Deps, caller: AccountRow, userId?: string) {
  const s = await screeningSettings(deps.db, (await accountFor(deps, caller, userId)).id);
  return {
    risk_tolerance: s.riskTolerance,
    minimum_age: s.minimumAge,
    disabled_checks: s.disabledChecks.filter((c): c is OptionalCheck => c !== 'general_risk'),
    name_match_threshold: s.nameMatchThreshold,
    accepted_documents: s.acceptedDocuments,
    document_photo_days: s.documentPhotoDays,
  };
}

/** Changes the given settings; the others stay. */
export async function writeScreeningSettings(deps: Deps, caller: AccountRow, b: ScreeningSettingsInput, userId?: string) {
  const account = await accountFor(deps, caller, userId);
  const current = await screeningSettings(deps.db, account.id);
  await writeSetting(
    deps.db,
    account.id,
    'screening',
    {
      riskTolerance: b.risk_tolerance ?? current.riskTolerance,
      minimumAge: b.minimum_age ?? current.minimumAge,
      disabledChecks: b.disabled_checks ?? current.disabledChecks,
      nameMatchThreshold: b.name_match_threshold ?? current.nameMatchThreshold,
      acceptedDocuments: b.accepted_documents ?? current.acceptedDocuments,
      documentPhotoDays: b.document_photo_days ?? current.documentPhotoDays,
    },
    iso(deps.clock()),
  );
  return readScreeningSettings(deps, account);
}

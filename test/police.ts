/** What the police-report tests, the browser test and the benchmark share. */
import type { Deps } from '../src/deps.js';
import type { JobRow } from '../src/jobs/repo.js';
import { timeSlicer } from '../src/lib/time-slice.js';
import { runAuthoritySend } from '../src/modules/authority/reports.js';

/** A guest portal of the police report alone: the screens the defaults turn on, turned off. */
export const POLICE_ONLY_SCREENS = { AuthorityReporting: 'required', AboutYou: 'disabled', IDVerification: 'disabled', IDCollection: 'disabled', HouseRules: 'disabled', UsageAgreement: 'disabled' };

/** The `authority.send` job for a booking as the worker runs it, at the moment given. */
export const runReportJob = (deps: Deps, reservationId: string, at?: Date) =>
  runAuthoritySend(
    { reservation_id: reservationId },
    { deps: at ? { ...deps, clock: () => at } : deps, job: { attempt: 1, max_attempts: 8 } as JobRow, signal: new AbortController().signal, breathe: timeSlicer() },
  );

/** What the police-report tests, the browser test and the benchmark share. */
import type { Deps } from '../src/deps.js';
import type { JobRow } from '../src/jobs/repo.js';
import { timeSlicer } from '../src/lib/time-slice.js';
import { runAuthoritySend } from '../src/modules/authority/reports.js';
import assert from 'node:assert/strict';
import { translator, type Locale } from '../src/i18n/index.js';
import { openPortal, saveStep, submitPortal } from '../src/modules/portal/service.js';
import { call, type TestApp } from './harness.js';

/** A guest portal of the police report alone: the screens the defaults turn on, turned off. */
export const POLICE_ONLY_SCREENS = { AuthorityReporting: 'required', AboutYou: 'disabled', IDVerification: 'disabled', IDCollection: 'disabled', HouseRules: 'disabled', UsageAgreement: 'disabled' };

/** The `authority.send` job for a booking as the worker runs it, at the moment given. */
export const runReportJob = (deps: Deps, reservationId: string, at?: Date) =>
  runAuthoritySend(
    { reservation_id: reservationId },
    { deps: at ? { ...deps, clock: () => at } : deps, db: deps.db, job: { attempt: 1, max_attempts: 8 } as JobRow, signal: new AbortController().signal, breathe: timeSlicer() },
  );

/**
 * A booking of `guests` at an account's default establishment, arriving on `checkIn` for `nights`,
 * whose guest fills in the police step in `language` and, when it is taken, completes the portal.
 */
export async function stayThroughPortal(
  t: TestApp,
  key: string,
  o: { answers: Record<string, string>; guests: number; checkIn: string; nights: number; timezone: string; guest: { first_name: string; last_name: string }; language: Locale },
) {
  const r = await call(t, 'POST', '/v1/reservations', {
    key,
    body: {
      number_of_guests: o.guests,
      check_in_date: o.checkIn,
      check_out_date: new Date(Date.parse(o.checkIn) + o.nights * 86_400_000).toISOString().slice(0, 10),
      listing_timezone_name: o.timezone,
      guest: o.guest,
    },
  });
  assert.equal(r.status, 200, r.body);
  const token = new URL(r.json.guest_portal_url).pathname.split('/').pop()!;
  const saved = await saveStep(t.deps, await openPortal(t.deps, token), translator(o.language), 'AuthorityReporting', o.answers, [], false);
  if (saved.ok) await submitPortal(t.deps, await openPortal(t.deps, token));
  return { id: r.json.id as string, saved };
}

/** Juan, who booked: a Spaniard with a DNI, living in Madrid, as SES's police step takes him. */
export const JUAN = {
  first_name: 'Juan',
  last_name: 'García',
  second_last_name: 'López',
  sex: 'male',
  birth_date: '1980-04-02',
  nationality: 'ES',
  document_type: 'es_nif',
  document_number: '12345678Z',
  document_support: 'CAA000000',
  residence_country: 'Spain',
  address: 'Calle Mayor 1, 2ºB',
  city: 'Madrid',
  postal_code: '28013',
  phone: '+34 600 000 000',
};

/** Marco, who booked: born in Milan, an Italian identity card issued in Rome, as Alloggiati Web's police step takes him. */
export const MARCO = {
  first_name: 'Marco',
  last_name: 'Rossi',
  sex: 'male',
  birth_date: '1978-05-20',
  birth_country: 'Italia',
  birth_place: 'Milano',
  nationality: 'IT',
  document_type: 'id_card',
  document_number: 'CA12345AB',
  document_country: 'IT',
  document_place: 'Roma',
};

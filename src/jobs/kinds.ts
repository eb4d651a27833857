import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Config } from '../config.js';

export interface JobPolicy<S extends TSchema> {
  payload: S;
  /** Attempts in all, the first included. */
  maxAttempts: (config: Config) => number;
  /** Seconds to wait before attempt n+1, after attempt n (1-based) failed. */
  backoff: (attempt: number, config: Config) => number;
  /** How long one attempt may run; the lease is this plus a margin. */
  timeoutMs: number;
  /**
   * An event one module records, in the transaction of its change, for another to react to: the
   * reaction runs in a transaction of its own that also ends the job, so that it commits once
   * with the job gone, or not at all and runs again (docs/architecture.md, Events).
   */
  reaction?: true;
}

const exponential = (base: number, cap: number) => (attempt: number) => Math.min(cap, base * 2 ** (attempt - 1));

/** What a sanctions import changed: the entries it added or changed (null: the whole list, a first import). */
const LIST_CHANGE = Type.Object({ source: Type.String(), entry_ids: Type.Union([Type.Array(Type.String()), Type.Null()]) });

/** The booking an event is of. */
const BOOKING = Type.Object({ account_id: Type.String(), reservation_id: Type.String() });

/** A reaction's policy: short database work, retried soon, kept at for a day's worth of tries. */
const REACTION = { maxAttempts: () => 10, backoff: exponential(5, 1800), timeoutMs: 60_000, reaction: true } as const;

/** The unique key of a reservation's waiting screening run: requests made while one waits join it. */
export const screeningKey = (reservationId: string) => `screen:${reservationId}`;

/**
 * Every job kind, one entry each: what its payload is and how it is retried. Handlers live in
 * handlers.ts, so this catalog stays free of the modules that enqueue jobs.
 */
export const JOB_KINDS = {
  'webhook.deliver': {
    payload: Type.Object({ delivery_id: Type.String() }),
    maxAttempts: (config: Config) => config.webhookRetrySchedule.length + 1,
    backoff: (attempt: number, config: Config) => config.webhookRetrySchedule[attempt - 1] ?? config.webhookRetrySchedule.at(-1) ?? 60,
    timeoutMs: 30_000,
  },
  'screening.run': {
    payload: Type.Object({
      reservation_id: Type.String(),
      trigger: Type.Union(['created', 'updated', 'payment_event', 'manual', 'guest_portal', 'list_update', 'document_read'].map((t) => Type.Literal(t))),
    }),
    maxAttempts: () => 5,
    backoff: exponential(2, 300),
    timeoutMs: 30_000,
  },
  'check.run': {
    payload: Type.Object({ check_id: Type.String() }),
    maxAttempts: () => 5,
    backoff: exponential(10, 600),
    timeoutMs: 120_000,
  },
  'check.checkr': {
    // Polled on a schedule (poll: true, which schedules the next look), and run at once when Checkr's webhook arrives.
    payload: Type.Object({ check_id: Type.String(), poll: Type.Boolean() }),
    maxAttempts: () => 5,
    backoff: exponential(30, 1800),
    timeoutMs: 60_000,
  },
  'identity.read': {
    // Reads an identity document's photos (modules/identity): CPU work of a second or two, so it runs where jobs run.
    payload: Type.Object({ verification_id: Type.String() }),
    maxAttempts: () => 2,
    backoff: exponential(5, 60),
    timeoutMs: 60_000,
  },
  'identity.face': {
    // Compares a selfie sent after its document with the document's portrait (modules/identity/faces.ts).
    payload: Type.Object({ verification_id: Type.String() }),
    maxAttempts: () => 2,
    backoff: exponential(5, 60),
    timeoutMs: 60_000,
  },
  'identity.compare': {
    // A one-off comparison of two photos' faces, waited for by its request (POST /v1/identity/compare).
    payload: Type.Object({ verification_id: Type.String() }),
    maxAttempts: () => 1,
    backoff: exponential(5, 60),
    timeoutMs: 60_000,
  },
  'authority.send': {
    // A booking's police reports sent, or their lot looked at again (modules/authority/reports.ts).
    // Tried again only when nothing reached the authority; SES's lots are followed by new jobs.
    payload: Type.Object({ reservation_id: Type.String() }),
    maxAttempts: () => 8,
    backoff: exponential(30, 1800),
    timeoutMs: 90_000,
  },
  'authority.plan': {
    // Queued with an establishment saved or switched, in its transaction: the reports of the stays
    // that have not ended, at its listing (or the account's listings without their own), planned.
    payload: Type.Object({ account_id: Type.String(), listing_id: Type.String() }),
    maxAttempts: () => 5,
    backoff: exponential(30, 1800),
    timeoutMs: 600_000,
  },
  'search.purge': {
    // Queued by an erasure on SQLite, in its transaction; one waits at a time (unique key).
    payload: Type.Object({}),
    maxAttempts: () => 5,
    backoff: exponential(5, 300),
    timeoutMs: 300_000,
  },
  'sanctions.rescreen': {
    // Queued by a sanctions import in its transaction: stays that have not ended are matched against what changed.
    payload: LIST_CHANGE,
    maxAttempts: () => 5,
    backoff: exponential(30, 1800),
    timeoutMs: 3_600_000,
  },
  'blocklist.rescreen': {
    // Queued with new blocklist entries, in their transaction: the account's stays that have not ended are matched against them.
    payload: Type.Object({ account_id: Type.String(), entry_ids: Type.Array(Type.String()) }),
    maxAttempts: () => 5,
    backoff: exponential(30, 1800),
    timeoutMs: 3_600_000,
  },
  'check.rematch': {
    // Queued beside sanctions.rescreen, with the same payload: finished background checks are matched against what changed.
    payload: LIST_CHANGE,
    maxAttempts: () => 5,
    backoff: exponential(30, 1800),
    timeoutMs: 3_600_000,
  },
  'sanctions.refresh': {
    // Queued by the worker's chore every GUESTSCREEN_SANCTIONS_REFRESH_HOURS; one waits at a time (unique key).
    payload: Type.Object({}),
    maxAttempts: () => 5,
    backoff: exponential(300, 7200),
    timeoutMs: 1_800_000,
  },
  'message.erase': {
    // Queued by an erasure in its transaction, five seconds ahead: the ids of the messages whose outbox copies go.
    payload: Type.Object({ message_ids: Type.Array(Type.String()) }),
    maxAttempts: () => 5,
    backoff: exponential(5, 300),
    timeoutMs: 60_000,
  },
  'message.send': {
    payload: Type.Object({ message_id: Type.String() }),
    maxAttempts: () => 8,
    backoff: exponential(30, 3600),
    timeoutMs: 60_000,
  },
  'alert.send': {
    // One person told by e-mail of one guest who needs them (modules/alerts).
    payload: Type.Object({ alert_id: Type.String() }),
    maxAttempts: () => 8,
    backoff: exponential(30, 3600),
    timeoutMs: 60_000,
  },
  // Events: recorded by the module named first, handled by the one in the comment (jobs/handlers.ts).
  'verdict.changed': {
    // Screening stored a red or orange verdict that differs from the one before (its colour, top
    // risk or score); alerts tells who wants to know, if it is news. `before`: what it replaced.
    payload: Type.Object({
      account_id: Type.String(),
      reservation_id: Type.String(),
      before: Type.Object({
        risk_color: Type.Union([Type.String(), Type.Null()]),
        top: Type.Union([Type.Object({ code: Type.String(), strength: Type.String() }), Type.Null()]),
        score: Type.Union([Type.Number(), Type.Null()]),
      }),
    }),
    ...REACTION,
  },
  'status.changed': {
    // Screening stored a verdict that changed the booking's status (compositeStatus); messages
    // plans the check-in instructions, or withdraws the portal's messages of a declined guest.
    payload: BOOKING,
    ...REACTION,
  },
  'check_in.changed': {
    // A listing's check-in instructions were saved; messages plans them for its upcoming
    // bookings already verified.
    payload: Type.Object({ account_id: Type.String(), listing_id: Type.String() }),
    ...REACTION,
  },
  'payment.recorded': {
    // The reservations module recorded a new payment event; screening runs again.
    payload: BOOKING,
    ...REACTION,
  },
  'identity.checked': {
    // Identity finished reading a booking's document or comparing its selfie; screening runs again.
    payload: BOOKING,
    ...REACTION,
  },
  'alert.hourly': {
    // Queued by the worker's chore every hour (one waits at a time): unfinished portals close to check-in, and the daily digests.
    payload: Type.Object({}),
    maxAttempts: () => 3,
    backoff: exponential(60, 600),
    timeoutMs: 600_000,
  },
} satisfies Record<string, JobPolicy<TSchema>>;

export type JobKind = keyof typeof JOB_KINDS;
export type JobPayload<K extends JobKind> = Static<(typeof JOB_KINDS)[K]['payload']>;
/** The payload of the list-change jobs (sanctions.rescreen, check.rematch). */
export type ListChange = Static<typeof LIST_CHANGE>;

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import { authErrors, isTrue, MessageResponse, QueryFlag } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import type { AccountRow } from '../accounts/index.js';
import { decisionsView, DecisionList, STRENGTHS, dismissSanctionsHit, waitForScreening, statusView, summaryView } from '../screening/index.js';
import type { ReservationRow } from '../bookings/index.js';
import { assertPublicHost } from '../../lib/outbound.js';
import { outboundUrlProblem } from '../../lib/urls.js';
import { stargateView } from '../messages/index.js';
import { guestPortalView, openUpload, portalProgress, SCREENS } from '../guests/index.js';
import { paymentsView, recordPaymentEvent } from './payments.js';
import * as review from './review.js';
import { CreateBody, IdParams, PaymentEventBody, PaymentsResponse, READ_ONLY_FIELDS, ReadQuery, ReservationList, SearchQuery, UpdateBody, WriteQuery } from './schemas.js';
import * as reservations from './service.js';
import { toReservationView } from './views.js';

const tags = ['Reservations'];
const ReservationRef = Type.Ref('Reservation');
const errors = { ...authErrors, 409: authErrors[400], 413: authErrors[400], 422: authErrors[400] };

/** Read-only fields get their own message rather than "unknown field". */
async function rejectReadOnly(request: { body: unknown }) {
  const body = request.body as Record<string, unknown> | null;
  if (!body || typeof body !== 'object') return;
  const hit = READ_ONLY_FIELDS.find((f) => f in body);
  if (hit) throw badRequest(`body.${hit}: is read-only`);
}

/** callback is checked like a webhook URL (form and, unless private targets are allowed, where it resolves). */
async function writeOptions(deps: Deps, q: { callback?: string | undefined; skip_gp?: string | undefined }) {
  if (q.callback !== undefined) {
    const problem = outboundUrlProblem(q.callback);
    if (problem) throw badRequest(`query.callback: ${problem}`);
    try {
      await assertPublicHost(q.callback, { allowPrivate: deps.config.allowPrivateTargets });
    } catch (err) {
      throw badRequest(`query.callback: ${(err as Error).message}`);
    }
  }
  return { callback: q.callback, skipGp: q.skip_gp === undefined ? undefined : isTrue(q.skip_gp) };
}

const DecidedBy = Type.Object(
  {
    type: StringEnum(['user', 'api_key', 'operator'] as const, { description: 'a person in the console, an API key, or the operator' }),
    id: Type.String({ description: "the person's or key's id" }),
    name: Type.String({ description: "the person's name, or the key's name ('API key' for the account's own key), as it was when they decided" }),
  },
  { title: 'DecidedBy', description: 'beyond the spec: who made the manual decision (null: no decision yet)' },
);

const StatusResponse = Type.Object(
  {
    status: Type.String(),
    pms_status: Type.String(),
    supervised: Nullable(Type.String()),
    supervised_reason: Nullable(Type.String({ description: "beyond the spec: the host's reason for the manual decision, if they gave one" })),
    decided_by: Nullable(DecidedBy),
    decided_at: Nullable(Type.String({ description: 'beyond the spec: when the manual decision was made' })),
    reason: Type.String(),
    guestportal_completed: Type.Boolean(),
    business_rules: Type.Array(Type.String()),
  },
  { title: 'ReservationStatusResponse' },
);

const Check = Type.Object(
  {
    status: Type.String(),
    value: Type.Optional(Type.String()),
    help: Type.Optional(Type.String()),
    strength: Type.Optional(StringEnum(STRENGTHS, { description: 'Beyond the spec: the strength of the evidence the check found (docs/verdicts.md); absent when it found nothing' })),
    findings: Type.Optional(Type.Array(Type.String())),
  },
  { title: 'Check' },
);

/** The body of `screening.changed` webhooks and `screening.finished` callbacks (review.ts, screeningEventBody). */
export const ScreeningEvent = Type.Object(
  {
    id: Type.String({ description: 'the reservation' }),
    status: StringEnum(['pending', 'verified', 'review', 'declined'] as const, { description: 'the composite status: the manual decision when there is one, else the verdict' }),
    guestportal_completed: Type.Boolean(),
    reason: Type.String({ description: 'the verdict in a sentence' }),
    business_rules: Type.Array(Type.String(), { description: 'the business rules that fired' }),
    notes: Type.Array(Type.Object({ text: Type.String(), author_id: Type.String(), author_name: Type.String(), author_type: Type.String(), timestamp: Type.String() })),
    supervised: Nullable(StringEnum(['approve', 'decline'] as const)),
    supervised_reason: Nullable(Type.String({ description: "beyond the hosted original: the host's reason for the manual decision, if they gave one" })),
    decided_by: Nullable(DecidedBy),
    decided_at: Nullable(Type.String({ description: 'beyond the hosted original: when the manual decision was made' })),
    risk_color: StringEnum(['green', 'yellow', 'orange', 'red'] as const, { description: 'beyond the hosted original' }),
    top_risks: Type.Array(Type.String(), { description: 'beyond the hosted original: what was found, strongest first' }),
    top_recommendations: Type.Array(Type.String(), { description: 'beyond the hosted original: what to do' }),
    url: Type.String({ description: 'beyond the hosted original: the reservation in this API' }),
    identity_document: Type.Optional(
      Type.Object(
        {
          verification_id: Type.String({ description: 'GET /v1/identity-verifications/{id} for the fields read' }),
          valid: Type.Boolean({ description: 'every check digit read holds' }),
        },
        { description: "beyond the hosted original: present when the guest's identity document was read from its photo (never the photo or the fields themselves)" },
      ),
    ),
  },
  { title: 'ScreeningEvent' },
);

const SummaryResponse = Type.Object(
  {
    guest_portal_status: Type.String(),
    guest_portal_last_screen: Type.String(),
    verification_composite_status: Type.String(),
    verification_status: Type.String(),
    verification_status_reason: Type.String(),
    risk_color: Type.String(),
    top_risks: Type.Array(Type.String()),
    top_recommendations: Type.Array(Type.String()),
    details: Type.Record(Type.String(), Check),
    supervised_status: Nullable(Type.String()),
  },
  { title: 'ReservationSummaryResponse' },
);

const NotesResponse = Type.Array(Type.Object({ text: Type.String(), author_id: Type.String(), author_name: Type.String(), author_type: Type.String(), timestamp: Type.String() }), { title: 'Notes' });

const ScreensResponse = Type.Object(Object.fromEntries(SCREENS.map((s) => [s, Type.String()])), { title: 'ReservationScreensResponse' });

const GuestPortalResponse = Type.Object(
  {
    full_name: Type.String(),
    phone: Type.String(),
    email: Type.String(),
    name_on_card: Type.String(),
    security_deposit: Type.Boolean(),
    last_step: Type.String(),
    completed: Type.Boolean(),
    completed_at: Type.String(),
    updated_at: Type.String(),
    guests: Type.Array(Type.Object({ name: Type.String(), email: Type.String() })),
    screens: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Beyond the spec: what the guest gave on each screen (`answers`, files as {id, filename, content_type, size}), or `skipped`, with when (`at`)',
    }),
  },
  { title: 'ReservationGuestPortalResponse' },
);

const StargateResponse = Type.Array(
  Type.Object({
    id: Type.String(),
    status: Type.String({ description: 'beyond the spec: queued, sent, canceled' }),
    email: Type.String(),
    phone: Type.String(),
    tag: Type.String(),
    method: Type.String(),
    via: Type.String(),
    sendAfter: Type.String(),
    created: Type.String(),
    updated: Type.String(),
    reservation_id: Type.String(),
    listing_id: Type.String(),
    confirmation_code: Type.String(),
    message: Type.Object({ subject: Type.String(), text: Type.String(), html: Type.String() }),
  }),
  { title: 'GuestMessages' },
);

/** A file the guest uploaded, as a download: for the API and the console alike. */
export function sendUpload(reply: FastifyReply, f: Awaited<ReturnType<typeof openUpload>>) {
  return (
    reply
      .type(f.contentType)
      .header('content-disposition', `attachment; filename="${f.filename.replace(/[^\w.-]/g, '_')}"`)
      .header('cache-control', 'no-store')
      // Whatever the guest uploaded, a browser that opens it runs nothing in it.
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(f.data)
  );
}

export const reservationRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    /** sync=1: answer after the screening run (bounded by GUESTSCREEN_SYNC_TIMEOUT_SECONDS), as it then stands. */
    const afterSync = async (account: AccountRow, r: ReservationRow, sync: string | undefined) => {
      if (!isTrue(sync)) return r;
      await waitForScreening(deps, r.id, r.updated_at, deps.config.syncTimeoutMs);
      return reservations.getReservation(deps, account, r.id);
    };

    type Read = { account: AccountRow; params: { id: string }; query?: unknown };
    const lookupOf = (request: Read) => {
      const q = (request.query ?? {}) as { pms?: string; usepmsid?: string };
      return { pms: q.pms, usePmsId: isTrue(q.usepmsid) };
    };
    const load = (request: Read) => reservations.getReservation(deps, request.account, request.params.id, lookupOf(request));

    // A retry whose first attempt did its work but died before answering: the object as it now stands.
    const replayReservation = { idempotentReplay: async (request: FastifyRequest, id: string) => toReservationView(deps, await reservations.getReservation(deps, request.account, id)) };
    const replayStatus = { idempotentReplay: async (request: FastifyRequest, id: string) => statusView(await reservations.getReservation(deps, request.account, id)) };

    app.post(
      '/reservations',
      {
        config: replayReservation,
        preValidation: rejectReadOnly,
        schema: { tags, operationId: 'createReservation', summary: 'Create a reservation', querystring: WriteQuery, body: CreateBody, response: { 200: ReservationRef, ...errors } },
      },
      async (request) => {
        const r = await reservations.createReservation(deps, request.account, request.body, await writeOptions(deps, request.query));
        return toReservationView(deps, await afterSync(request.account, r, request.query.sync));
      },
    );

    app.put(
      '/reservations/:id',
      {
        preValidation: rejectReadOnly,
        schema: {
          tags,
          operationId: 'updateReservation',
          summary: 'Update a reservation: given fields replace, guest and identification merge key by key',
          params: IdParams,
          querystring: WriteQuery,
          body: UpdateBody,
          response: { 200: ReservationRef, ...errors },
        },
      },
      async (request) => {
        const r = await reservations.updateReservation(deps, request.account, request.params.id, request.body, await writeOptions(deps, request.query));
        return toReservationView(deps, await afterSync(request.account, r, request.query.sync));
      },
    );

    app.get(
      '/reservations/:id',
      {
        schema: {
          tags,
          operationId: 'getReservation',
          summary: 'A reservation by id, confirmation code (pms) or PMS id (pms + usepmsid)',
          params: IdParams,
          querystring: ReadQuery,
          response: { 200: ReservationRef, ...errors },
        },
      },
      // Only the view's columns: not the screening result a full read would decode and drop.
      async (request) => toReservationView(deps, await reservations.getReservationView(deps, request.account, request.params.id, lookupOf(request))),
    );

    app.delete(
      '/reservations/:id',
      {
        schema: {
          tags,
          operationId: 'eraseReservation',
          summary: "Erase a reservation and its guest's personal data (beyond the spec)",
          params: IdParams,
          response: { 200: MessageResponse, ...errors },
        },
      },
      async (request) => {
        await reservations.eraseReservation(deps, request.account, request.actor, request.params.id);
        return { message: `reservation ${request.params.id} erased` };
      },
    );

    app.get(
      '/reservations',
      { schema: { tags, operationId: 'searchReservations', summary: 'Search reservations', querystring: SearchQuery, response: { 200: ReservationList, ...errors } } },
      async (request) => {
        const { rows, ...page } = await reservations.searchReservations(deps, request.account, request.query);
        return { ...page, items: rows.map((r) => toReservationView(deps, r)) };
      },
    );

    app.get(
      '/reservations/:id/summary',
      { schema: { tags, operationId: 'getReservationSummary', summary: 'Verification summary', params: IdParams, querystring: ReadQuery, response: { 200: SummaryResponse, ...errors } } },
      async (request) => {
        const r = await load(request);
        return summaryView(r, await portalProgress(deps.db, r));
      },
    );

    app.get(
      '/reservations/:id/status',
      { schema: { tags, operationId: 'getReservationStatus', summary: 'Verification status', params: IdParams, querystring: ReadQuery, response: { 200: StatusResponse, ...errors } } },
      async (request) => statusView(await load(request)),
    );

    app.post(
      '/reservations/:id/status',
      {
        config: replayStatus,
        schema: {
          tags,
          operationId: 'setManualDecision',
          summary: 'Approve or decline manually; can be changed later',
          params: IdParams,
          body: Type.Object(
            {
              supervised: StringEnum(['approve', 'decline'] as const),
              reason: Type.Optional(Type.String({ maxLength: 1000, description: 'beyond the spec: why, in the host’s words; kept with the decision and sent in the screening webhook' })),
            },
            { additionalProperties: false, title: 'ReservationsVerificationChangeRequest' },
          ),
          response: { 200: StatusResponse, ...errors },
        },
      },
      async (request) => {
        const r = await load(request);
        return statusView(await review.setManualDecision(deps, request.actor, r, request.body.supervised, request.body.reason));
      },
    );

    app.get(
      '/reservations/:id/screens',
      {
        schema: {
          tags,
          operationId: 'getReservationScreens',
          summary: "Guest-portal screens resolved from the account's settings",
          params: IdParams,
          querystring: ReadQuery,
          response: { 200: ScreensResponse, ...errors },
        },
      },
      async (request) => review.screensView(deps, await load(request)),
    );

    app.get(
      '/reservations/:id/notes',
      {
        schema: { tags, operationId: 'listReservationNotes', summary: 'Notes: system, manual decisions, hosts', params: IdParams, querystring: ReadQuery, response: { 200: NotesResponse, ...errors } },
      },
      async (request) => review.notesView(deps, await load(request)),
    );

    app.post(
      '/reservations/:id/notes',
      {
        config: { idempotentReplay: async (request, id) => review.notesView(deps, await reservations.getReservation(deps, request.account, id)) },
        schema: {
          tags,
          operationId: 'addReservationNote',
          summary: 'Add a host note (beyond the spec)',
          params: IdParams,
          body: Type.Object({ text: Type.String({ minLength: 1, maxLength: 5000 }) }, { additionalProperties: false }),
          response: { 200: NotesResponse, ...errors },
        },
      },
      async (request) => review.addHostNote(deps, request.actor, await load(request), request.body.text),
    );

    app.get(
      '/reservations/:id/payments',
      { schema: { tags, operationId: 'listReservationPayments', summary: 'Payments derived from payment events', params: IdParams, response: { 200: PaymentsResponse, ...errors } } },
      async (request) => paymentsView(deps, await load(request)),
    );

    app.post(
      '/reservations/:id/payment-event',
      {
        config: { idempotentReplay: async () => ({ message: 'payment event recorded' }) },
        schema: {
          tags,
          operationId: 'recordPaymentEvent',
          summary: 'Record a payment event; idempotent on (event_source, event_id)',
          params: IdParams,
          body: PaymentEventBody,
          response: { 200: MessageResponse, ...errors },
        },
      },
      async (request) => recordPaymentEvent(deps, await load(request), request.body),
    );

    app.get(
      '/reservations/:id/stargate',
      { schema: { tags, operationId: 'listGuestMessages', summary: 'Queued and sent guest messages', params: IdParams, response: { 200: StargateResponse, ...errors } } },
      async (request) => stargateView(deps, await load(request)),
    );

    app.post(
      '/reservations/:id/sanctions-dismissals',
      {
        config: replayStatus,
        schema: {
          tags,
          operationId: 'dismissSanctionsMatch',
          summary:
            'Dismiss a possible sanctions match as a different person: remembered for the guest and the entry until a list changes the entry, noted, and the reservation screened again (beyond the spec)',
          params: IdParams,
          body: Type.Object(
            {
              list: Type.String({ minLength: 1, maxLength: 200, description: "the candidate's list, e.g. 'OFAC SDN'" }),
              entry_id: Type.String({ minLength: 1, maxLength: 100 }),
              reason: Type.Optional(Type.String({ maxLength: 1000, description: 'why: a different date of birth on the document, another nationality, …' })),
            },
            { additionalProperties: false, title: 'SanctionsDismissalRequest' },
          ),
          response: { 200: StatusResponse, ...errors },
        },
      },
      async (request) => {
        const r = await load(request);
        await dismissSanctionsHit(deps, request.actor, r, request.body);
        return statusView(await reservations.getReservation(deps, request.account, r.id));
      },
    );

    app.post(
      '/reservations/:id/screen',
      {
        config: replayStatus,
        schema: {
          tags,
          operationId: 'screenReservation',
          summary: 'Run screening again now (beyond the spec); with sync=1, answer with the new status',
          params: IdParams,
          querystring: Type.Object({ sync: Type.Optional(QueryFlag) }, { additionalProperties: false }),
          response: { 200: StatusResponse, ...errors },
        },
      },
      async (request) => {
        const r = await load(request);
        const asked = await reservations.screenAgain(deps, r);
        if (isTrue(request.query.sync)) await waitForScreening(deps, r.id, asked, deps.config.syncTimeoutMs);
        return statusView(await reservations.getReservation(deps, request.account, r.id));
      },
    );

    app.get(
      '/reservations/:id/decisions',
      {
        schema: {
          tags,
          operationId: 'listScreeningRuns',
          summary: 'Every screening run: inputs digest, each check, rules fired, verdict (beyond the spec)',
          params: IdParams,
          querystring: ReadQuery,
          response: { 200: DecisionList, ...errors },
        },
      },
      async (request) => decisionsView(deps, await load(request)),
    );

    app.get(
      '/reservations/:id/guestportal',
      { schema: { tags, operationId: 'getGuestPortal', summary: 'Guest-portal details', params: IdParams, querystring: ReadQuery, response: { 200: GuestPortalResponse, ...errors } } },
      async (request) => {
        const r = await load(request);
        return guestPortalView(deps, deps.db, r, await paymentsView(deps, r));
      },
    );

    app.get(
      '/reservations/:id/guestportal/files/:file_id',
      {
        schema: {
          tags,
          operationId: 'getGuestPortalFile',
          summary: 'A file the guest uploaded in the guest portal, decrypted (beyond the spec)',
          params: Type.Object({ id: Type.String({ maxLength: 100 }), file_id: Type.String({ maxLength: 100 }) }),
          querystring: ReadQuery,
          response: { 200: Type.Unknown({ description: 'The file, with its content type' }), ...errors },
        },
      },
      async (request, reply) => {
        return sendUpload(reply, await openUpload(deps, await load(request), request.params.file_id));
      },
    );
  };

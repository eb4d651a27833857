import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, ErrorResponse, MessageResponse } from '../../http/schemas.js';
import { Nullable } from '../../http/validation.js';
import { accountFor } from '../accounts/index.js';
import { SYSTEMS } from '../guests/index.js';
import { getEstablishment, removeEstablishment, setEstablishment } from './establishments.js';
import { receiptPdf, reportsView, sendNow } from './reports.js';
import { notFound } from '../../lib/errors.js';

const tags = ['Authority reports'];

const Establishment = Type.Object(
  {
    system: Type.Union(
      SYSTEMS.map((s) => Type.Literal(s)),
      { description: "ses: Spain's SES.HOSPEDAJES; alloggiati: Italy's Alloggiati Web; siba: Portugal's SIBA" },
    ),
    system_name: Type.String(),
    mode: Type.Union([Type.Literal('test'), Type.Literal('production')], { description: 'test: the authority’s test service or check, nothing filed; production: reports for real' }),
    listing_id: Nullable(Type.String({ description: 'null: the account’s default, for listings without their own' })),
    landlord_code: Nullable(Type.String({ description: 'SES: codigoArrendador' })),
    establishment_code: Nullable(Type.String({ description: 'SES: codigoEstablecimiento' })),
    apartment_id: Nullable(Type.String({ description: 'Alloggiati Web, short-let accounts: IdAppartamento' })),
    nipc: Nullable(Type.String({ description: 'SIBA: the host’s NIPC (UnidadeHoteleira)' })),
    establishment_number: Nullable(Type.String({ description: 'SIBA: the establishment’s number (Estabelecimento), 00 the first' })),
    unit: Nullable(Type.Object(SibaUnitFields(false), { description: 'SIBA: the establishment’s details every file carries (Unidade_Hoteleira)' })),
    ca_bundle_set: Type.Boolean({ description: 'SES: certificates to trust besides the system’s are set' }),
    credentials_set_at: Type.String({ description: 'when the credentials were last given; they are never answered back' }),
    checked_at: Nullable(Type.String({ description: 'when the authority last took the credentials' })),
    check: Type.Union([Type.Literal('passed'), Type.Literal('not_reached')], {
      description: 'passed: the authority’s test call took the credentials; not_reached: it could not be reached on saving (check_problem says why)',
    }),
    check_problem: Nullable(Type.String()),
    tables_as_of: Nullable(Type.String({ description: 'Alloggiati Web: the day its tables of places and documents were last fetched with these credentials (on saving, then weekly)' })),
    tables_problem: Nullable(Type.String({ description: 'Alloggiati Web: why its tables could not be fetched, when they could not' })),
    updated_at: Type.String(),
  },
  { title: 'AuthorityEstablishment' },
);

const Short = (max: number, description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: max, description }));
/** SIBA's `Unidade_Hoteleira`, its bounds bal.xsd's (checked again, with their names, on saving). */
function SibaUnitFields(input: boolean) {
  const text = (max: number, description: string) => (input ? Type.Optional(Type.String({ maxLength: max + 20, description })) : Type.String({ description }));
  return {
    name: text(40, 'Nome (at most 40)'),
    abbreviation: text(15, 'Abreviatura (at most 15; default the name’s start)'),
    address: text(40, 'Morada (at most 40)'),
    town: text(30, 'Localidade (at most 30)'),
    postcode: text(8, 'Codigo_Postal and Zona_Postal: 4 + 3 digits, 1000-001'),
    phone: text(10, 'Telefone (at most 10 digits)'),
    contact_name: text(40, 'Nome_Contacto (at most 40)'),
    contact_email: input ? Type.Optional(Nullable(Type.String({ maxLength: 140, description: 'Email_Contacto (optional)' }))) : Nullable(Type.String({ description: 'Email_Contacto' })),
  };
}
const EstablishmentInput = Type.Object(
  {
    system: Type.Union(SYSTEMS.map((s) => Type.Literal(s))),
    mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('production')], { description: 'default: as before, or test for a new establishment' })),
    landlord_code: Short(10, 'SES: codigoArrendador (required)'),
    establishment_code: Short(10, 'SES: codigoEstablecimiento (required)'),
    ca_bundle: Type.Optional(Nullable(Type.String({ maxLength: 65_536, description: 'SES: PEM certificates to trust besides the system’s (the Ministry’s FNMT chain); null clears' }))),
    apartment_id: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{1,6}$', description: 'Alloggiati Web, short-let accounts: IdAppartamento; null clears' }))),
    username: Short(50, 'the web-service user (SES) or the Alloggiati Web user; left out with password and ws_key: the ones set before stay'),
    password: Short(100, 'write-only'),
    ws_key: Short(100, 'Alloggiati Web: the WSKEY made in its portal (write-only)'),
    nipc: Short(9, 'SIBA: the host’s NIPC, 9 digits (required)'),
    establishment_number: Short(2, 'SIBA: the establishment’s number, 00 the first (required)'),
    unit: Type.Optional(
      Type.Object(SibaUnitFields(true), {
        additionalProperties: false,
        description: 'SIBA: the establishment’s details (required: all but abbreviation and contact_email); fields left out keep what was set',
      }),
    ),
    access_key: Short(100, 'SIBA: the access key (chave de acesso) its portal gives for web-service sending (write-only)'),
  },
  { additionalProperties: false, title: 'AuthorityEstablishmentInput' },
);

const Report = Type.Object(
  {
    id: Type.String(),
    guest: Type.Integer({ description: '1 for the guest who booked, 2… for the others, in the order the portal asked them' }),
    guest_name: Nullable(Type.String({ description: 'null once the guest was erased: the proof of filing is kept' })),
    system: Type.Union(SYSTEMS.map((s) => Type.Literal(s))),
    system_name: Type.String(),
    mode: Type.Union([Type.Literal('test'), Type.Literal('production')], {
      description: 'the mode it went in (or, not sent yet, will go in): test, the authority’s test service, which files nothing; production, for real',
    }),
    tested: Type.Boolean({ description: 'the authority’s test service answered it: nothing was filed, and it goes again for real once the establishment is in production' }),
    state: Type.Union(
      ['missing', 'ready', 'sent', 'accepted', 'rejected', 'not_required'].map((s) => Type.Literal(s)),
      {
        description:
          'missing: the guest has not given all the authority needs (see missing); ready: goes on the arrival day; sent: waiting for the authority; accepted: filed (receipt); rejected: see error; not_required: the authority does not take this guest (SIBA: a Portuguese citizen), nothing is sent',
      },
    ),
    late: Type.Boolean({ description: 'not accepted, and past its deadline (24 hours from arrival; SIBA: 3 working days)' }),
    missing: Type.Array(Type.String(), { description: 'the portal’s field names the guest still has to give, or check_in_date/check_out_date the booking lacks' }),
    due_at: Type.String(),
    sent_at: Nullable(Type.String()),
    answered_at: Nullable(Type.String()),
    receipt: Nullable(
      Type.String({
        description:
          'the proof of filing: SES, its codigoComunicacion; Alloggiati Web, the day (YYYY-MM-DD) of the receipt (Ricevuta) that lists the guest; SIBA gives none (proof.sent and proof.answer are the proof)',
      }),
    ),
    error: Nullable(
      Type.Object({
        code: Nullable(Type.String({ description: 'the authority’s code (SES: codigo or tipoError), or unconfirmed: sent, its answer lost' })),
        message: Nullable(Type.String({ description: 'the authority’s own words' })),
        fix: Type.String({ description: 'what to do about it, in words' }),
      }),
    ),
    proof: Type.Optional(
      Type.Object(
        {
          sent: Nullable(
            Type.String({
              description:
                'what was sent for the guest: SES, the part (XML) of the stay; Alloggiati Web, the guest’s row; SIBA, the file (MovimentoBAL); null before any send, or once the guest was erased',
            }),
          ),
          answer: Nullable(Type.String({ description: 'what the authority answered for the guest (JSON, in its own field names)' })),
        },
        { description: 'the host’s proof of each send: on a booking’s reports, not in webhooks' },
      ),
    ),
  },
  { title: 'AuthorityReport' },
);
const Reports = Type.Object({ reports: Type.Array(Report) }, { title: 'AuthorityReports' });
const SendNow = Type.Object(
  {
    reports: Type.Array(Report),
    sent: Type.Boolean({ description: 'true: the stay is being sent now; false: nothing was sent (nothing_sent says why)' }),
    nothing_sent: Nullable(
      Type.Object({
        code: Type.Union(['filed', 'on_its_way', 'missing', 'no_tables', 'not_arrived', 'too_late', 'changed'].map((c) => Type.Literal(c))),
        message: Type.String(),
      }),
    ),
  },
  { title: 'AuthorityReportsSent' },
);
/** The body of an authority_report.updated webhook. */
export const AuthorityReportEvent = Type.Object({ reservation_id: Type.String(), report: Type.Object(Report.properties) }, { title: 'AuthorityReportEvent' });
const ReservationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

const Query = Type.Object({ user_id: Type.Optional(Type.String({ minLength: 1, description: 'an account the caller manages; default the caller' })) }, { additionalProperties: false });
const ListingParams = Type.Object({ listing_id: Type.String({ minLength: 1, maxLength: 200 }) });
const put = { 200: Establishment, ...authErrors, 422: Type.Ref(ErrorResponse) };

/**
 * Beyond the spec (DESIGN.md §14): which police system a listing reports its guests to, or its
 * account by default, with the credentials the authority's own test call has taken.
 */
export const authorityRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/accounts/authority-establishment',
      {
        schema: {
          tags,
          operationId: 'getAccountAuthorityEstablishment',
          summary: 'The account’s default police system and identifiers, never its credentials (beyond the spec)',
          querystring: Query,
          response: { 200: Establishment, ...authErrors },
        },
      },
      async (request) => getEstablishment(deps, (await accountFor(deps, request.account, request.query.user_id)).id, ''),
    );
    app.put(
      '/accounts/authority-establishment',
      {
        schema: {
          tags,
          operationId: 'setAccountAuthorityEstablishment',
          summary: 'Set the account’s default police system: checked on saving by the authority’s own test call; starts in test mode (beyond the spec)',
          querystring: Query,
          body: EstablishmentInput,
          response: put,
        },
      },
      async (request) => setEstablishment(deps, (await accountFor(deps, request.account, request.query.user_id)).id, '', request.body),
    );
    app.delete(
      '/accounts/authority-establishment',
      {
        schema: {
          tags,
          operationId: 'removeAccountAuthorityEstablishment',
          summary: 'Stop reporting by the account’s default (beyond the spec)',
          querystring: Query,
          response: { 200: MessageResponse, ...authErrors },
        },
      },
      async (request) => {
        await removeEstablishment(deps, (await accountFor(deps, request.account, request.query.user_id)).id, '');
        return { message: 'the account’s authority establishment removed' };
      },
    );
    app.get(
      '/listings/:listing_id/authority-establishment',
      {
        schema: {
          tags,
          operationId: 'getListingAuthorityEstablishment',
          summary: 'A listing’s own police system and identifiers, never its credentials (beyond the spec)',
          params: ListingParams,
          response: { 200: Establishment, ...authErrors },
        },
      },
      async (request) => getEstablishment(deps, request.account.id, request.params.listing_id),
    );
    app.put(
      '/listings/:listing_id/authority-establishment',
      {
        schema: {
          tags,
          operationId: 'setListingAuthorityEstablishment',
          summary: 'Set a listing’s police system: checked on saving by the authority’s own test call; starts in test mode (beyond the spec)',
          params: ListingParams,
          body: EstablishmentInput,
          response: put,
        },
      },
      async (request) => setEstablishment(deps, request.account.id, request.params.listing_id, request.body),
    );
    app.delete(
      '/listings/:listing_id/authority-establishment',
      {
        schema: {
          tags,
          operationId: 'removeListingAuthorityEstablishment',
          summary: 'Stop a listing’s own reporting: it falls back to the account’s default (beyond the spec)',
          params: ListingParams,
          response: { 200: MessageResponse, ...authErrors },
        },
      },
      async (request) => {
        await removeEstablishment(deps, request.account.id, request.params.listing_id);
        return { message: `listing ${request.params.listing_id}'s authority establishment removed` };
      },
    );
    app.get(
      '/reservations/:id/authority-reports',
      {
        schema: {
          tags,
          operationId: 'getAuthorityReports',
          summary: 'Each guest’s police report: missing, ready, sent, accepted (with the receipt) or rejected, and late (beyond the spec)',
          params: ReservationParams,
          response: { 200: Reports, ...authErrors },
        },
      },
      async (request) => ({ reports: await reportsView(deps, request.account.id, request.params.id) }),
    );
    app.post(
      '/reservations/:id/authority-reports',
      {
        schema: {
          tags,
          operationId: 'sendAuthorityReports',
          summary: 'Send now: each guest’s report planned from the portal’s answers and sent at once, whatever the day; one filed is not sent again unless its guest changed (beyond the spec)',
          params: ReservationParams,
          response: { 202: SendNow, ...authErrors, 409: Type.Ref(ErrorResponse) },
        },
      },
      async (request, reply) => reply.code(202).send(await sendNow(deps, request.account.id, request.params.id)),
    );
    app.get(
      '/reservations/:id/authority-receipts/:day',
      {
        schema: {
          tags,
          operationId: 'getAuthorityReceipt',
          summary: 'Alloggiati Web’s receipt (Ricevuta) of a day for the booking’s establishment, as the PDF the service gave: the host’s proof of filing (beyond the spec)',
          description: 'The day is a report’s receipt (YYYY-MM-DD). Kept 5 years; the service itself gives it for 30 days only.',
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }), day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) }),
          response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'application/pdf' }), ...authErrors },
        },
      },
      async (request, reply) => {
        const pdf = await receiptPdf(deps, request.account.id, request.params.id, request.params.day);
        if (!pdf) throw notFound(`a receipt of ${request.params.day} for the establishment of reservation ${request.params.id}`);
        return reply.type('application/pdf').header('content-disposition', `attachment; filename="ricevuta-${request.params.day}.pdf"`).header('cache-control', 'no-store').send(pdf);
      },
    );
  };

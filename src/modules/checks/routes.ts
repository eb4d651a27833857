import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { authErrors, emptyBodyIsObject, MessageResponse, PageOf, Pagination } from '../../http/schemas.js';
import { Nullable } from '../../http/validation.js';
import { RISK_CATEGORIES } from '../../providers/adverse-media/taxonomy.js';
import * as checks from './service.js';

const S = Nullable(Type.String());
const Source = Type.Object({ name: Type.String(), date: S, license: Type.Optional(Type.String()), url: Type.Optional(Type.String()) });
const Status = Type.String({ description: 'PENDING, then FINISHED (or FAILED, with error)' });
const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const SearchStatus = Type.Object({ id: Type.String(), status: Status, startDate: Type.String() });
const Report = Type.Object({
  id: Type.String(),
  status: Status,
  startDate: Type.String(),
  stopDate: S,
  riskCategories: Type.Array(Type.String({ enum: [...RISK_CATEGORIES] })),
  findings: Type.Array(
    Type.Object({
      title: Type.String(),
      snippet: Type.String(),
      summary: Type.String({ description: 'which risk terms stood how near the name, and where and when it was published' }),
      displayLink: S,
      link: Type.String(),
      image: S,
      publishedAt: S,
      riskCategories: Type.Array(Type.String()),
      source: Source,
    }),
  ),
  error: Type.Optional(Type.String()),
});
const Submitted = Type.Object({ id: Type.String(), start_date: Type.String(), status: Status, type: Type.String() });
const Results = Type.Object({
  id: Type.String(),
  start_date: Type.String(),
  stop_date: S,
  status: Status,
  risk_status: Nullable(Type.String({ description: 'CLEARED or REVIEW once finished' })),
  type: Type.String(),
  pdf: Nullable(Type.String({ description: 'the PDF report, served with the API key' })),
  report_items: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Type.String({ description: 'CLEAR, REVIEW, NOT_RUN (no data source configured), or PENDING (waiting on its provider: Checkr, on the person)' }),
      items: Type.Array(
        Type.Object({
          title: Type.String(),
          subtitle: Type.Optional(Type.String()),
          description: Type.Optional(Type.String()),
          tags: Type.Array(Type.String()),
          images: Type.Optional(Type.Array(Type.String())),
        }),
      ),
    }),
  ),
  error: Type.Optional(Type.String()),
});

const ListQuery = Type.Object({ ...Pagination, status: Type.Optional(Type.String({ enum: ['PENDING', 'FINISHED', 'FAILED'] })) }, { additionalProperties: false });

const Person = {
  first_name: Type.Optional(Type.String({ description: 'required' })),
  middle_name: Type.Optional(Type.String()),
  last_name: Type.Optional(Type.String({ description: 'required' })),
  year_of_birth: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: 'YYYY' })),
  country: Type.Optional(Type.String({ description: 'ISO 3166 alpha-2' })),
  city: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
};

/** Adverse-media searches (under the spec's /lookup) and background checks: jobs answered PENDING at once. */
/** A background check's PDF report, opened in the browser, never cached: for the API and the console alike. */
export const sendPdf = (reply: FastifyReply, filename: string, pdf: Buffer) =>
  reply.type('application/pdf').header('content-disposition', `inline; filename="${filename}"`).header('cache-control', 'no-store').send(pdf);

export const checkRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/lookup/adverse-media/search',
      {
        schema: {
          tags: ['Lookups'],
          summary: 'Start an adverse-media search for a person (answers PENDING; the report follows)',
          querystring: Type.Object(Person, { additionalProperties: false }),
          response: { 200: SearchStatus, ...authErrors },
        },
      },
      async (request) => {
        const subject = checks.readSubject(request.query, { countryRequired: true }, deps.clock());
        const row = await checks.submitCheck(deps, request.account.id, 'adverse_media', subject);
        return { id: row.id, status: row.status, startDate: row.start_date };
      },
    );
    app.get(
      '/lookup/adverse-media/results',
      {
        schema: {
          tags: ['Lookups'],
          summary: "The account's adverse-media reports, newest first, without their findings (beyond the spec)",
          querystring: ListQuery,
          response: {
            200: PageOf(Type.Object({ id: Type.String(), status: Status, startDate: Type.String(), stopDate: S, results: Type.String({ description: 'the URL of the report, findings included' }) })),
            ...authErrors,
          },
        },
      },
      async (request) => checks.listAdverseMedia(deps, request.account.id, { from: request.query.from ?? 0, size: request.query.size ?? 20, status: request.query.status }),
    );
    app.get('/lookup/adverse-media/results/:id', { schema: { tags: ['Lookups'], summary: 'An adverse-media report', params: Id, response: { 200: Report, ...authErrors } } }, async (request) =>
      checks.adverseMediaView(deps, await checks.findCheck(deps, request.account.id, request.params.id, 'adverse_media')),
    );
    app.delete(
      '/lookup/adverse-media/results/:id',
      { schema: { tags: ['Lookups'], summary: 'Delete an adverse-media report and the person it names (beyond the spec)', params: Id, response: { 200: MessageResponse, ...authErrors } } },
      async (request) => {
        await checks.deleteCheck(deps, request.account.id, request.params.id, 'adverse_media');
        return { message: `adverse-media report ${request.params.id} deleted` };
      },
    );
    app.post(
      '/background-check/submit',
      {
        config: {
          idempotentReplay: async (request, id) => {
            const row = await checks.findCheck(deps, request.account.id, id, 'globalcheck');
            return { id: row.id, start_date: row.start_date, status: row.status, type: row.type };
          },
        },
        preValidation: emptyBodyIsObject,
        schema: {
          tags: ['Background checks'],
          summary: 'Start a background check (answers PENDING; results and a PDF follow)',
          querystring: Type.Object({ type: Type.String({ enum: ['globalcheck'], description: 'globalcheck' }) }, { additionalProperties: false }),
          body: Type.Object({ ...Person, email: Type.Optional(Type.String({ maxLength: 254 })), phone: Type.Optional(Type.String({ maxLength: 40 })) }, { additionalProperties: false }),
          response: { 200: Submitted, ...authErrors },
        },
      },
      async (request) => {
        const subject = checks.readSubject(request.body, { countryRequired: false }, deps.clock());
        const row = await checks.submitCheck(deps, request.account.id, 'globalcheck', subject);
        return { id: row.id, start_date: row.start_date, status: row.status, type: row.type };
      },
    );
    app.get(
      '/background-check/results',
      {
        schema: {
          tags: ['Background checks'],
          summary: "The account's background checks, newest first, without their findings (beyond the spec)",
          querystring: ListQuery,
          response: {
            200: PageOf(
              Type.Object({
                id: Type.String(),
                start_date: Type.String(),
                stop_date: S,
                status: Status,
                risk_status: S,
                type: Type.String(),
                pdf: S,
                results: Type.String({ description: 'the URL of its results, findings included' }),
              }),
            ),
            ...authErrors,
          },
        },
      },
      async (request) => checks.listBackgroundChecks(deps, request.account.id, { from: request.query.from ?? 0, size: request.query.size ?? 20, status: request.query.status }),
    );
    app.get(
      '/background-check/results/:id',
      { schema: { tags: ['Background checks'], summary: 'A background check: status, risk status, findings by source, PDF link', params: Id, response: { 200: Results, ...authErrors } } },
      async (request) => checks.backgroundView(deps, await checks.findCheck(deps, request.account.id, request.params.id, 'globalcheck')),
    );
    app.delete(
      '/background-check/results/:id',
      { schema: { tags: ['Background checks'], summary: 'Delete a background check, its report and PDF (beyond the spec)', params: Id, response: { 200: MessageResponse, ...authErrors } } },
      async (request) => {
        await checks.deleteCheck(deps, request.account.id, request.params.id, 'globalcheck');
        return { message: `background check ${request.params.id} deleted` };
      },
    );
    app.get(
      '/background-check/results/:id/pdf',
      {
        schema: {
          tags: ['Background checks'],
          summary: 'The PDF report of a finished background check',
          params: Id,
          response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'application/pdf' }), ...authErrors },
        },
      },
      async (request, reply) => {
        return sendPdf(reply, `${request.params.id}.pdf`, checks.openPdf(deps, await checks.findCheck(deps, request.account.id, request.params.id, 'globalcheck')));
      },
    );
  };

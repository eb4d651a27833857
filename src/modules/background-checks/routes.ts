import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { authErrors, emptyBodyIsObject, MessageResponse, PageOf } from '../../http/schemas.js';
import { Id, ListQuery, Person, Results, S, Status, Submitted } from './schemas.js';
import * as checks from './service.js';

/** A background check's PDF report, opened in the browser, never cached: for the API and the console alike. */
export const sendPdf = (reply: FastifyReply, filename: string, pdf: Buffer) =>
  reply.type('application/pdf').header('content-disposition', `inline; filename="${filename}"`).header('cache-control', 'no-store').send(pdf);

/** Background checks (/v1/background-check): jobs answered PENDING at once. */
export const checkRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
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
          operationId: 'submitBackgroundCheck',
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
          operationId: 'listBackgroundChecks',
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
      {
        schema: {
          tags: ['Background checks'],
          operationId: 'getBackgroundCheck',
          summary: 'A background check: status, risk status, findings by source, PDF link',
          params: Id,
          response: { 200: Results, ...authErrors },
        },
      },
      async (request) => checks.backgroundView(deps, await checks.findCheck(deps, request.account.id, request.params.id, 'globalcheck')),
    );
    app.delete(
      '/background-check/results/:id',
      {
        schema: {
          tags: ['Background checks'],
          operationId: 'deleteBackgroundCheck',
          summary: 'Delete a background check, its report and PDF (beyond the spec)',
          params: Id,
          response: { 200: MessageResponse, ...authErrors },
        },
      },
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
          operationId: 'getBackgroundCheckPdf',
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

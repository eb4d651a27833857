import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, MessageResponse, PageOf } from '../../http/schemas.js';
import { Id, ListQuery, Person, Report, S, SearchStatus, Status } from './schemas.js';
import * as checks from './service.js';

/**
 * Adverse-media searches under the spec's /v1/lookup: a report is a check of its own kind (the
 * same table, job and retention as background checks), answered PENDING at once.
 */
export const adverseMediaRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/lookup/adverse-media/search',
      {
        schema: {
          tags: ['Lookups'],
          operationId: 'startAdverseMediaSearch',
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
          operationId: 'listAdverseMediaReports',
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
    app.get(
      '/lookup/adverse-media/results/:id',
      { schema: { tags: ['Lookups'], operationId: 'getAdverseMediaReport', summary: 'An adverse-media report', params: Id, response: { 200: Report, ...authErrors } } },
      async (request) => checks.adverseMediaView(deps, await checks.findCheck(deps, request.account.id, request.params.id, 'adverse_media')),
    );
    app.delete(
      '/lookup/adverse-media/results/:id',
      {
        schema: {
          tags: ['Lookups'],
          operationId: 'deleteAdverseMediaReport',
          summary: 'Delete an adverse-media report and the person it names (beyond the spec)',
          params: Id,
          response: { 200: MessageResponse, ...authErrors },
        },
      },
      async (request) => {
        await checks.deleteCheck(deps, request.account.id, request.params.id, 'adverse_media');
        return { message: `adverse-media report ${request.params.id} deleted` };
      },
    );
  };

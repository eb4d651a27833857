import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, PageOf, Pagination } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import { auditPage } from './service.js';

const AuditLine = Type.Object(
  {
    id: Type.Integer(),
    at: Type.String({ description: 'when (ISO 8601, UTC)' }),
    actor: Nullable(
      Type.Object({
        type: StringEnum(['user', 'api_key', 'operator'] as const, { description: 'a person in the console, an API key, or the operator (command line, the service itself)' }),
        id: Type.String(),
        name: Type.String({ description: 'as it was then' }),
      }),
    ),
    action: Type.String({ description: "what was done: 'reservation.approved', 'rules.changed', 'user.invited', …" }),
    subject_id: Nullable(Type.String({ description: 'the object it was done to' })),
    detail: Type.Unknown({ description: 'more about it, never guest personal data' }),
  },
  { title: 'AuditLine' },
);

/** Beyond the spec: the account's audit log (DESIGN.md section 12). */
export const auditRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/audit',
      {
        schema: {
          tags: ['Audit'],
          operationId: 'listAudit',
          summary: 'Who did what in this account, latest first (beyond the spec)',
          description: 'Every change made in the console names its person; every change made through the API names its key. Decisions, notes, people, keys, rules, blocklist, settings and webhooks.',
          querystring: Type.Object(
            {
              ...Pagination,
              actor: Type.Optional(Type.String({ maxLength: 100, description: "a person's or key's id" })),
              action: Type.Optional(Type.String({ maxLength: 100, description: "an action, or the start of one ending in a dot ('user.')" })),
              from_date: Type.Optional(Type.String({ maxLength: 40, description: 'from this date or time (inclusive)' })),
              to_date: Type.Optional(Type.String({ maxLength: 40, description: 'up to this date (the whole day) or time' })),
            },
            { additionalProperties: false },
          ),
          response: { 200: PageOf(AuditLine), ...authErrors },
        },
      },
      async (request) => {
        const { from = 0, size = 20, ...q } = request.query;
        return auditPage(deps, request.account, q, from, size);
      },
    );
  };

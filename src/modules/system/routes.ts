import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';

const tags = ['System'];
const Health = Type.Object({ status: Type.String() });

export const systemRoutes = (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/healthz',
      { config: { public: true }, schema: { tags, summary: 'Liveness: the process answers', security: [], response: { 200: Health } } },
      async () => ({ status: 'ok' }),
    );

    app.get(
      '/readyz',
      {
        config: { public: true },
        schema: {
          tags,
          summary: 'Readiness: the database answers',
          security: [],
          response: { 200: Health, 503: Type.Ref('ErrorResponse') },
        },
      },
      async () => {
        try {
          await sql`select 1`.execute(deps.db);
        } catch {
          throw new AppError('unavailable', 'database is not reachable');
        }
        return { status: 'ready' };
      },
    );

    app.get(
      '/v1/openapi.json',
      {
        config: { public: true },
        schema: { tags, summary: 'This API as an OpenAPI 3.1 document', security: [], hide: true },
      },
      async () => app.swagger(),
    );
  };

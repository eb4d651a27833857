import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ping } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { VERSION } from '../../version.js';
import { enableMetrics, metricsAllowed, metricsText } from './metrics.js';
import { dataSources } from './sources.js';

const tags = ['System'];
const Health = Type.Object({ status: Type.String(), version: Type.String({ description: 'the running version of guestscreen' }) }, { title: 'Health' });
const Ready = Type.Object(
  {
    status: Type.String(),
    sources: Type.Array(
      Type.Object({
        name: Type.String(),
        installed: Type.Boolean(),
        detail: Type.String({ description: 'what is installed, or what the operator can do to install it' }),
      }),
      { description: 'the data sources the checks read; a missing one makes its check INCOMPLETE, never wrong' },
    ),
  },
  { title: 'Readiness' },
);

export const systemRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/healthz', { config: { public: true }, schema: { tags, operationId: 'getHealth', summary: 'Liveness: the process answers', security: [], response: { 200: Health } } }, async () => ({
      status: 'ok',
      version: VERSION,
    }));

    app.get(
      '/readyz',
      {
        config: { public: true },
        schema: {
          tags,
          operationId: 'getReadiness',
          summary: 'Readiness: the database answers; with the data sources installed',
          security: [],
          response: { 200: Ready, 503: Type.Ref('ErrorResponse') },
        },
      },
      async () => {
        // From the stop signal on, a load balancer sends this process no new requests (runtime's shutdown).
        if (deps.shutdown.started) throw new AppError('unavailable', 'shutting down');
        try {
          await ping(deps.db);
        } catch {
          throw new AppError('unavailable', 'database is not reachable');
        }
        return { status: 'ready', sources: await dataSources(deps) };
      },
    );

    // On the API's port only behind its own token; GUESTSCREEN_METRICS_PORT serves it apart (runtime.ts).
    if (deps.config.metrics?.token !== undefined) {
      enableMetrics(deps);
      app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
        if (!metricsAllowed(deps, request.headers.authorization)) throw new AppError('unauthorized', 'the metrics need Authorization: Bearer and the metrics token');
        const { contentType, body } = await metricsText(deps);
        return reply.type(contentType).send(body);
      });
    }

    // The front door: hosts land in the console (its sign-in when they are not signed in).
    app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/console', 302));

    app.get(
      '/v1/openapi.json',
      {
        config: { public: true },
        schema: { tags, summary: 'This API as an OpenAPI 3.1 document', security: [], hide: true },
      },
      async () => app.swagger(),
    );
  };

import { AuthorityReportEvent } from './modules/authority/routes.js';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { Role } from './db/schema.js';
import type { Deps } from './deps.js';
import { auditRoutes } from './modules/audit/routes.js';
import { registerAuditTrail } from './modules/audit/trail.js';
import { neededRole, registerAuth } from './http/auth.js';
import { connectionOptions, registerLingeringClose } from './http/connections.js';
import { AppError } from './lib/errors.js';
import { registerErrorHandling } from './http/errors.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerInputRules } from './http/input-rules.js';
import { hashApiKey } from './lib/api-keys.js';
import { ErrorResponse } from './http/schemas.js';
import { formatValidationErrors } from './http/validation.js';
import { createValidatorCompiler, lazySerializers } from './http/validators.js';
import { accountRoutes } from './modules/accounts/routes.js';
import { signupRoutes } from './modules/signup/routes.js';
import { Account } from './modules/accounts/schemas.js';
import { reservationRoutes } from './modules/reservations/routes.js';
import { Reservation } from './modules/reservations/schemas.js';
import { blocklistRoutes } from './modules/blocklist/routes.js';
import { lookupRoutes } from './modules/lookups/routes.js';
import { checkrWebhookRoutes } from './modules/background-checks/checkr-webhook.js';
import { adverseMediaRoutes } from './modules/background-checks/adverse-media-routes.js';
import { checkRoutes } from './modules/background-checks/routes.js';
import { ruleRoutes } from './modules/rules/routes.js';
import { matchRoutes } from './modules/screening/match-routes.js';
import { screeningSettingsRoutes } from './modules/screening/settings-routes.js';
import { settingsRoutes } from './modules/settings/routes.js';
import { systemRoutes } from './modules/system/routes.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { deliveryRoutes } from './modules/events/routes.js';
import { apiDescription, referencePage } from './openapi.js';
import { ScreeningEvent } from './modules/reservations/routes.js';
import { assetRoutes } from './web/assets.js';
import { consolePages } from './web/console/index.js';
import { portalPages } from './web/portal.js';
import { listingRoutes } from './modules/listings/routes.js';
import { authorityRoutes } from './modules/authority/routes.js';
import { identityRoutes } from './modules/identity/routes.js';
import { signupPages } from './web/signup.js';

export interface RouteInfo {
  method: string;
  url: string;
  public: boolean;
  allowSuspended: boolean;
  resellerOnly: boolean;
  /** The console: the least role the page or form needs. */
  role: Role | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as registered, so the shared security suite covers new ones by itself. */
    routeCatalog: RouteInfo[];
  }
}

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Registers more routes before the app is sealed (tests use it for failure routes). */
  configure?: (app: FastifyInstance) => void;
}

/**
 * Path parameters and query keys whose values the access log shows: ids, names of settings and
 * filters. Every other value is shown as `…`: a token in the path (a guest portal's, a signup
 * link's) opens what it names like an API key, and a lookup's phone number, e-mail, address or IP,
 * a search term or an `emails` filter is a guest's personal data. A parameter added later is
 * hidden until it is named here.
 */
const SHOWN_IN_ACCESS_LOG = new Set([
  ...['id', 'file_id', 'key', 'screen', '*'],
  ...['status', 'source', 'size', 'from', 'dateField', 'startDate', 'endDate', 'active', 'pending_review', 'risk_color', 'guestportal_completed', 'listings'],
  ...['pms', 'usepmsid', 'sync', 'skip_gp', 'hidepw', 'suspended', 'step', 'type'],
]);
const HIDDEN = '…';
/** The log levels at which the access log is written. */
const ACCESS_LEVELS = new Set(['trace', 'debug', 'info']);

/**
 * The request's url as the access log shows it: the route's path with the values of its
 * parameters, and the query's keys, each value hidden unless it is named in SHOWN_IN_ACCESS_LOG.
 * A url no route matched is logged as sent, its query values hidden the same way.
 */
function loggedUrl(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  const pattern = request.routeOptions.url;
  const params = request.params as Record<string, string> | undefined;
  const path =
    pattern && params
      ? pattern.replace(/:(\w+)|\*/g, (_, name: string | undefined) => {
          const value = params[name ?? '*'];
          if (value === undefined) return '';
          return SHOWN_IN_ACCESS_LOG.has(name ?? '*') ? (name ? encodeURIComponent(value) : encodeURI(value)) : HIDDEN;
        })
      : q < 0
        ? request.url
        : request.url.slice(0, q);
  if (q < 0) return path;
  const query = request.url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return SHOWN_IN_ACCESS_LOG.has(pair) ? pair : HIDDEN;
      return SHOWN_IN_ACCESS_LOG.has(pair.slice(0, eq)) ? pair : `${pair.slice(0, eq)}=${HIDDEN}`;
    });
  return `${path}?${query.join('&')}`;
}

export async function buildApp(deps: Deps, opts: BuildOptions = {}): Promise<FastifyInstance> {
  // Request ids: req_ and 32 hex digits, 64 random bits drawn once per process and then a counter.
  // A random UUID for each request cost a visible share of the cheapest requests.
  const requestIdPrefix = `req_${randomBytes(8).toString('hex')}`;
  let requests = 0;
  const app = Fastify({
    logger: opts.logger ?? {
      level: deps.config.logLevel,
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization'],
    },
    // One access line a request (below), not Fastify's two ("incoming request" and "request completed").
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    ...connectionOptions(deps.config),
    requestIdHeader: 'x-request-id',
    // Behind a reverse proxy, the client's address (logs, rate limits, sign-in throttling) is the
    // one the named proxies put in X-Forwarded-For; a header from anyone else is not believed.
    trustProxy: deps.config.trustedProxies.length > 0 ? deps.config.trustedProxies : false,
    genReqId: () => `${requestIdPrefix}${(requests++).toString(16).padStart(16, '0')}`,
    schemaErrorFormatter: formatValidationErrors,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers(SerializerSelector() as never) as never } },
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const routeCatalog: RouteInfo[] = [];
  app.decorate('routeCatalog', routeCatalog);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routeCatalog.push({
        method,
        url: route.url,
        public: Boolean(route.config?.public),
        allowSuspended: Boolean(route.config?.allowSuspended),
        resellerOnly: Boolean(route.config?.resellerOnly),
        role: route.url.startsWith('/console') && !route.config?.public ? neededRole(method, route.config ?? {}) : undefined,
      });
    }
  });

  const shared = [ErrorResponse, Account, Reservation];
  for (const schema of shared) app.addSchema(schema);
  app.setValidatorCompiler(createValidatorCompiler(shared));
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Every answer is the type it says it is: a browser never guesses another (an uploaded file as HTML).
    reply.header('x-content-type-options', 'nosniff');
    // In flight until its response is sent or its client gone ('close' comes either way).
    deps.api.inFlight++;
    reply.raw.once('close', () => deps.api.inFlight--);
    done();
  });
  // The access log: one line a request, when its answer has gone. Its fields are flat: through
  // Fastify's `req` serializer and the logger's redaction of its paths each line cost more.
  app.addHook('onResponse', (request, reply, done) => {
    if (!ACCESS_LEVELS.has(request.log.level)) return done();
    request.log.info({ method: request.method, url: loggedUrl(request), statusCode: reply.statusCode, remoteAddress: request.ip, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
  if (deps.config.metrics) {
    const { httpRequests } = deps.metrics;
    app.addHook('onResponse', (request, reply, done) => {
      // The route's pattern, never the path: ids and tokens would make a series per request.
      httpRequests.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
  }
  // A client that goes away before its answer leaves a line too (it gets no `request completed`).
  app.addHook('onRequestAbort', (request, done) => {
    if (!ACCESS_LEVELS.has(request.log.level)) return done();
    request.log.info({ method: request.method, url: loggedUrl(request), remoteAddress: request.ip }, 'request aborted');
    done();
  });

  registerErrorHandling(app);
  registerLingeringClose(app);
  registerInputRules(app);
  await app.register(swagger, apiDescription(deps.config, { ScreeningEvent, AuthorityReportEvent }));
  await app.register(swaggerUi, referencePage());

  registerAuth(app, deps);
  registerAuditTrail(app, deps);
  registerIdempotency(app, deps);
  if (deps.config.rateLimitPerMinute > 0) {
    await app.register(rateLimit, {
      max: deps.config.rateLimitPerMinute,
      timeWindow: 60_000,
      allowList: (request) => !request.url.startsWith('/v1/'),
      keyGenerator: (request) => {
        const key = request.headers['x-api-key'];
        return typeof key === 'string' ? hashApiKey(key) : request.ip;
      },
      errorResponseBuilder: (_request, context) =>
        new AppError('rate_limited', `rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`, {
          'retry-after': String(Math.ceil(context.ttl / 1000)),
        }),
    });
  }

  await app.register(systemRoutes(deps));
  await app.register(
    async (v1) => {
      await v1.register(accountRoutes(deps));
      await v1.register(signupRoutes(deps));
      await v1.register(webhookRoutes(deps));
      await v1.register(deliveryRoutes(deps));
      await v1.register(settingsRoutes(deps));
      await v1.register(reservationRoutes(deps));
      await v1.register(screeningSettingsRoutes(deps));
      await v1.register(listingRoutes(deps));
      await v1.register(authorityRoutes(deps));
      await v1.register(matchRoutes(deps));
      await v1.register(identityRoutes(deps));
      await v1.register(ruleRoutes(deps));
      await v1.register(blocklistRoutes(deps));
      await v1.register(lookupRoutes(deps));
      await v1.register(checkRoutes(deps));
      await v1.register(adverseMediaRoutes(deps));
      await v1.register(auditRoutes(deps));
    },
    { prefix: '/v1' },
  );
  await app.register(assetRoutes);
  await app.register(consolePages(deps));
  await app.register(signupPages(deps));
  await app.register(portalPages(deps));
  await app.register(checkrWebhookRoutes(deps));
  opts.configure?.(app);
  await app.ready();
  return app;
}

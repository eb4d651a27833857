import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { audit } from './repo.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The action a console form's line records when it does what an API route does, so both read
     * alike in the log ("accounts.screening_settings.changed", not the form's own address).
     */
    audit?: string;
  }
  interface FastifyRequest {
    /** What a change that made something new made (its id), for its audit line: a route with no id in its address sets it. */
    auditSubject?: string;
  }
}

/**
 * Routes whose service writes its own audit line, in the change's transaction (decisions, notes,
 * people, passwords, two-factor, sessions, accounts, erasure), and routes that change nothing
 * though they are POSTs (a dry run, a match, a lookup, a one-off reading).
 */
const OWN_LINE = [
  /\/decision$/,
  /\/status$/,
  /\/notes$/,
  /^\/console\/(people|me|two-factor|sign-in|sign-out|forgot|reset|invitation|keys)\b/,
  /^\/v1\/accounts\/(register|signup|:id)$/,
  /^\/console\/accounts(\/|$)/,
  // A reservation's own record says when it came and changed; a PMS sends thousands a day.
  /^\/v1\/reservations(\/:id)?$/,
  /\/payment-event$/,
  /dry-run$/,
  /^\/v1\/(lookup|screening\/match|identity\/(read|compare))/,
];

const VERBS: Record<string, string> = { remove: 'removed', delete: 'deleted', rotate: 'rotated', replay: 'replayed', import: 'imported', screen: 'rescreened', enabled: 'changed' };

/** "PUT /v1/rules/:id" → "rules.changed"; "POST /console/blocklist/:id/remove" → "blocklist.removed". */
export function actionOf(method: string, url: string): string {
  const words = url
    .replace(/^\/(v1|console)\/?/, '')
    .split('/')
    .filter((w) => w && !w.startsWith(':'));
  const last = words.at(-1) ?? '';
  if (VERBS[last]) return [...words.slice(0, -1), VERBS[last]].join('.');
  const verb = method === 'DELETE' ? 'deleted' : method === 'PUT' || url.endsWith('/:id') ? 'changed' : 'created';
  return [...words, verb].join('.').replace(/-/g, '_');
}

/** A console form's "try it" and "write it in CEL" buttons (the rule form's intent) post to the route that saves. */
const isDryRun = (request: FastifyRequest) => ['dry-run', 'switch'].includes(String((request.body as { intent?: unknown } | undefined)?.intent));

/** What the change was made on: the id in its address, what the route says it made, or the id its JSON answer names. */
const subjectOf = (request: FastifyRequest, payload: unknown) => {
  const p = request.params as Record<string, string | undefined>;
  const named = p.id ?? p.listing_id ?? p.key ?? request.auditSubject;
  if (named) return named;
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    const id = (JSON.parse(payload) as { id?: unknown }).id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
};

/**
 * Every change made through the API or the console records who made it (DESIGN.md section 12):
 * the request's key or person, the action, the object it named. Written once the change has
 * succeeded and before the answer goes, so an acknowledged change has its line; a line that
 * cannot be written is logged, and the change it describes stands.
 */
export function registerAuditTrail(app: FastifyInstance, deps: Deps) {
  // Callback style: a read costs no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400 || !request.actor || !request.account) return done(null, payload);
    const url = request.routeOptions.url ?? '';
    if (!/^\/(v1|console)\//.test(url) || OWN_LINE.some((re) => re.test(url)) || isDryRun(request)) return done(null, payload);
    audit(deps.db, {
      account_id: request.account.id,
      actor: request.actor,
      action: request.routeOptions.config.audit ?? actionOf(request.method, url),
      subject_id: subjectOf(request, payload),
      at: iso(deps.clock()),
    }).then(
      () => done(null, payload),
      (err: unknown) => {
        request.log.error({ err }, 'audit line not written');
        done(null, payload);
      },
    );
  });
}

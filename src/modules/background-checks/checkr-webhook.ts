import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError, badRequest } from '../../lib/errors.js';
import { validCheckrSignature } from '../../providers/criminal/checkr.js';
import { checkrEvent } from './service.js';

/**
 * POST /webhooks/checkr: Checkr's events (the URL is set in Checkr's dashboard), signed with the
 * API key over the raw body. An event about one of this service's candidates runs that check's
 * Checkr job at once; the job reads the invitation and the report from Checkr itself, so an
 * event (a replayed one too) only sets the timing. Answered 200 once the job is queued, and for
 * candidates this service does not know (Checkr drops a URL that keeps failing).
 */
export function checkrWebhookRoutes(deps: Deps): FastifyPluginAsync {
  return async (app) => {
    // The signature is over the body as sent: in this plugin JSON arrives as text.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.post('/webhooks/checkr', { config: { public: true }, schema: { hide: true } }, async (request) => {
      const checkr = deps.config.lookups.vendors.checkr;
      if (!checkr) throw new AppError('not_found', 'no route for POST /webhooks/checkr: Checkr is not configured');
      const raw = typeof request.body === 'string' ? request.body : '';
      const signature = request.headers['x-checkr-signature'];
      if (!validCheckrSignature(checkr.secrets.API_KEY ?? '', raw, typeof signature === 'string' ? signature : undefined)) {
        throw new AppError('unauthorized', 'X-Checkr-Signature is missing or does not match the body');
      }
      let event: unknown;
      try {
        event = JSON.parse(raw);
      } catch {
        throw badRequest('body: not JSON');
      }
      const data = typeof event === 'object' && event !== null ? (event as { data?: { object?: Record<string, unknown> } }).data : undefined;
      const object = data?.object ?? {};
      const candidateId = typeof object.candidate_id === 'string' ? object.candidate_id : object.object === 'candidate' && typeof object.id === 'string' ? object.id : null;
      return { received: true, matched: candidateId ? await checkrEvent(deps, candidateId) : false };
    });
  };
}

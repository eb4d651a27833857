import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { statusOf } from '../../http/errors.js';
import { createValidatorCompiler } from '../../http/validators.js';
import { neededRole } from '../../http/auth.js';
import { sessionFor, type LiveSession } from '../../modules/users/sessions.js';
import { can, ROLE_WORDS, userActor, type UserRow } from '../../modules/users/service.js';
import { CardPage, sendPage } from '../layout.js';
import { accountPages } from './accounts.js';
import { blocklistPages } from './blocklist.js';
import { checkPages } from './checks.js';
import { reservationPages } from './reservation.js';
import { rulePages } from './rules.js';
import { listingPages } from './listings.js';
import { policePages } from './police.js';
import { settingsPages } from './settings.js';
import { webhookPages } from './webhooks.js';
import { mePages } from './me.js';
import { peoplePages } from './people.js';
import { auditPages } from './audit.js';
import { reportPages } from './reports.js';
import { keyPages } from './keys.js';
import { queuePages } from './queue.js';
import { ConsolePage, show } from './shell.js';
import { signInPages, SESSION_COOKIE, sessionCookie } from './sign-in.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session's token, when the request carries a live one. */
    sessionToken: string | undefined;
    /** The person signed in to the console. */
    user: UserRow;
    /** Their session: its stage, id and times. */
    session: LiveSession['session'];
  }
}

/** The console's error pages: inside the console for a signed-in host, a card otherwise. */
function consoleErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = err instanceof AppError ? err : undefined;
  const csrfRefused = typeof err.code === 'string' && err.code.startsWith('FST_CSRF');
  const status = csrfRefused ? 403 : ((known ? statusOf(known) : undefined) ?? (err.statusCode && err.statusCode < 500 ? err.statusCode : 500));
  if (status >= 500) request.log.error({ err }, 'console page failed');
  for (const [k, v] of Object.entries(known?.headers ?? {})) reply.header(k, v);
  const message = csrfRefused
    ? 'This form is out of date or did not come from this console. Go back, reload the page and try again.'
    : status >= 500
      ? `Something went wrong on our side. Please try again later (reference ${request.id}).`
      : (known?.message ?? err.message);
  const heading =
    status === 404 ? 'Not found' : status === 401 ? 'Please sign in' : status === 403 ? 'Not allowed' : status === 429 ? 'Please wait' : status >= 500 ? 'Something went wrong' : 'That did not work';
  const body = (
    <>
      <h1>{heading}</h1>
      <p class="error" role="alert">
        {message}
      </p>
    </>
  );
  if (request.account && request.sessionToken && request.session?.stage === 'in' && !request.account.is_suspended) {
    return show(
      request,
      reply,
      (ctx) => (
        <ConsolePage ctx={ctx} title={heading}>
          {body}
        </ConsolePage>
      ),
      status,
    );
  }
  return sendPage(
    reply,
    <CardPage title={heading}>
      {body}
      <p>
        <a href="/console/sign-in">Sign in</a>
      </p>
    </CardPage>,
    status,
  );
}

/**
 * The host console at /console (DESIGN.md section 10): a session cookie from the sign-in page
 * stands where the API key stands, and every page calls the services the API calls with the
 * signed-in account, so the same tenancy rules and the same audit trail and webhooks follow.
 * Every form carries a CSRF token; every page works without JavaScript.
 */
export const consolePages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const secure = deps.config.publicUrl.startsWith('https://');
    await app.register(cookie);
    await app.register(csrf, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: 'gs_csrf',
      cookieOpts: { path: '/console', httpOnly: true, sameSite: 'strict', secure },
      getUserInfo: (request) => request.sessionToken ?? 'signed-out',
      csrfOpts: { hmacKey: deps.secrets.digest('console', 'csrf hmac key') },
      getToken: (request) => (request.body as { _csrf?: string } | undefined)?._csrf ?? (request.headers['x-csrf-token'] as string | undefined),
    });
    await app.register(formbody, { bodyLimit: 256 * 1024 });
    // Form fields are text: "21" is the number 21, one ticked box a list of one.
    app.setValidatorCompiler(createValidatorCompiler([], { formBodies: true }));
    app.decorateRequest('sessionToken', undefined);
    app.decorateRequest('user', null as unknown as UserRow);
    app.decorateRequest('session', null as unknown as LiveSession['session']);
    app.setErrorHandler(consoleErrorHandler);

    app.addHook('onRequest', async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      const live = token ? await sessionFor(deps, token) : undefined;
      if (live?.account.is_active) {
        request.account = live.account;
        request.user = live.user;
        request.session = live.session;
        request.actor = userActor(live.user);
        request.sessionToken = token;
      } else if (token) {
        reply.clearCookie(SESSION_COOKIE, sessionCookie(secure));
      }
      // The sign-in page, like the API's public routes, is for people without a session.
      if (request.routeOptions.config.public) return;
      if (!request.sessionToken) {
        const ended = token ? '&ended=1' : '';
        if (request.method === 'GET')
          return reply
            .code(303)
            .header('location', `/console/sign-in?next=${encodeURIComponent(request.url)}${ended}`)
            .send();
        throw new AppError('unauthorized', token ? 'Your session has ended. Sign in again, then repeat what you were doing.' : 'Sign in to the console first.');
      }
      const config = request.routeOptions.config;
      const stage = request.session.stage;
      if (stage !== 'in' && !config.stages?.includes(stage as 'code' | 'enrol')) {
        const to = stage === 'code' ? '/console/sign-in/code' : '/console/two-factor';
        if (request.method === 'GET') return reply.code(303).header('location', to).send();
        throw new AppError('unauthorized', stage === 'code' ? 'Enter the code from your authenticator app first.' : 'Set up two-factor sign-in first: this account requires it.');
      }
      if (request.account.is_suspended && request.routeOptions.url !== '/console/sign-out') {
        throw new AppError('forbidden', 'This account is suspended: the console and the API are closed to it until whoever manages it lifts the suspension.');
      }
      if (config.resellerOnly && !request.account.is_reseller) {
        throw new AppError('forbidden', 'Only reseller accounts manage other accounts.');
      }
      const needed = neededRole(request.method, config);
      if (!can(request.user, needed)) {
        throw new AppError('forbidden', `This needs the ${ROLE_WORDS[needed].toLowerCase()} role or higher; you are ${ROLE_WORDS[request.user.role].toLowerCase()}. Ask an owner of the account.`);
      }
    });
    // Forms carry their token in the body, so it is checked once the body is read.
    app.addHook('preHandler', (request, reply, done) => (request.method === 'GET' ? done() : app.csrfProtection(request, reply, done)));

    await app.register(signInPages(deps, secure));
    await app.register(queuePages(deps));
    await app.register(reservationPages(deps));
    await app.register(blocklistPages(deps));
    await app.register(rulePages(deps));
    await app.register(settingsPages(deps));
    await app.register(listingPages(deps));
    await app.register(policePages(deps));
    await app.register(webhookPages(deps));
    await app.register(checkPages(deps));
    await app.register(reportPages(deps));
    await app.register(accountPages(deps));
    await app.register(mePages(deps));
    await app.register(peoplePages(deps));
    await app.register(auditPages(deps));
    await app.register(keyPages(deps));
  };

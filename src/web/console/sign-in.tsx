import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { signIn, signOut } from '../../modules/sessions/service.js';
import { CardPage, Problems, sendPage } from '../layout.js';

export const SESSION_COOKIE = 'gs_session';

/** The session cookie: HttpOnly, SameSite=Lax (a link from an e-mail opens the console signed in), Secure behind https. */
export const sessionCookie = (secure: boolean) => ({ path: '/console', httpOnly: true, sameSite: 'lax' as const, secure });

/** Where to go after signing in: a console page, never another site. */
const safeNext = (next: string | undefined) => (next && /^\/console(\/|\?|$)/.test(next) && !next.includes('//') ? next : '/console');

const SignInQuery = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  ended: Type.Optional(Type.String({ maxLength: 5 })),
  signed_out: Type.Optional(Type.String({ maxLength: 5 })),
});
const SignInForm = Type.Object({
  email: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 256 }),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
});

function signInPage(csrf: string, form: { email?: string; next?: string | undefined }, problems: string[], notice?: string) {
  return (
    <CardPage title="Sign in">
      <h1>Sign in to guestscreen</h1>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <Problems list={problems} />
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="_csrf" value={csrf} />
        <input type="hidden" name="next" value={safeNext(form.next)} />
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" required autocomplete="username" value={form.email ?? ''} autofocus={!form.email} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required autocomplete="current-password" autofocus={Boolean(form.email)} />
        <button type="submit">Sign in</button>
      </form>
      <p>
        <small>
          No password yet? Whoever runs this guestscreen sets one with <code>guestscreen accounts password</code>, or signs you up with a signup link.
        </small>
      </p>
    </CardPage>
  );
}

export const signInPages =
  (deps: Deps, secure: boolean): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console/sign-in', { config: { public: true }, schema: { hide: true, querystring: SignInQuery } }, async (request, reply) => {
      if (request.sessionToken) return reply.code(303).header('location', safeNext(request.query.next)).send();
      const notice = request.query.ended ? 'Your session has ended. Sign in again.' : request.query.signed_out ? 'You are signed out.' : undefined;
      const csrf = reply.generateCsrf({ userInfo: 'signed-out' });
      return sendPage(reply, signInPage(csrf, { next: request.query.next }, [], notice));
    });

    app.post('/console/sign-in', { config: { public: true }, schema: { hide: true, body: SignInForm } }, async (request, reply) => {
      const { email, password, next } = request.body;
      const result = await signIn(deps, { email, password, address: request.ip });
      if (!result.ok) {
        if (result.retryAfterSeconds) reply.header('retry-after', String(result.retryAfterSeconds));
        const csrf = reply.generateCsrf({ userInfo: 'signed-out' });
        return sendPage(reply, signInPage(csrf, { email, next }, [result.message]), result.status);
      }
      reply.setCookie(SESSION_COOKIE, result.token, { ...sessionCookie(secure), maxAge: deps.config.consoleSessionHours * 3600 });
      return reply.code(303).header('location', safeNext(next)).send();
    });

    app.post('/console/sign-out', { schema: { hide: true } }, async (request, reply) => {
      if (request.sessionToken) await signOut(deps, request.sessionToken);
      reply.clearCookie(SESSION_COOKIE, sessionCookie(secure));
      return reply.code(303).header('location', '/console/sign-in?signed_out=1').send();
    });
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { completeSignIn, signIn, signOut } from '../../modules/users/sessions.js';
import { acceptInvitation, INVITATION_DAYS, openToken, requestPasswordReset, resetPassword, RESET_MINUTES, ROLE_WORDS } from '../../modules/users/service.js';
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
  joined: Type.Optional(Type.String({ maxLength: 5 })),
});

const invitationWords = (opened: { user: { email: string; name: string; role: keyof typeof ROLE_WORDS }; account: { name: string } }, problems: string[]) => ({
  title: `Join ${opened.account.name}`,
  lead: `You are invited to screen guests with ${opened.account.name} on guestscreen as ${ROLE_WORDS[opened.user.role].toLowerCase()}. Choose your name and password; the link works once, within ${INVITATION_DAYS} days of the invitation.`,
  email: opened.user.email,
  name: opened.user.name,
  problems,
});
const SignInForm = Type.Object({
  email: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 256 }),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
});

const CodeForm = Type.Object({
  code: Type.String({ maxLength: 40 }),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
});
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const PasswordForm = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  password: Type.String({ maxLength: 256 }),
  confirm: Type.String({ maxLength: 256 }),
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
});
const EmailForm = Type.Object({ email: Type.String({ maxLength: 254 }), _csrf: Type.Optional(Type.String({ maxLength: 200 })) });

function codePage(csrf: string, next: string | undefined, problems: string[]) {
  return (
    <CardPage title="Two-factor sign-in">
      <h1>Enter your code</h1>
      <p>Open your authenticator app and enter the 6-digit code it shows for guestscreen. Lost your phone? Enter one of your recovery codes instead.</p>
      <Problems list={problems} />
      <form method="post" action="/console/sign-in/code">
        <input type="hidden" name="_csrf" value={csrf} />
        <input type="hidden" name="next" value={safeNext(next)} />
        <label for="code">Code</label>
        <input id="code" name="code" required autocomplete="one-time-code" inputmode="text" autofocus maxLength={40} />
        <button type="submit">Sign in</button>
      </form>
      <form method="post" action="/console/sign-out">
        <input type="hidden" name="_csrf" value={csrf} />
        <button type="submit" class="secondary">
          Cancel
        </button>
      </form>
    </CardPage>
  );
}

/** A form token for a page anyone may open, bound to the session when there is one (as the check reads it). */
const formToken = (request: FastifyRequest, reply: FastifyReply) => reply.generateCsrf({ userInfo: request.sessionToken ?? 'signed-out' });

/** A card with only words: a link that no longer works, a message sent. */
const wordsPage = (reply: FastifyReply, title: string, words: string, status = 200, link: [string, string] = ['/console/sign-in', 'Sign in']) =>
  sendPage(
    reply,
    <CardPage title={title}>
      <h1>{title}</h1>
      <p role={status >= 400 ? 'alert' : 'status'} class={status >= 400 ? 'error' : 'notice'}>
        {words}
      </p>
      <p>
        <a href={link[0]}>{link[1]}</a>
      </p>
    </CardPage>,
    status,
  );

/** The form that sets a password from a link: the invitation's (with the person's name) or the reset's. */
function passwordPage(csrf: string, action: string, opts: { title: string; lead: string; email: string; name?: string | undefined; problems: string[] }) {
  return (
    <CardPage title={opts.title}>
      <h1>{opts.title}</h1>
      <p>{opts.lead}</p>
      <Problems list={opts.problems} />
      <form method="post" action={action}>
        <input type="hidden" name="_csrf" value={csrf} />
        <label for="email">E-mail</label>
        <input id="email" type="email" value={opts.email} readOnly autocomplete="username" />
        {opts.name !== undefined ? (
          <>
            <label for="name">Your name</label>
            <input id="name" name="name" required maxLength={200} autocomplete="name" value={opts.name} autofocus={!opts.name} />
          </>
        ) : null}
        <label for="password">New password</label>
        <input id="password" name="password" type="password" required minLength={8} maxLength={256} autocomplete="new-password" />
        <small class="hint">At least 8 characters.</small>
        <label for="confirm">The same again</label>
        <input id="confirm" name="confirm" type="password" required minLength={8} maxLength={256} autocomplete="new-password" />
        <button type="submit">{opts.name !== undefined ? 'Join' : 'Set the password'}</button>
      </form>
    </CardPage>
  );
}

const passwordProblems = (password: string, confirm: string) =>
  password.length < 8 ? ['The password must be at least 8 characters.'] : password !== confirm ? ['The two passwords are not the same.'] : [];

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
        <a href="/console/forgot">Forgot your password?</a>
      </p>
      <p>
        <small>No account yet? Ask an owner of your team to invite you, or whoever runs this guestscreen for a signup link.</small>
      </p>
    </CardPage>
  );
}

export const signInPages =
  (deps: Deps, secure: boolean): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console/sign-in', { config: { public: true }, schema: { hide: true, querystring: SignInQuery } }, async (request, reply) => {
      if (request.sessionToken && request.session.stage === 'in') return reply.code(303).header('location', safeNext(request.query.next)).send();
      const notice = request.query.ended
        ? 'Your session has ended. Sign in again.'
        : request.query.signed_out
          ? 'You are signed out.'
          : request.query.joined
            ? 'Welcome: your password is set. Sign in with it.'
            : undefined;
      const csrf = formToken(request, reply);
      return sendPage(reply, signInPage(csrf, { next: request.query.next }, [], notice));
    });

    app.post('/console/sign-in', { config: { public: true }, schema: { hide: true, body: SignInForm } }, async (request, reply) => {
      const { email, password, next } = request.body;
      const result = await signIn(deps, { email, password, address: request.ip, userAgent: request.headers['user-agent'] });
      if (!result.ok) {
        if (result.retryAfterSeconds) reply.header('retry-after', String(result.retryAfterSeconds));
        const csrf = formToken(request, reply);
        return sendPage(reply, signInPage(csrf, { email, next }, [result.message]), result.status);
      }
      reply.setCookie(SESSION_COOKIE, result.token, { ...sessionCookie(secure), maxAge: deps.config.consoleSessionHours * 3600 });
      const to = result.stage === 'code' ? `/console/sign-in/code?next=${encodeURIComponent(safeNext(next))}` : result.stage === 'enrol' ? '/console/two-factor' : safeNext(next);
      return reply.code(303).header('location', to).send();
    });

    // The second factor, for a session whose password was right.
    const codeConfig = { role: 'viewer' as const, stages: ['code' as const] };
    app.get('/console/sign-in/code', { config: codeConfig, schema: { hide: true, querystring: SignInQuery } }, async (request, reply) => {
      if (request.session.stage !== 'code') return reply.code(303).header('location', safeNext(request.query.next)).send();
      return sendPage(reply, codePage(reply.generateCsrf({ userInfo: request.sessionToken }), request.query.next, []));
    });
    app.post('/console/sign-in/code', { config: codeConfig, schema: { hide: true, body: CodeForm } }, async (request, reply) => {
      if (request.session.stage !== 'code') return reply.code(303).header('location', safeNext(request.body.next)).send();
      const result = await completeSignIn(deps, request.sessionToken!, request.body.code, request.ip);
      if (!result.ok) {
        if (result.retryAfterSeconds) reply.header('retry-after', String(result.retryAfterSeconds));
        return sendPage(reply, codePage(reply.generateCsrf({ userInfo: request.sessionToken }), request.body.next, [result.message]), result.status);
      }
      const next = safeNext(request.body.next);
      return reply
        .code(303)
        .header('location', result.via === 'recovery' ? `/console/me?done=recovery-used` : next)
        .send();
    });

    // A forgotten password: the same answer whether or not anyone has the address.
    app.get('/console/forgot', { config: { public: true }, schema: { hide: true } }, async (request, reply) =>
      sendPage(
        reply,
        <CardPage title="Forgot your password?">
          <h1>Forgot your password?</h1>
          <p>Enter the e-mail address you sign in with. We send a link to choose a new password; it works for {RESET_MINUTES} minutes.</p>
          <form method="post" action="/console/forgot">
            <input type="hidden" name="_csrf" value={formToken(request, reply)} />
            <label for="email">E-mail</label>
            <input id="email" name="email" type="email" required autocomplete="username" autofocus />
            <button type="submit">Send the link</button>
          </form>
          <p>
            <a href="/console/sign-in">Back to sign in</a>
          </p>
        </CardPage>,
      ),
    );
    app.post('/console/forgot', { config: { public: true }, schema: { hide: true, body: EmailForm } }, async (request, reply) => {
      // Not awaited: how long the answer takes says nothing about whether the address is known.
      requestPasswordReset(deps, request.body.email).catch((err: unknown) => request.log.warn({ err }, 'password reset failed'));
      const email = request.body.email.trim();
      // Without a mail server nothing reaches the person: the page says so (the same for any address) and who can help.
      if (!deps.config.smtpUrl)
        return wordsPage(
          reply,
          'No e-mail can be sent from here',
          `This service has no mail server set up, so no e-mail can reach ${email}: if that address signs in here, its link to choose a new password was saved in the service's outbox instead. Ask an owner of your account to send you one (People, then “Reset password” beside your name), or whoever runs this service, who can read the outbox. A link works for ${RESET_MINUTES} minutes.`,
        );
      return wordsPage(reply, 'Check your e-mail', `If ${email} signs in here, a link to choose a new password is on its way. It works for ${RESET_MINUTES} minutes.`);
    });

    app.get('/console/reset/:token', { config: { public: true }, schema: { hide: true, params: TokenParams } }, async (request, reply) => {
      const opened = await openToken(deps, request.params.token, 'reset');
      if ('problem' in opened) return wordsPage(reply, 'Reset your password', opened.problem, 410, ['/console/forgot', 'Ask for a new link']);
      const csrf = formToken(request, reply);
      return sendPage(reply, passwordPage(csrf, request.url, { title: 'Choose a new password', lead: 'Every session signed in with the old password ends.', email: opened.user.email, problems: [] }));
    });
    app.post('/console/reset/:token', { config: { public: true }, schema: { hide: true, params: TokenParams, body: PasswordForm } }, async (request, reply) => {
      const opened = await openToken(deps, request.params.token, 'reset');
      if ('problem' in opened) return wordsPage(reply, 'Reset your password', opened.problem, 410, ['/console/forgot', 'Ask for a new link']);
      const problems = passwordProblems(request.body.password, request.body.confirm);
      if (problems.length) {
        const csrf = formToken(request, reply);
        return sendPage(
          reply,
          passwordPage(csrf, request.url, { title: 'Choose a new password', lead: 'Every session signed in with the old password ends.', email: opened.user.email, problems }),
          400,
        );
      }
      await resetPassword(deps, request.params.token, request.body.password);
      return wordsPage(reply, 'Password changed', 'Your new password is set. Sign in with it.');
    });

    app.get('/console/invitation/:token', { config: { public: true }, schema: { hide: true, params: TokenParams } }, async (request, reply) => {
      const opened = await openToken(deps, request.params.token, 'invite');
      if ('problem' in opened) return wordsPage(reply, 'Invitation', opened.problem, 410);
      const csrf = formToken(request, reply);
      return sendPage(reply, passwordPage(csrf, request.url, invitationWords(opened, [])));
    });
    app.post('/console/invitation/:token', { config: { public: true }, schema: { hide: true, params: TokenParams, body: PasswordForm } }, async (request, reply) => {
      const opened = await openToken(deps, request.params.token, 'invite');
      if ('problem' in opened) return wordsPage(reply, 'Invitation', opened.problem, 410);
      const name = request.body.name?.trim() ?? '';
      const problems = [...(name ? [] : ['Give your name: your team sees it beside what you do.']), ...passwordProblems(request.body.password, request.body.confirm)];
      if (problems.length) {
        const csrf = formToken(request, reply);
        return sendPage(reply, passwordPage(csrf, request.url, invitationWords({ ...opened, user: { ...opened.user, name } }, problems)), 400);
      }
      try {
        await acceptInvitation(deps, request.params.token, { name, password: request.body.password });
      } catch (err) {
        if (err instanceof AppError && err.code === 'gone') return wordsPage(reply, 'Invitation', err.message, 410);
        throw err;
      }
      return reply.code(303).header('location', `/console/sign-in?joined=1`).send();
    });

    app.post('/console/sign-out', { config: { role: 'viewer', stages: ['code', 'enrol'] }, schema: { hide: true } }, async (request, reply) => {
      if (request.sessionToken) await signOut(deps, request.sessionToken);
      reply.clearCookie(SESSION_COOKIE, sessionCookie(secure));
      return reply.code(303).header('location', '/console/sign-in?signed_out=1').send();
    });
  };

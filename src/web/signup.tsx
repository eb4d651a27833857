import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../deps.js';
import { completeSignup, openSignupLink, type SignupForm } from '../modules/signup/service.js';
import { CardPage, pageErrorHandler, Problems, sendPage } from './layout.js';

const Params = Type.Object({ token: Type.String({ maxLength: 200 }) });
const Form = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
  company: Type.Optional(Type.String({ maxLength: 200 })),
  password: Type.Optional(Type.String({ maxLength: 256 })),
});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^[+0-9 ().-]*$/;

function formProblems(form: SignupForm, needsPassword: boolean): string[] {
  const problems: string[] = [];
  if (!form.name?.trim()) problems.push('Enter your name.');
  if (!form.email || !EMAIL.test(form.email)) problems.push('Enter a valid e-mail address.');
  if (form.phone && !PHONE.test(form.phone)) problems.push('A phone number has only digits, spaces and + ( ) . -');
  if (needsPassword && (form.password ?? '').length < 8) problems.push('Choose a password of at least 8 characters.');
  return problems;
}

function formPage(token: string, hidePassword: boolean, form: Partial<SignupForm>, problems: string[]) {
  return (
    <CardPage title="Create your account">
      <h1>Create your guestscreen account</h1>
      <Problems list={problems} />
      <form method="post" action={`/signup/${token}`}>
        <label for="name">Your name</label>
        <input id="name" name="name" required value={form.name ?? ''} autocomplete="name" />
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" required value={form.email ?? ''} autocomplete="email" />
        <label for="phone">
          Phone <small>(optional)</small>
        </label>
        <input id="phone" name="phone" value={form.phone ?? ''} autocomplete="tel" />
        <label for="company">
          Company <small>(optional)</small>
        </label>
        <input id="company" name="company" value={form.company ?? ''} autocomplete="organization" />
        {hidePassword ? null : (
          <>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" minLength={8} required autocomplete="new-password" />
          </>
        )}
        <button type="submit">Create account</button>
      </form>
    </CardPage>
  );
}

/** The page a reseller's signup link opens: a form that creates a child account and shows its key once. */
export const signupPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(formbody, { bodyLimit: 64 * 1024 });

    app.setErrorHandler(pageErrorHandler('Signup', (status) => (status === 404 || status === 410 ? 'This link cannot be used' : 'Something went wrong')));

    app.get('/signup/:token', { config: { public: true }, schema: { hide: true, params: Params } }, async (request, reply) => {
      const { link } = await openSignupLink(deps, request.params.token);
      return sendPage(reply, formPage(request.params.token, Boolean(link.hide_password), {}, []));
    });

    app.post('/signup/:token', { config: { public: true }, schema: { hide: true, params: Params, body: Form } }, async (request, reply) => {
      const { token } = request.params;
      const form: SignupForm = { ...request.body, name: request.body.name?.trim() ?? '', email: request.body.email?.trim() ?? '' };
      const { link } = await openSignupLink(deps, token);
      const problems = formProblems(form, !link.hide_password);
      if (problems.length) return sendPage(reply, formPage(token, Boolean(link.hide_password), form, problems), 400);
      const { account, apiKey, redirect } = await completeSignup(deps, token, form);
      const next = redirect ? new URL(redirect) : null;
      next?.searchParams.set('account_id', account.id);
      return sendPage(
        reply,
        <CardPage title="Account created">
          <h1>Your account is ready</h1>
          <p>
            Account <strong>{account.id}</strong> for {account.name}.
          </p>
          <p>Your API key (it is shown only this once; store it somewhere safe):</p>
          <p class="key" id="api-key">
            {apiKey}
          </p>
          {next ? (
            <a class="button" id="continue" href={next.toString()}>
              Continue
            </a>
          ) : null}
        </CardPage>,
      );
    });
  };

import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import type { Deps } from '../deps.js';
import type { Translator } from '../i18n/index.js';
import { completeSignup, openSignupLink, type SignupForm } from '../modules/signup/service.js';
import { guestTranslator, guestWords, rememberLanguage, Switcher } from './guest.js';
import { CardPage, pageErrorHandler, Problems, sendPage } from './layout.js';

const Params = Type.Object({ token: Type.String({ maxLength: 200 }) });
const LangQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 10 })) });
const Form = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
  company: Type.Optional(Type.String({ maxLength: 200 })),
  password: Type.Optional(Type.String({ maxLength: 256 })),
});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^[+0-9 ().-]*$/;

function formProblems(t: Translator, form: SignupForm, needsPassword: boolean): string[] {
  const problems: string[] = [];
  if (!form.name?.trim()) problems.push(t.t('signup.problem.name'));
  if (!form.email || !EMAIL.test(form.email)) problems.push(t.t('signup.problem.email'));
  if (form.phone && !PHONE.test(form.phone)) problems.push(t.t('signup.problem.phone'));
  if (needsPassword && (form.password ?? '').length < MIN_PASSWORD) problems.push(t.t('signup.problem.password', { min: MIN_PASSWORD }));
  return problems;
}

const MIN_PASSWORD = 8;

/** A signup page: in the reader's language, with the switcher under it. */
function SignupPage({ t, request, title, children }: { t: Translator; request: FastifyRequest; title: string; children: ComponentChildren }) {
  return (
    <CardPage title={title} lang={t.locale} footer={<Switcher request={request} t={t} />}>
      {children}
    </CardPage>
  );
}

function formPage(t: Translator, request: FastifyRequest, token: string, hidePassword: boolean, form: Partial<SignupForm>, problems: string[]) {
  return (
    <SignupPage t={t} request={request} title={t.t('signup.title')}>
      <h1>{t.t('signup.heading')}</h1>
      <Problems list={problems} />
      <form method="post" action={`/signup/${token}`}>
        <label for="name">{t.t('signup.name')}</label>
        <input id="name" name="name" required value={form.name ?? ''} autocomplete="name" />
        <label for="email">{t.t('signup.email')}</label>
        <input id="email" name="email" type="email" required value={form.email ?? ''} autocomplete="email" />
        <label for="phone">
          {t.t('signup.phone')} <small>{t.t('portal.optional')}</small>
        </label>
        <input id="phone" name="phone" value={form.phone ?? ''} autocomplete="tel" />
        <label for="company">
          {t.t('signup.company')} <small>{t.t('portal.optional')}</small>
        </label>
        <input id="company" name="company" value={form.company ?? ''} autocomplete="organization" />
        {hidePassword ? null : (
          <>
            <label for="password">{t.t('signup.password')}</label>
            <input id="password" name="password" type="password" minLength={MIN_PASSWORD} required autocomplete="new-password" />
          </>
        )}
        <button type="submit">{t.t('signup.create')}</button>
      </form>
    </SignupPage>
  );
}

/** The page a reseller's signup link opens: a form that creates a child account and shows its key once. */
export const signupPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 64 * 1024 });

    app.setErrorHandler(
      pageErrorHandler(
        'Signup',
        (request) => guestWords(guestTranslator(request)),
        (title, body, request) => (
          <SignupPage t={guestTranslator(request)} request={request} title={title}>
            {body}
          </SignupPage>
        ),
      ),
    );

    app.get('/signup/:token', { config: { public: true }, schema: { hide: true, params: Params, querystring: LangQuery } }, async (request, reply) => {
      rememberLanguage(request, reply);
      const t = guestTranslator(request);
      const { link } = await openSignupLink(deps, request.params.token);
      return sendPage(reply, formPage(t, request, request.params.token, Boolean(link.hide_password), {}, []));
    });

    app.post('/signup/:token', { config: { public: true }, schema: { hide: true, params: Params, body: Form } }, async (request, reply) => {
      const t = guestTranslator(request);
      const { token } = request.params;
      const form: SignupForm = { ...request.body, name: request.body.name?.trim() ?? '', email: request.body.email?.trim() ?? '' };
      const { link } = await openSignupLink(deps, token);
      const problems = formProblems(t, form, !link.hide_password);
      if (problems.length) return sendPage(reply, formPage(t, request, token, Boolean(link.hide_password), form, problems), 400);
      const { account, apiKey, redirect } = await completeSignup(deps, token, form);
      const next = redirect ? new URL(redirect) : null;
      next?.searchParams.set('account_id', account.id);
      return sendPage(
        reply,
        <SignupPage t={t} request={request} title={t.t('signup.done.title')}>
          <h1>{t.t('signup.done.heading')}</h1>
          <p>{t.t('signup.done.account', { id: account.id, name: account.name })}</p>
          <p>{t.t('signup.done.key')}</p>
          <p class="key" id="api-key">
            {apiKey}
          </p>
          {next ? (
            <a class="button" id="continue" href={next.toString()}>
              {t.t('signup.done.continue')}
            </a>
          ) : null}
        </SignupPage>,
      );
    });
  };

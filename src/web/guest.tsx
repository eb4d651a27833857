import type { FastifyReply, FastifyRequest } from 'fastify';
import { CATALOGUES, chooseLocale, isLocale, LOCALES, translator, type GuestPhrase, type Translator } from '../i18n/index.js';
import type { GuestError } from '../lib/errors.js';
import { LanguageSwitcher, type PageWords } from './layout.js';

/** The cookie that keeps the language a guest chose with the switcher. */
export const LANGUAGE_COOKIE = 'gs_lang';

type LangRequest = FastifyRequest & { query: unknown; cookies?: Record<string, string | undefined> };

const asked = (request: LangRequest) => {
  const q = (request.query as { lang?: unknown } | undefined)?.lang;
  return typeof q === 'string' && isLocale(q) ? q : undefined;
};

/**
 * The language of a guest's page: the one picked with the switcher (`?lang=`, then kept in a
 * cookie), else the booking's, else the browser's Accept-Language, else English.
 */
export function guestTranslator(request: LangRequest, booking?: string | null): Translator {
  const chosen = asked(request) ?? request.cookies?.[LANGUAGE_COOKIE];
  return translator(chooseLocale(chosen, booking, request.headers['accept-language']));
}

/** Keeps a language picked with the switcher for the guest's next pages. */
export function rememberLanguage(request: LangRequest, reply: FastifyReply) {
  const lang = asked(request);
  if (lang) reply.setCookie(LANGUAGE_COOKIE, lang, { path: '/', httpOnly: true, sameSite: 'lax', maxAge: 365 * 86_400, secure: request.protocol === 'https' });
}

/** The switcher: this page in each of our languages, each in its own name. */
export function Switcher({ request, t }: { request: FastifyRequest; t: Translator }) {
  // A form's answer page links to the page the form is on: the portal or signup link itself.
  const url = new URL(request.method === 'GET' ? request.url : request.url.split('/').slice(0, 3).join('/'), 'http://page');
  const options = LOCALES.map((lang) => {
    url.searchParams.set('lang', lang);
    return { lang, name: CATALOGUES[lang]['lang.self'] ?? lang, href: `${url.pathname}${url.search}` };
  });
  return <LanguageSwitcher label={t.t('lang.switch')} current={t.locale} options={options} />;
}

/** An error page's words in the guest's language. */
export const guestWords = (t: Translator): PageWords => ({
  heading: (status) => t.t(status === 404 || status === 410 ? 'error.title.link' : 'error.title.other'),
  phrase: (err: GuestError) => (err.phrase in CATALOGUES.en ? t.t(err.phrase as GuestPhrase, err.values) : undefined),
  server: (ref) => t.t('error.server', { ref }),
  unreadable: t.t('error.form'),
});

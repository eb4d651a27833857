import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { AppError, GuestError } from '../lib/errors.js';
import { statusOf } from '../http/errors.js';

/** The stylesheet and script every page loads, served from the package (assets.ts). */
export const STYLESHEET = '/assets/style.css';
export const FAVICON = '/assets/favicon.svg';
export const HTMX = '/assets/htmx.min.js';
export const CONSOLE_SCRIPT = '/assets/console.js';
/** The guest portal's camera for the selfie (public/selfie.js). */
export const SELFIE_SCRIPT = '/assets/selfie.js';
/** The guest portal's police step: fields not asked of a guest of one nationality hidden (public/police.js). */
export const POLICE_SCRIPT = '/assets/police.js';

interface DocumentProps {
  title: string;
  /** The page's language (a guest's pages are in the guest's). */
  lang?: string | undefined;
  /** A stylesheet after ours: the host's accent colour on a guest's pages. */
  brandCss?: string | undefined;
  /** htmx, for the console's pages; the guest's pages need no script. */
  script?: boolean;
  /**
   * A page that waits for something (a guest's document being read): it reloads itself every so
   * many seconds without JavaScript; with it, htmx refreshes the part of the page marked hx-get.
   */
  refreshEvery?: number | undefined;
  /** A script of the page's own (the selfie's camera), after the others. */
  pageScript?: string | undefined;
  children: ComponentChildren;
}

/** The HTML document around every page: the title, the stylesheet, and htmx where it helps. */
export function Document({ title, lang = 'en', brandCss, script, refreshEvery, pageScript, children }: DocumentProps) {
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* htmx's own indicator styles are inline, which the pages' Content-Security-Policy refuses. */}
        {script || refreshEvery ? <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false}' /> : null}
        {refreshEvery ? (
          <noscript>
            <meta http-equiv="refresh" content={String(refreshEvery)} />
          </noscript>
        ) : null}
        <title>{`${title} · guestscreen`}</title>
        <link rel="stylesheet" href={STYLESHEET} />
        <link rel="icon" href={FAVICON} type="image/svg+xml" />
        {brandCss ? <link rel="stylesheet" href={brandCss} /> : null}
        {script || refreshEvery ? <script src={HTMX} defer /> : null}
        {script ? <script src={CONSOLE_SCRIPT} defer /> : null}
        {pageScript ? <script src={pageScript} defer /> : null}
      </head>
      {children}
    </html>
  );
}

/** A page for one task (the guest portal, signup, sign-in): a card in the middle of the screen. */
export function CardPage({ title, lang, brandCss, refreshEvery, pageScript, header, footer, children }: Omit<DocumentProps, 'script'> & { header?: ComponentChildren; footer?: ComponentChildren }) {
  return (
    <Document title={title} lang={lang} brandCss={brandCss} refreshEvery={refreshEvery} pageScript={pageScript}>
      <body>
        <main class="card">
          {header}
          {children}
          {footer}
        </main>
      </body>
    </Document>
  );
}

/** Links to the page in each language, the current one marked: on every page a guest opens. */
export function LanguageSwitcher({ label, current, options }: { label: string; current: string; options: readonly { lang: string; name: string; href: string }[] }) {
  return (
    <nav class="languages" aria-label={label}>
      {options.map((o) =>
        o.lang === current ? (
          <strong lang={o.lang} aria-current="true">
            {o.name}
          </strong>
        ) : (
          <a href={o.href} lang={o.lang} hreflang={o.lang}>
            {o.name}
          </a>
        ),
      )}
    </nav>
  );
}

/** Problems with a form, read out by screen readers when they appear. */
export function Problems({ list }: { list: readonly string[] }) {
  if (!list.length) return null;
  return (
    <div class="error" role="alert">
      {list.map((p) => (
        <div>{p}</div>
      ))}
    </div>
  );
}

export const toHtml = (page: VNode) => `<!doctype html>\n${render(page)}`;

/** An HTML answer people read: never cached, never framed, no token leaks through a Referer, nothing inline runs. */
export const sendPage = (reply: FastifyReply, page: VNode, status = 200) =>
  reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
    .send(toHtml(page));

/** How a page speaks to a reader of another language: the words of its error pages. */
export interface PageWords {
  heading(status: number): string;
  /** The message of a GuestError (its phrase), or undefined to show the error's own message. */
  phrase(err: GuestError): string | undefined;
  server(reference: string): string;
  unreadable: string;
}

/**
 * Errors on the web pages are pages, not JSON: a 4xx shows its message, a 5xx a reference to
 * the logged request. `words` says them in the reader's language; `shell` draws the page.
 */
export function pageErrorHandler(
  name: string,
  words: (request: FastifyRequest) => PageWords,
  shell = (title: string, body: VNode, _request: FastifyRequest): VNode => <CardPage title={title}>{body}</CardPage>,
) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = err instanceof AppError ? err : undefined;
    const status = (known ? statusOf(known) : undefined) ?? (err.statusCode && err.statusCode < 500 ? err.statusCode : 500);
    if (status >= 500) request.log.error({ err }, `${name} page failed`);
    const w = words(request);
    const message = status >= 500 ? w.server(request.id) : ((known instanceof GuestError ? w.phrase(known) : undefined) ?? known?.message ?? w.unreadable);
    if (known?.headers) for (const [k, v] of Object.entries(known.headers)) reply.header(k, v);
    return sendPage(
      reply,
      shell(
        name,
        <>
          <h1>{w.heading(status)}</h1>
          <p class="error">{message}</p>
        </>,
        request,
      ),
      status,
    );
  };
}

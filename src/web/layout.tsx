import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { AppError } from '../lib/errors.js';
import { statusOf } from '../http/errors.js';

/** The stylesheet and script every page loads, served from the package (assets.ts). */
export const STYLESHEET = '/assets/style.css';
export const HTMX = '/assets/htmx.min.js';
export const CONSOLE_SCRIPT = '/assets/console.js';

interface DocumentProps {
  title: string;
  /** htmx, for the console's pages; the guest's pages need no script. */
  script?: boolean;
  children: ComponentChildren;
}

/** The HTML document around every page: the title, the stylesheet, and htmx where it helps. */
export function Document({ title, script, children }: DocumentProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* htmx's own indicator styles are inline, which the pages' Content-Security-Policy refuses. */}
        {script ? <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false}' /> : null}
        <title>{`${title} · guestscreen`}</title>
        <link rel="stylesheet" href={STYLESHEET} />
        {script ? <script src={HTMX} defer /> : null}
        {script ? <script src={CONSOLE_SCRIPT} defer /> : null}
      </head>
      {children}
    </html>
  );
}

/** A page for one task (the guest portal, signup, sign-in): a card in the middle of the screen. */
export function CardPage({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <Document title={title}>
      <body>
        <main class="card">{children}</main>
      </body>
    </Document>
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

/**
 * Errors on the web pages are pages, not JSON: a 4xx shows its message, a 5xx a reference to
 * the logged request. `heading` names what went wrong for the reader; `shell` draws the page.
 */
export function pageErrorHandler(name: string, heading: (status: number) => string, shell = (title: string, body: VNode) => <CardPage title={title}>{body}</CardPage>) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = err instanceof AppError ? err : undefined;
    const status = (known ? statusOf(known) : undefined) ?? (err.statusCode && err.statusCode < 500 ? err.statusCode : 500);
    if (status >= 500) request.log.error({ err }, `${name} page failed`);
    const message = status >= 500 ? `Something went wrong on our side. Please try again later (reference ${request.id}).` : (known?.message ?? 'The form could not be read. Go back and try again.');
    if (known?.headers) for (const [k, v] of Object.entries(known.headers)) reply.header(k, v);
    return sendPage(
      reply,
      shell(
        name,
        <>
          <h1>{heading(status)}</h1>
          <p class="error">{message}</p>
        </>,
      ),
      status,
    );
  };
}

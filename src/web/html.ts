import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export const esc = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A tagged template whose interpolations are escaped unless wrapped in raw(). */
export class Raw {
  constructor(readonly html: string) {}
}
export const raw = (html: string) => new Raw(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    const part = Array.isArray(v) ? v.map((x) => (x instanceof Raw ? x.html : esc(x))).join('') : v instanceof Raw ? v.html : esc(v);
    out += part + (strings[i + 1] ?? '');
  });
  return new Raw(out);
}

export function page(title: string, body: Raw): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · guestscreen</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
  main { max-width: 30rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 10px; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
  input, select, textarea { width: 100%; box-sizing: border-box; padding: .55rem; border: 1px solid #b8bfcc; border-radius: 6px; font: inherit; }
  textarea { min-height: 5rem; }
  label.check { display: flex; gap: .6rem; align-items: flex-start; font-weight: 400; }
  label.check input { width: auto; margin-top: .35rem; }
  button, .button { display: inline-block; margin-top: 1.5rem; padding: .6rem 1.2rem; background: #2453c7; color: #fff; border: 0; border-radius: 6px; font: inherit; cursor: pointer; text-decoration: none; }
  button.secondary { background: #fff; color: #2453c7; border: 1px solid #2453c7; margin-left: .5rem; }
  .steps { color: #5b6475; font-size: .9rem; }
  ol.review li { margin: .3rem 0; }
  .error { background: #fde8e8; color: #8a1c1c; padding: .75rem; border-radius: 6px; }
  .key { font-family: ui-monospace, monospace; word-break: break-all; background: #eef2fb; padding: .75rem; border-radius: 6px; }
  small { color: #5b6475; }
</style>
</head>
<body><main>${body}</main></body>
</html>`.html;
}

/** An HTML answer people read: never cached, never framed, and no token leaks through a Referer. */
export const sendPage = (reply: FastifyReply, body: string | Raw, status = 200) =>
  reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'")
    .send(body);

/**
 * Errors on the web pages are pages, not JSON: a 4xx shows its message, a 5xx a reference to
 * the logged request. `heading` names what went wrong for the reader.
 */
export function pageErrorHandler(name: string, heading: (status: number) => string) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = err instanceof AppError ? err : undefined;
    const status = known?.status ?? (err.statusCode && err.statusCode < 500 ? err.statusCode : 500);
    if (status >= 500) request.log.error({ err }, `${name} page failed`);
    const message =
      status >= 500
        ? `Something went wrong on our side. Please try again later (reference ${request.id}).`
        : known?.message ?? 'The form could not be read. Go back and try again.';
    return sendPage(reply, page(name, html`<h1>${heading(status)}</h1><p class="error">${message}</p>`), status);
  };
}

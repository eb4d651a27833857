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
  input { width: 100%; box-sizing: border-box; padding: .55rem; border: 1px solid #b8bfcc; border-radius: 6px; font: inherit; }
  button, .button { display: inline-block; margin-top: 1.5rem; padding: .6rem 1.2rem; background: #2453c7; color: #fff; border: 0; border-radius: 6px; font: inherit; cursor: pointer; text-decoration: none; }
  .error { background: #fde8e8; color: #8a1c1c; padding: .75rem; border-radius: 6px; }
  .key { font-family: ui-monospace, monospace; word-break: break-all; background: #eef2fb; padding: .75rem; border-radius: 6px; }
  small { color: #5b6475; }
</style>
</head>
<body><main>${body}</main></body>
</html>`.html;
}

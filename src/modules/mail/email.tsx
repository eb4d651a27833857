import { render } from 'preact-render-to-string';

export interface MessageParts {
  greeting: string;
  lead: string;
  /** The portal link, for the invitation and the reminder. */
  url?: string | undefined;
  /** Labelled lines, for the check-in details. */
  lines?: readonly (readonly [label: string, value: string])[] | undefined;
  closing: string;
  signature: string;
  /** The host's brand: their logo's address and accent colour. */
  logoUrl?: string | undefined;
  accent?: string | undefined;
}

/**
 * The HTML part of a guest message: the host's logo, the greeting, the lead sentence, then the
 * portal link or the check-in details, and the host's name. E-mail clients ignore stylesheets,
 * so the few styles are inline.
 */
export const messageHtml = (m: MessageParts) =>
  render(
    <div style="font-family: system-ui, sans-serif; max-width: 36rem">
      {m.logoUrl ? <img src={m.logoUrl} alt={m.signature} style="max-height: 64px; max-width: 200px" /> : null}
      <p>{m.greeting}</p>
      <p>{m.lead}</p>
      {m.url ? (
        <p>
          <a href={m.url} style={m.accent ? `color: ${m.accent}` : undefined}>
            {m.url}
          </a>
        </p>
      ) : null}
      {m.lines?.length ? (
        <table style="border-collapse: collapse">
          {m.lines.map(([label, value]) => (
            <tr>
              <th style="text-align: left; vertical-align: top; padding: 4px 12px 4px 0">{label}</th>
              <td style="padding: 4px 0; white-space: pre-wrap">{value}</td>
            </tr>
          ))}
        </table>
      ) : null}
      <p>{m.closing}</p>
      <p style={m.accent ? `color: ${m.accent}` : undefined}>{m.signature}</p>
    </div>,
  );

/** The plain-text part of the same message. */
export const messageText = (m: MessageParts) =>
  [m.greeting, '', m.lead, ...(m.url ? [m.url] : []), ...(m.lines ?? []).map(([label, value]) => `${label}: ${value}`), '', m.closing, m.signature].join('\n');

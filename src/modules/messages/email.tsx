import { render } from 'preact-render-to-string';

/** The HTML part of a guest message: the greeting, the lead sentence and the portal link. */
export const messageHtml = ({ name, lead, url }: { name: string; lead: string; url: string }) =>
  render(
    <>
      <p>Hello {name},</p>
      <p>{lead}</p>
      <p>
        <a href={url}>{url}</a>
      </p>
      <p>Thank you.</p>
    </>,
  );

import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';
import type { Config } from '../../config.js';
import { postOutbound } from '../../lib/outbound.js';
import { messageHtml, messageText, type MessageParts } from './email.js';

export interface OutgoingMessage {
  id: string;
  to: { email: string | null; phone: string | null };
  subject: string;
  text: string;
  html: string;
}

/** Which way a message went: 'smtp', 'sms', or 'outbox' when no transport is configured. */
export type Via = 'smtp' | 'sms' | 'outbox';

/** nodemailer loads with the first e-mail, not in every start. */
let nodemailerModule: typeof import('nodemailer') | undefined;
const nodemailer = () => (nodemailerModule ??= createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer'));

/**
 * nodemailer's MIME builder, for the outbox's .eml files: the message a transport would send,
 * without a transport's plugins and streams around it (a file needs none of them).
 */
let composerModule: typeof import('nodemailer/lib/mail-composer').default | undefined;
const MailComposer = () => (composerModule ??= createRequire(import.meta.url)('nodemailer/lib/mail-composer') as typeof import('nodemailer/lib/mail-composer').default);

let smtp: { url: string; transport: Transporter } | undefined;
/** Outbox folders known to exist (one mkdir per folder and process, not per message). */
const madeDirs = new Set<string>();

function smtpTransport(url: string): Transporter {
  if (smtp?.url !== url) smtp = { url, transport: nodemailer().createTransport(url) };
  return smtp.transport;
}

/** E-mail over SMTP, or into the outbox as a .eml file when no SMTP server is configured. */
export async function sendEmail(config: Config, m: OutgoingMessage): Promise<Via> {
  const mail = { from: config.mailFrom, to: m.to.email ?? '', subject: m.subject, text: m.text, html: m.html, messageId: `<${m.id}@guestscreen>` };
  if (config.smtpUrl) {
    await smtpTransport(config.smtpUrl).sendMail(mail);
    return 'smtp';
  }
  const built = await new (MailComposer())(mail).compile().build();
  // Unix line ends, as a file on this machine has them (the MIME text is ASCII: latin1 keeps its bytes).
  await writeOutbox(outboxFile(config, m.id, 'eml'), Buffer.from(built.toString('latin1').replaceAll('\r', ''), 'latin1'));
  return 'outbox';
}

/** Where a message sent without a transport is saved (and erased from): the outbox file of its id. */
export const outboxFile = (config: Config, id: string, ext: 'eml' | 'json' = 'eml'): string => path.join(config.dataDir, 'outbox', `${id}.${ext}`);

/**
 * An e-mail to one of an account's people (an invitation, a password reset, a guest who needs a
 * decision): the guest messages' layout, signed by the service rather than a host.
 */
export function sendPeopleEmail(config: Config, id: string, to: string, subject: string, parts: Omit<MessageParts, 'signature'>): Promise<Via> {
  const m = { ...parts, signature: 'guestscreen' };
  return sendEmail(config, { id, to: { email: to, phone: null }, subject, text: messageText(m), html: messageHtml(m) });
}

/**
 * SMS through a Twilio-style Messages API (POST {url}/2010-04-01/Accounts/{sid}/Messages.json,
 * form-encoded To/From/Body, basic auth), or into the outbox as .json when none is configured.
 */
export async function sendSms(config: Config, m: OutgoingMessage): Promise<Via> {
  if (!config.sms) {
    await writeOutbox(outboxFile(config, m.id, 'json'), Buffer.from(JSON.stringify({ to: m.to.phone, body: m.text }, null, 2)));
    return 'outbox';
  }
  const { url, accountSid, authToken, from } = config.sms;
  const res = await postOutbound(
    `${url}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`,
    new URLSearchParams({ To: m.to.phone ?? '', From: from, Body: m.text }).toString(),
    {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
    },
    { allowPrivate: config.allowPrivateTargets, timeoutMs: 15_000 },
  );
  if (res.status >= 200 && res.status < 300) return 'sms';
  let detail = res.body.slice(0, 300);
  try {
    const err = JSON.parse(res.body) as { code?: number; message?: string };
    detail = `${err.code ?? ''} ${err.message ?? ''}`.trim();
  } catch {
    // not JSON: keep the text
  }
  throw new Error(`SMS provider answered ${res.status}: ${detail}`);
}

/** Removes the outbox's copies of these messages (an erased guest's address and name are in them). */
export async function eraseFromOutbox(config: Config, messageIds: readonly string[]): Promise<void> {
  for (const id of messageIds) {
    for (const ext of ['eml', 'json'] as const) await rm(outboxFile(config, id, ext), { force: true });
  }
}

async function writeOutbox(file: string, content: Buffer): Promise<void> {
  const dir = path.dirname(file);
  if (!madeDirs.has(dir)) {
    await mkdir(dir, { recursive: true });
    madeDirs.add(dir);
  }
  try {
    await writeFile(file, content, { mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // The folder went away since (someone emptied the data directory): make it again.
    await mkdir(dir, { recursive: true });
    await writeFile(file, content, { mode: 0o600 });
  }
}

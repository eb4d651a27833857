import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { dateInWords, momentInWords } from '../../lib/host-messages.js';
import type { AccountRow } from '../../modules/accounts/repo.js';
import type { ReservationRow } from '../../modules/bookings/index.js';
import { guestNameOf } from '../../modules/reservations/views.js';
import type { UserRow } from '../../modules/users/repo.js';
import { tokenDigest } from '../../modules/users/sessions.js';
import type { Role } from '../../db/schema.js';
import { can, ROLE_WORDS } from '../../modules/users/service.js';
import { neededRole } from '../../http/auth.js';
import { Document, sendPage } from '../layout.js';

/** What every console page knows: who is signed in, the form token, and where it is. */
export interface Ctx {
  account: AccountRow;
  /** The person signed in: their role decides which links and buttons the pages show. */
  user: UserRow;
  /** The digest of this session's token: which of a person's sessions is this one. */
  sessionDigest: string;
  csrf: string;
  path: string;
}

const NAV = [
  ['queue', '/console', 'Review queue'],
  ['reservations', '/console/reservations', 'Reservations'],
  ['listings', '/console/listings', 'Listings'],
  ['blocklist', '/console/blocklist', 'Blocklist'],
  ['rules', '/console/rules', 'Rules'],
  ['settings', '/console/settings', 'Settings'],
  ['webhooks', '/console/webhooks', 'Webhooks'],
  ['checks', '/console/checks', 'Background checks'],
  ['reports', '/console/reports', 'Police reports'],
] as const;

/** An owner's pages, after the work's. */
const OWNER_NAV = [
  ['people', '/console/people', 'People'],
  ['keys', '/console/keys', 'API keys'],
  ['audit', '/console/audit', 'Who did what'],
] as const;

export type Section = (typeof NAV)[number][0] | (typeof OWNER_NAV)[number][0] | 'accounts' | 'me';

/** The form token every console form carries (CSRF). */
export const Csrf = ({ ctx }: { ctx: Ctx }) => <input type="hidden" name="_csrf" value={ctx.csrf} />;

/** The role a console form's route needs: a POST needs a manager unless its route says otherwise (http/auth.ts). */
const POST_ROLE = neededRole('POST', {});

/** What a person is told of a form their role may not send. */
const needsRole = (ctx: Ctx, role: Role) => `Changing this needs the ${ROLE_WORDS[role].toLowerCase()} role or higher; you are ${ROLE_WORDS[ctx.user.role].toLowerCase()}.`;

/**
 * A button that posts a small form: approve, replay, remove. `role`: what its route needs (the
 * route's config.role); a person without it is not shown the button.
 */
export function PostButton({
  ctx,
  action,
  label,
  name,
  value,
  kind,
  id,
  role = POST_ROLE,
}: {
  ctx: Ctx;
  action: string;
  label: string;
  name?: string;
  value?: string;
  kind?: 'secondary' | 'danger';
  id?: string;
  role?: Role;
}) {
  if (!can(ctx.user, role)) return null;
  return (
    <form method="post" action={action} class="inline">
      <Csrf ctx={ctx} />
      <button type="submit" name={name} value={value} class={kind} id={id}>
        {label}
      </button>
    </form>
  );
}

/**
 * A form that posts, with its token. `role`: what its route needs (the route's config.role); for a
 * person without it, the form shows what is set, its controls disabled, and says which role may.
 */
export function PostForm({ ctx, action, role = POST_ROLE, children, ...rest }: { ctx: Ctx; action: string; role?: Role; children: ComponentChildren; class?: string; id?: string; enctype?: string }) {
  const allowed = can(ctx.user, role);
  return (
    <form method="post" action={action} {...rest}>
      <Csrf ctx={ctx} />
      {allowed ? (
        children
      ) : (
        <>
          <p class="muted needs-role">{needsRole(ctx, role)}</p>
          <fieldset disabled class="plain">
            {children}
          </fieldset>
        </>
      )}
    </form>
  );
}

export function ConsolePage({ ctx, title, section, notice, children }: { ctx: Ctx; title: string; section?: Section; notice?: string | undefined; children: ComponentChildren }) {
  const owner = ctx.user.role === 'owner';
  const nav = [...NAV, ...(owner ? OWNER_NAV : []), ...(owner && ctx.account.is_reseller ? [['accounts', '/console/accounts', 'Accounts'] as const] : [])];
  return (
    <Document title={title} script>
      <body>
        <a class="skip" href="#main">
          Skip to the page
        </a>
        <header class="top">
          <div class="bar">
            <a class="brand" href="/console">
              guestscreen
            </a>
            <span class="me">
              <a class="who" href="/console/me" title={`${ctx.user.email}, ${ctx.account.name} (${ctx.account.id})`} aria-current={section === 'me' ? 'page' : undefined}>
                {/* A person named as their account (the account's first owner, often) is named by their e-mail. */}
                {ctx.user.name && ctx.user.name !== ctx.account.name ? ctx.user.name : ctx.user.email} · {ctx.account.name}
              </a>
              <form method="post" action="/console/sign-out" class="inline">
                <Csrf ctx={ctx} />
                <button type="submit">Sign out</button>
              </form>
            </span>
            <nav aria-label="Console">
              {nav.map(([key, href, label]) => (
                <a href={href} aria-current={key === section ? 'page' : undefined}>
                  {label}
                </a>
              ))}
            </nav>
          </div>
        </header>
        <main class="wide" id="main">
          {notice ? (
            <p class="notice" role="status">
              {notice}
            </p>
          ) : null}
          {children}
        </main>
      </body>
    </Document>
  );
}

/** A table's header row; `actions` adds the column of buttons, named for screen readers only. */
export const Head = ({ columns, actions }: { columns: string[]; actions?: boolean }) => (
  <thead>
    <tr>
      {columns.map((c) => (
        <th>{c}</th>
      ))}
      {actions ? (
        <th>
          <span class="skip">Actions</span>
        </th>
      ) : null}
    </tr>
  </thead>
);

/** The guest's name as the host knows them. */
export const guestName = (r: ReservationRow) => guestNameOf(r) ?? 'Guest without a name';

export const COLOR_WORDS: Record<string, string> = { green: 'Green', yellow: 'Yellow', orange: 'Orange', red: 'Red' };
export const STATUS_WORDS: Record<string, string> = { verified: 'Verified', review: 'Needs review', declined: 'Declined', pending: 'Pending' };

export const ColorBadge = ({ color, label }: { color: string; label?: string }) => <span class={`badge ${color}`}>{label ?? COLOR_WORDS[color] ?? color}</span>;

const SHORT_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const day = (d: string) => new Date(`${d}T00:00:00Z`);

/** A stay's dates, short: "30 Oct – 4 Nov 2026", or "no dates". */
export function stay(checkIn: string | null, checkOut: string | null): string {
  if (!checkIn) return 'no dates';
  return checkOut && checkOut > checkIn ? SHORT_DATE.formatRange(day(checkIn), day(checkOut)) : `from ${SHORT_DATE.format(day(checkIn))}`;
}

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "3 minutes ago", "yesterday": how long ago a time was, in the largest unit that fits. */
export function ago(at: string, now: Date): string {
  const seconds = Math.round((Date.parse(at) - now.getTime()) / 1000);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return RELATIVE.format(Math.trunc(seconds / size), unit);
  return 'just now';
}

/** A moment in words: in the listing's time zone where one is given (what a host of that place reads), in UTC otherwise. */
export const when = (at: string | null | undefined, timeZone?: string | null) => (at ? (timeZone ? momentInWords(at, timeZone) : dateInWords(at, true)) : '—');

/** Previous and next links for a page of `size` rows from `from` out of `total`. */
export function Pager({
  base,
  from,
  size,
  total,
  query = {},
  param = 'from',
}: {
  base: string;
  from: number;
  size: number;
  total: number;
  query?: Record<string, string | undefined>;
  /** The query's name for the first row (two lists on one page page apart). */
  param?: string;
}) {
  const link = (at: number) => {
    const q = new URLSearchParams(Object.entries({ ...query, [param]: String(at) }).filter((e): e is [string, string] => Boolean(e[1])));
    return `${base}?${q.toString()}`;
  };
  if (total <= size && from === 0) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {from > 0 ? <a href={link(Math.max(0, from - size))}>← Previous</a> : null}
      <span class="muted">{total ? `${from + 1}–${Math.min(from + size, total)} of ${total}` : 'none'}</span>
      {from + size < total ? <a href={link(from + size)}>Next →</a> : null}
    </nav>
  );
}

/** Renders a console page for the signed-in account, with a fresh form token. */
export async function show(request: FastifyRequest, reply: FastifyReply, page: (ctx: Ctx) => VNode | Promise<VNode>, status = 200) {
  const csrf = reply.generateCsrf({ userInfo: request.sessionToken });
  const path = request.url.split('?')[0] ?? '/console';
  return sendPage(reply, await page({ account: request.account, user: request.user, sessionDigest: tokenDigest(request.sessionToken ?? ''), csrf, path }), status);
}

/** Empty fields of a form are fields not given, not empty values the API's schemas would refuse. */
export const dropEmpty = async (request: { query: unknown; body: unknown }) => {
  for (const part of [request.query, request.body]) {
    if (!part || typeof part !== 'object') continue;
    const fields = part as Record<string, unknown>;
    for (const k of Object.keys(fields)) if (fields[k] === '') delete fields[k];
  }
};

/** The form token field of a POST body's schema. */
export const CsrfField = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) };

/** A redirect after a form: 303, so a reload never posts it again. */
export const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).send();

import { Type } from '@sinclair/typebox';
import type { VNode } from 'preact';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { dateInWords } from '../../lib/host-messages.js';
import type { ReservationRow } from '../../modules/bookings/index.js';
import { StringEnum } from '../../http/validation.js';
import { compositeStatus, outlook, RISK_COLORS, screenedGuests, screeningDays } from '../../modules/screening/verdict.js';
import { BOOKING_STATUSES, DATE_FIELDS, SearchQuery, type SearchInput } from '../../modules/reservations/schemas.js';
import {
  declinedByRules,
  getReservation,
  markHandled,
  QUEUE_COLORS,
  QUEUE_HORIZON_DAYS,
  reservationsById,
  reviewQueue,
  searchWithVerdicts,
  type QueueColor,
} from '../../modules/reservations/service.js';
import { COLOR_WORDS, ColorBadge, ConsolePage, Csrf, CsrfField, dropEmpty, guestName, Head, Pager, seeOther, show, STATUS_WORDS, stay, type Ctx } from './shell.js';

const WEEKDAY = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', timeZone: 'UTC' });

const PAGE = 25;
const QueueQuery = Type.Object(
  {
    from: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    declined_from: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    color: Type.Optional(StringEnum([...RISK_COLORS, 'unscreened'] as const)),
    done: Type.Optional(Type.Literal('handled')),
  },
  { additionalProperties: false },
);
const ScreenedQuery = Type.Object(
  {
    from: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    color: Type.Optional(StringEnum(RISK_COLORS)),
    day: Type.Optional(Type.String({ format: 'date' })),
  },
  { additionalProperties: false },
);

/** Where one count of the week's chart is listed: the guests screened that day (or that week) with that colour (or any). */
const screenedLink = (color?: string, day?: string) => {
  const q = new URLSearchParams(Object.entries({ color, day }).filter((e): e is [string, string] => Boolean(e[1])));
  return `/console/screened${q.size ? `?${q.toString()}` : ''}`;
};

/** The queue's colour filter: every colour, or one, with how many wait in each. */
function ColorFilter({ byColor, chosen }: { byColor: Map<QueueColor, number>; chosen: string | undefined }) {
  const total = [...byColor.values()].reduce((a, b) => a + b, 0);
  const choices: [string | undefined, string, number][] = [
    [undefined, 'All', total],
    ...QUEUE_COLORS.map((c): [string, string, number] => [c ?? 'unscreened', c ? COLOR_WORDS[c]! : 'Not screened yet', byColor.get(c) ?? 0]),
  ];
  return (
    <nav class="chips" aria-label="Show one colour">
      {choices.map(([value, label, n]) =>
        value === chosen ? (
          <strong aria-current="true" class={`chip ${value ?? ''}`}>
            {label} ({n})
          </strong>
        ) : (
          <a class={`chip ${value ?? ''}`} href={value ? `/console?color=${value}` : '/console'}>
            {label} ({n})
          </a>
        ),
      )}
    </nav>
  );
}

/** One reservation per row: who, when, where, the colour and the strongest risk in words; with `action`, a last column of what to do. */
function ReservationTable({ rows, caption, action }: { rows: ReservationRow[]; caption: string; action?: (r: ReservationRow) => VNode }) {
  return (
    <table class="cards">
      <caption class="skip">{caption}</caption>
      <Head columns={['Guest', 'Stay', 'Listing', 'Verdict', 'Top risk', ...(action ? ['Your part'] : [])]} />
      <tbody>
        {rows.map((r) => {
          const o = outlook(r);
          const status = compositeStatus(r);
          return (
            <tr data-reservation={r.id}>
              <td data-label="Guest">
                <a href={`/console/reservations/${r.id}`}>{guestName(r)}</a>
              </td>
              <td data-label="Stay">{stay(r.check_in_date, r.check_out_date)}</td>
              <td data-label="Listing">{r.listing_nickname ?? r.listing_id ?? '—'}</td>
              <td data-label="Verdict">
                <ColorBadge color={o.risk_color} label={`${COLOR_WORDS[o.risk_color]} · ${STATUS_WORDS[status] ?? status}`} />
              </td>
              <td data-label="Top risk">{o.top_risks[0] ?? <span class="muted">nothing found</span>}</td>
              {action ? <td data-label="Your part">{action(r)}</td> : null}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const CHART_COLORS: Record<string, string> = { green: '#2e9e55', yellow: '#e3b800', orange: '#e67300', red: '#d93a2b' };

/** The week as stacked bars: reservations screened each day, split by the colour of the verdict. */
function WeekChart({ days }: { days: Awaited<ReturnType<typeof screeningDays>> }) {
  const width = 420;
  const height = 170;
  // Room above the tallest bar for its count, and below the baseline for the days.
  const barArea = height - 50;
  const max = Math.max(1, ...days.map((d) => d.total));
  const slot = width / days.length;
  const totals = Object.fromEntries(RISK_COLORS.map((c) => [c, days.reduce((a, d) => a + d.colors[c], 0)]));
  const summary = RISK_COLORS.map((c) => `${totals[c]} ${c}`).join(', ');
  return (
    <div class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-labelledby="chart-title chart-desc">
        <title id="chart-title">Reservations screened per day, last 7 days</title>
        <desc id="chart-desc">{days.map((d) => `${dateInWords(d.day)}: ${d.total}`).join('; ')}</desc>
        {days.map((d, i) => {
          let y = barArea + 20;
          const x = i * slot + slot * 0.2;
          const w = slot * 0.6;
          return (
            <g>
              {RISK_COLORS.map((c) => {
                const h = (d.colors[c] / max) * barArea;
                y -= h;
                return h > 0 ? (
                  <a href={screenedLink(c, d.day)} aria-label={`${dateInWords(d.day)}: ${d.colors[c]} ${COLOR_WORDS[c]!.toLowerCase()}`}>
                    <rect x={x} y={y} width={w} height={h} fill={CHART_COLORS[c]} />
                  </a>
                ) : null;
              })}
              {d.total ? (
                <a href={screenedLink(undefined, d.day)} aria-label={`${dateInWords(d.day)}: ${d.total} screened`}>
                  <text x={x + w / 2} y={y - 3} text-anchor="middle" font-size="12" fill="#1d2330" text-decoration="underline">
                    {d.total}
                  </text>
                </a>
              ) : null}
              <text x={x + w / 2} y={height - 12} text-anchor="middle" font-size="12" fill="#566075">
                {WEEKDAY.format(new Date(`${d.day}T00:00:00Z`))}
              </text>
            </g>
          );
        })}
        <line x1="0" x2={width} y1={barArea + 20} y2={barArea + 20} stroke="#d5dae3" />
      </svg>
      <div>
        <p>
          <strong>This week's verdicts</strong>
        </p>
        <ul class="legend" aria-label={`This week's verdicts: ${summary}`}>
          {RISK_COLORS.map((c) => (
            <li>
              <span class={`swatch ${c}`} />
              {totals[c] ? (
                <a href={screenedLink(c)}>
                  {COLOR_WORDS[c]}: {totals[c]}
                </a>
              ) : (
                `${COLOR_WORDS[c]}: ${totals[c]}`
              )}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/**
 * The guests a rule declined: the booking still stands in its channel and the guest has not
 * heard, so each stays here until the stay is cancelled or someone marks it handled.
 */
function DeclinedByRules({ ctx, declined }: { ctx: Ctx; declined: { from: number; size: number; total: number; rows: ReservationRow[] } }) {
  return (
    <section class="panel" aria-labelledby="declined-h" id="declined">
      <h2 id="declined-h">Declined by your rules: {declined.total}</h2>
      <p class="muted">
        A rule of yours declined {declined.total === 1 ? 'this guest' : 'these guests'}, but the booking still stands where it was made. Cancel it there and tell the guest, then mark it handled here.
        A cancelled booking leaves the list by itself.
      </p>
      <ReservationTable
        rows={declined.rows}
        caption="Guests declined by your rules, still to act on"
        action={(r) => (
          <form method="post" action={`/console/reservations/${r.id}/handled`}>
            <Csrf ctx={ctx} />
            <button type="submit" class="secondary" aria-label={`Mark ${guestName(r)} handled`}>
              Mark handled
            </button>
          </form>
        )}
      />
      <Pager base="/console" from={declined.from} size={declined.size} total={declined.total} param="declined_from" />
    </section>
  );
}

function SearchForm({ q }: { q: SearchInput }) {
  const select = (name: keyof SearchInput, label: string, options: readonly (readonly [string, string])[]) => (
    <div>
      <label for={`q_${name}`}>{label}</label>
      <select id={`q_${name}`} name={name}>
        {options.map(([v, l]) => (
          <option value={v} selected={String(q[name] ?? '') === v}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
  const text = (name: keyof SearchInput, label: string, type = 'text') => (
    <div>
      <label for={`q_${name}`}>{label}</label>
      <input id={`q_${name}`} name={name} type={type as 'text'} value={String(q[name] ?? '')} />
    </div>
  );
  return (
    <form method="get" action="/console/reservations" role="search">
      <div class="filters">
        {text('search', 'Name, e-mail, phone, code or listing', 'search')}
        {select('status', 'Booking', [['', 'Any booking'], ...BOOKING_STATUSES.map((s) => [s, s.charAt(0) + s.slice(1).toLowerCase()] as const)])}
        {select('pending_review', 'Verdict', [
          ['', 'Any verdict'],
          ['true', 'Needs review, undecided'],
        ])}
        {select('risk_color', 'Colour', [['', 'Any colour'], ...RISK_COLORS.toReversed().map((c) => [c, COLOR_WORDS[c]!] as const)])}
        {select('guestportal_completed', 'Guest portal', [
          ['', 'Either'],
          ['true', 'Completed'],
          ['false', 'Not completed'],
        ])}
        {select('active', 'Stay', [
          ['', 'Any'],
          ['1', 'Not over yet'],
          ['0', 'Over'],
        ])}
        {select(
          'dateField',
          'Dates are',
          DATE_FIELDS.map((f) => [f, f.replaceAll('_', ' ').replace(' date', '')] as const),
        )}
        {text('startDate', 'From', 'date')}
        {text('endDate', 'To', 'date')}
        {text('source', 'Source')}
        {text('listings', 'Listing ids (comma-separated)')}
        <div>
          <button type="submit">Search</button>
        </div>
      </div>
    </form>
  );
}

export const queuePages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console', { schema: { hide: true, querystring: QueueQuery } }, async (request, reply) => {
      const from = request.query.from ?? 0;
      const chosen = request.query.color;
      const color = chosen === undefined ? undefined : chosen === 'unscreened' ? null : chosen;
      const [queue, declined, days] = await Promise.all([
        reviewQueue(deps, request.account, { from, size: PAGE, color }),
        declinedByRules(deps, request.account, { from: request.query.declined_from ?? 0, size: PAGE }),
        screeningDays(deps, request.account),
      ]);
      return show(request, reply, (ctx) => (
        <ConsolePage ctx={ctx} title="Review queue" section="queue" notice={request.query.done === 'handled' ? 'Marked handled: the guest has left the list.' : undefined}>
          <h1>Waiting for your decision</h1>
          <p class="muted">
            Guests nobody has decided on yet: those whose screening asks for a look, those with a red or orange finding who have not finished the guest portal, and other guests checking in within{' '}
            {QUEUE_HORIZON_DAYS} days who have not finished it. Red and orange first, then yellow and green, each by check-in date. Your decision, a cancellation or the end of the stay takes a guest
            off the list; a guest your rules declined moves to its own list below, until you have dealt with the booking.
          </p>
          <section class="panel" aria-labelledby="queue-h">
            <h2 id="queue-h">{queue.total ? `${queue.total} waiting` : 'Nothing is waiting'}</h2>
            <ColorFilter byColor={queue.byColor} chosen={chosen} />
            {queue.rows.length ? (
              <ReservationTable rows={queue.rows} caption="Reservations waiting for a decision" />
            ) : declined.total ? (
              <p>No guest waits for your decision. Your rules declined the guests below: they still need you.</p>
            ) : (
              <p>Every screened guest has a verdict you do not need to look at. New ones appear here.</p>
            )}
            <Pager base="/console" from={from} size={PAGE} total={queue.total} query={{ color: chosen }} />
          </section>
          {declined.total ? <DeclinedByRules ctx={ctx} declined={declined} /> : null}
          <section class="panel" aria-labelledby="week-h">
            <h2 id="week-h">The last 7 days</h2>
            <WeekChart days={days} />
          </section>
          <form method="get" action="/console/reservations" role="search" class="panel">
            <label for="quick">Find a reservation</label>
            <input id="quick" name="search" type="search" placeholder="Name, e-mail, phone or confirmation code" />
          </form>
        </ConsolePage>
      ));
    });

    app.post(
      '/console/reservations/:id/handled',
      { config: { role: 'reviewer' }, schema: { hide: true, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }), body: Type.Object({ ...CsrfField }) } },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        await markHandled(deps, request.actor, r);
        return seeOther(reply, '/console?done=handled');
      },
    );

    app.get('/console/screened', { schema: { hide: true, querystring: ScreenedQuery } }, async (request, reply) => {
      const { color, day } = request.query;
      const from = request.query.from ?? 0;
      const found = await screenedGuests(deps, request.account, { day, color, from, size: PAGE });
      const rows = await reservationsById(deps, request.account, found.ids);
      const what = `${color ? `${COLOR_WORDS[color]} verdicts` : 'Guests screened'} ${day ? `on ${dateInWords(day)}` : 'in the last 7 days'}`;
      return show(request, reply, (ctx) => (
        <ConsolePage ctx={ctx} title={what} section="queue">
          <h1>{what}</h1>
          <p class="muted">
            Each guest screened then with {color ? `a ${COLOR_WORDS[color]!.toLowerCase()} verdict` : 'a verdict'}, the one screened last first; the colour shown is the verdict now.{' '}
            <a href="/console">Back to the queue</a>
          </p>
          <section class="panel" aria-labelledby="screened-h">
            <h2 id="screened-h">{found.total === 1 ? '1 guest' : `${found.total} guests`}</h2>
            {rows.length ? <ReservationTable rows={rows} caption={what} /> : <p>No guest was screened with this verdict then.</p>}
            <Pager base="/console/screened" from={from} size={PAGE} total={found.total} query={{ color, day }} />
          </section>
        </ConsolePage>
      ));
    });

    app.get('/console/reservations', { preValidation: dropEmpty, schema: { hide: true, querystring: SearchQuery } }, async (request, reply) => {
      const q = { ...request.query, size: request.query.size ?? PAGE };
      const found = await searchWithVerdicts(deps, request.account, q);
      const query = Object.fromEntries(
        Object.entries(q)
          .filter(([k]) => k !== 'from')
          .map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
      );
      return show(request, reply, (ctx) => (
        <ConsolePage ctx={ctx} title="Reservations" section="reservations">
          <h1>Reservations</h1>
          <section class="panel">
            <SearchForm q={q} />
          </section>
          <section class="panel" aria-labelledby="found-h">
            <h2 id="found-h">{found.total === 1 ? '1 reservation' : `${found.total} reservations`}</h2>
            {found.rows.length ? <ReservationTable rows={found.rows} caption="Reservations found" /> : <p>No reservation matches these filters.</p>}
            <Pager base="/console/reservations" from={found.from} size={found.size} total={found.total} query={query} />
          </section>
        </ConsolePage>
      ));
    });
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { translator } from '../../i18n/index.js';
import { missingInWords } from '../../modules/authority/guests.js';
import { openReportsView, type ReportView } from '../../modules/authority/reports.js';
import { dateInWords, momentInWords } from '../../lib/host-messages.js';
import { ColorBadge, ConsolePage, dropEmpty, Head, show, when, type Ctx } from './shell.js';

/** The console speaks English. */
const ENGLISH = translator('en');

/** A report's state in the host's words, and its badge's colour. */
const STATE_WORDS: Record<ReportView['state'], [string, string]> = {
  missing: ['Missing details', 'yellow'],
  ready: ['Ready to send', 'grey'],
  sent: ['Sent, waiting for the authority', 'grey'],
  accepted: ['Accepted', 'green'],
  rejected: ['Rejected', 'red'],
  not_required: ['Not reported', 'grey'],
};

/** A report's state, with what is missing, the receipt, or the authority's refusal and what to do. */
export function ReportState({ report, reservationId, timeZone }: { report: ReportView; reservationId: string; timeZone: string | null | undefined }) {
  const [words, color] = STATE_WORDS[report.state];
  return (
    <>
      <ColorBadge color={report.late ? 'red' : color} label={report.late ? `Late · ${words}` : words} />
      {report.tested ? <span class="muted"> (the authority's test service: nothing filed)</span> : null}
      {report.state === 'missing' && report.missing.length ? <p class="report-missing">The guest has not given: {missingInWords(report.missing, ENGLISH)}.</p> : null}
      {report.state === 'accepted' && report.receipt && report.system === 'alloggiati' ? (
        <p>
          Filed {when(report.answered_at, timeZone)}: on the{' '}
          <a href={`/console/reservations/${reservationId}/authority-receipts/${report.receipt}`} class="receipt">
            receipt of {report.receipt} (PDF)
          </a>
          .
        </p>
      ) : report.state === 'accepted' && report.receipt ? (
        <p>
          Receipt <code class="receipt">{report.receipt}</code>, {when(report.answered_at, timeZone)}.
        </p>
      ) : null}
      {report.error ? (
        <p class="report-error">
          {report.error.message ? (
            <>
              {report.system_name} said{report.error.code && report.error.code !== 'unconfirmed' ? ` (${report.error.code})` : ''}: <q>{report.error.message}</q>.{' '}
            </>
          ) : null}
          {report.error.fix}
        </p>
      ) : null}
    </>
  );
}

type Item = Awaited<ReturnType<typeof openReportsView>>['late'][number];

function ReportTable({ id, items }: { id: string; items: Item[] }) {
  if (!items.length) return <p class="muted">None.</p>;
  return (
    <table class="list cards" id={id}>
      <Head columns={['Guest', 'Stay', 'Report', 'Due']} />
      <tbody>
        {items.map((x) => (
          <tr>
            <td data-label="Guest">
              <a href={`/console/reservations/${x.reservation_id}`}>{x.guest_name || `Guest ${x.guest} of ${x.booked_by ?? 'the booking'}`}</a>
              {x.guest > 1 ? <span class="muted"> (guest {x.guest})</span> : null}
            </td>
            <td data-label="Stay">
              {x.listing_nickname ?? x.listing_id ?? 'No listing'}
              <br />
              <span class="muted">{x.check_in_date ? `arrives ${dateInWords(x.check_in_date)}` : 'no arrival date'}</span>
            </td>
            <td data-label="Report">
              <span class="muted">{x.system_name}: </span>
              <ReportState report={x} reservationId={x.reservation_id} timeZone={x.timezone} />
            </td>
            <td data-label="Due">{momentInWords(x.due_at, x.timezone)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

async function reportsPage(deps: Deps, ctx: Ctx, listing: string | undefined) {
  const v = await openReportsView(deps, ctx.account.id, listing);
  return (
    <ConsolePage ctx={ctx} title="Police reports" section="reports">
      <h1>Police reports</h1>
      <p>
        Every guest reported to the police as the law of the listing's country asks: within 24 hours of arrival in Spain and Italy, every foreign guest within 3 working days in Portugal. Every guest
        of a listing that reports is here from the booking on, whether or not they open the portal; each goes on its own once all the authority needs is given and the arrival day has come. The
        booking's page sends one at once, and lets you fill in what a guest did not give. The same reports are at GET /v1/reservations/{'{id}'}/authority-reports.
      </p>
      <form method="get" action="/console/reports">
        <div class="filters">
          <div>
            <label for="listing">Listing</label>
            <select id="listing" name="listing">
              <option value="">All listings</option>
              {v.listings.map((l) => (
                <option value={l.listing_id} selected={l.listing_id === listing}>
                  {l.listing_nickname ?? l.listing_id}
                </option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit">Show</button>
      </form>
      <section class="panel" aria-labelledby="late-h">
        <h2 id="late-h">Late ({v.late.length})</h2>
        <p class="muted">Past the deadline and not accepted: send them today.</p>
        <ReportTable id="late" items={v.late} />
      </section>
      <section class="panel" aria-labelledby="rejected-h">
        <h2 id="rejected-h">Rejected ({v.rejected.length})</h2>
        <ReportTable id="rejected" items={v.rejected} />
      </section>
      <section class="panel" aria-labelledby="due-h">
        <h2 id="due-h">Due in the next 24 hours ({v.due.length})</h2>
        <ReportTable id="due" items={v.due} />
      </section>
      {v.later.length ? (
        <section class="panel" aria-labelledby="later-h">
          <h2 id="later-h">Later ({v.later.length})</h2>
          <ReportTable id="later" items={v.later} />
        </section>
      ) : null}
    </ConsolePage>
  );
}

const ReportsQuery = Type.Object({ listing: Type.Optional(Type.String({ maxLength: 200 })) });

/** The police reports due today, late and rejected, by listing. */
export const reportPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console/reports', { preValidation: dropEmpty, schema: { hide: true, querystring: ReportsQuery } }, async (request, reply) =>
      show(request, reply, (ctx) => reportsPage(deps, ctx, request.query.listing)),
    );
  };

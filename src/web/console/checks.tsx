import { Type, type Static } from '@sinclair/typebox';
import type { ComponentChildren } from 'preact';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { adverseMediaView, backgroundView, checksAvailable, findCheck, listChecksByPerson, openPdf, openSubject, readSubject, submitCheck } from '../../modules/background-checks/service.js';
import { sendPdf } from '../../modules/background-checks/routes.js';
import { ConsolePage, CsrfField, type Ctx, dropEmpty, Head, seeOther, show, when, PostForm } from './shell.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const Text = (max = 100) => Type.Optional(Type.String({ maxLength: max }));
const PersonForm = Type.Object({
  first_name: Text(),
  middle_name: Text(),
  last_name: Text(),
  year_of_birth: Text(4),
  country: Text(2),
  city: Text(),
  state: Text(),
  email: Text(254),
  phone: Text(40),
  reservation_id: Text(100),
  ...CsrfField,
});
export const CHECK_STATE_WORDS: Record<string, string> = { PENDING: 'running', FINISHED: 'finished', FAILED: 'failed' };
const SECTION_WORDS: Record<string, string> = { CLEAR: 'nothing found', REVIEW: 'found something', NOT_RUN: 'not searched', PENDING: 'waiting' };
const RISK_WORDS: Record<string, string> = { CLEARED: 'nothing found', REVIEW: 'needs a look' };

/** What the form starts with: a reservation's guest, when the host came from one. */
const Prefill = Type.Object({ first_name: Text(), last_name: Text(), year_of_birth: Text(4), country: Text(2), city: Text(), reservation_id: Text(100) });
type Prefill = Static<typeof Prefill>;

function PersonFields({ prefix, country, values = {} }: { prefix: string; country: 'required' | 'optional'; values?: Prefill }) {
  const f = (name: Exclude<keyof Prefill, 'reservation_id'>, label: string, opts: { required?: boolean; type?: string; size?: number } = {}) => (
    <div>
      <label for={`${prefix}_${name}`}>
        {label}
        {opts.required ? null : <small> (optional)</small>}
      </label>
      <input id={`${prefix}_${name}`} name={name} required={opts.required} type={(opts.type ?? 'text') as 'text'} maxLength={opts.size} value={values[name] ?? ''} />
    </div>
  );
  return (
    <div class="filters">
      {f('first_name', 'First name', { required: true })}
      {f('last_name', 'Last name', { required: true })}
      {f('year_of_birth', 'Year of birth', { size: 4 })}
      {f('country', 'Country (two letters, e.g. GB)', { required: country === 'required', size: 2 })}
      {f('city', 'City')}
      {values.reservation_id ? <input type="hidden" name="reservation_id" value={values.reservation_id} /> : null}
    </div>
  );
}

type Listed = Awaited<ReturnType<typeof listChecksByPerson>>;

function CheckList({ kind, list }: { kind: 'background' | 'adverse-media'; list: Listed }) {
  if (!list.items.length) return <p>None yet.</p>;
  return (
    <table class="cards">
      <Head columns={['Person', 'Started', 'State']} />
      <tbody>
        {list.items.map((c) => (
          <tr data-check={c.id}>
            <td data-label="Person">
              <a href={`/console/checks/${kind}/${c.id}`}>{c.name}</a>
            </td>
            <td data-label="Started">{when(c.start_date)}</td>
            <td data-label="State">
              {CHECK_STATE_WORDS[c.status] ?? c.status}
              {c.risk_status ? `, ${RISK_WORDS[c.risk_status] ?? c.risk_status}` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Said instead of a form the installation cannot serve yet, in the host's words. */
const NotSetUp = ({ what }: { what: string }) => (
  <p class="notice">{what} are not set up on this guestscreen yet: whoever runs it imports the data or connects a search service (docs/lookups.md tells them how).</p>
);

/** One kind of check: its form (or why there is none) and the latest ones. */
function CheckPanel(p: { ctx: Ctx; kind: 'background' | 'adverse-media'; title: string; intro: string; button: string; notSetUp: string; available: boolean; list: Listed; values?: Prefill }) {
  return (
    <section class="panel" aria-labelledby={`${p.kind}-h`}>
      <h2 id={`${p.kind}-h`}>{p.title}</h2>
      <p class="muted">{p.intro}</p>
      {p.available ? (
        <PostForm ctx={p.ctx} action={`/console/checks/${p.kind}`}>
          <PersonFields prefix={p.kind === 'background' ? 'bg' : 'am'} country={p.kind === 'background' ? 'optional' : 'required'} values={p.values} />
          <button type="submit">{p.button}</button>
        </PostForm>
      ) : (
        <NotSetUp what={p.notSetUp} />
      )}
      <h2>Recent</h2>
      <CheckList kind={p.kind} list={p.list} />
    </section>
  );
}

/** While a report runs, htmx looks again every two seconds; without JavaScript a reload does. */
function Following({ url, running }: { url: string; running: boolean }) {
  if (!running) return null;
  return (
    <p class="notice" role="status" hx-get={url} hx-trigger="every 2s" hx-select="#report" hx-target="#report" hx-swap="outerHTML">
      Searching now. This page updates by itself when the report is ready (or <a href={url}>reload it</a>).
    </p>
  );
}

/** A check's own page: who it is about, how it stands, and its findings once it has them. */
function ReportPage(p: {
  ctx: Ctx;
  title: string;
  heading: string;
  url: string;
  started: string;
  status: string;
  risk?: string | undefined;
  error?: string | null | undefined;
  /** The booking it was ordered from. */
  booking: string | null;
  children: ComponentChildren;
}) {
  return (
    <ConsolePage ctx={p.ctx} title={p.title} section="checks">
      <p>
        <a href="/console/checks">← Background checks</a>
        {p.booking ? (
          <>
            {' · '}
            <a href={`/console/reservations/${p.booking}`} id="booking">
              The booking it was ordered from
            </a>
          </>
        ) : null}
      </p>
      <h1>{p.heading}</h1>
      <section class="panel" id="report">
        <p>
          Started {when(p.started)}; <strong id="check-status">{CHECK_STATE_WORDS[p.status] ?? p.status}</strong>
          {p.risk ? `: ${p.risk}` : ''}.
        </p>
        <Following url={p.url} running={p.status === 'PENDING'} />
        {p.error ? <p class="error">{p.error}</p> : null}
        {p.children}
      </section>
    </ConsolePage>
  );
}

export const checkPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console/checks', { preValidation: dropEmpty, schema: { hide: true, querystring: Prefill } }, async (request, reply) => {
      const [available, background, media] = await Promise.all([
        checksAvailable(deps),
        listChecksByPerson(deps, request.account.id, 'globalcheck', { from: 0, size: 20 }),
        listChecksByPerson(deps, request.account.id, 'adverse_media', { from: 0, size: 20 }),
      ]);
      return show(request, reply, (ctx: Ctx) => (
        <ConsolePage ctx={ctx} title="Background checks" section="checks">
          <h1>Background checks and news searches</h1>
          {request.query.reservation_id ? (
            <p class="notice" id="from-booking">
              Filled in from <a href={`/console/reservations/${encodeURIComponent(request.query.reservation_id)}`}>the booking</a>: what you start here is listed on its page.
            </p>
          ) : null}
          <div class="grid2">
            <CheckPanel
              ctx={ctx}
              kind="background"
              title="Background check"
              intro="Sanctions lists, registers and news about a person, with a PDF report."
              button="Start background check"
              notSetUp="Background checks"
              available={available.globalcheck}
              list={background}
              values={request.query}
            />
            <CheckPanel
              ctx={ctx}
              kind="adverse-media"
              title="News search"
              intro="Articles that name the person near words of wrongdoing."
              button="Search the news"
              notSetUp="News searches"
              available={available.adverse_media}
              list={media}
              values={request.query}
            />
          </div>
        </ConsolePage>
      ));
    });

    app.post('/console/checks/background', { preValidation: dropEmpty, schema: { hide: true, body: PersonForm } }, async (request, reply) => {
      const { _csrf, reservation_id = null, ...person } = request.body;
      const row = await submitCheck(deps, request.account.id, 'globalcheck', readSubject(person, { countryRequired: false }, deps.clock()), reservation_id);
      return seeOther(reply, `/console/checks/background/${row.id}`);
    });

    app.post('/console/checks/adverse-media', { preValidation: dropEmpty, schema: { hide: true, body: PersonForm } }, async (request, reply) => {
      const { _csrf, reservation_id = null, ...person } = request.body;
      const row = await submitCheck(deps, request.account.id, 'adverse_media', readSubject(person, { countryRequired: true }, deps.clock()), reservation_id);
      return seeOther(reply, `/console/checks/adverse-media/${row.id}`);
    });

    app.get('/console/checks/background/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      const row = await findCheck(deps, request.account.id, request.params.id, 'globalcheck');
      const view = backgroundView(deps, row);
      const s = openSubject(deps, row);
      const url = `/console/checks/background/${row.id}`;
      return show(request, reply, (ctx) => (
        <ReportPage
          ctx={ctx}
          title="Background check"
          heading={`Background check: ${s.firstName} ${s.lastName}`}
          url={url}
          started={view.start_date}
          status={view.status}
          risk={view.risk_status ? (RISK_WORDS[view.risk_status] ?? view.risk_status) : undefined}
          error={view.error}
          booking={row.reservation_id}
        >
          {view.pdf ? (
            <p>
              <a class="button" href={`${url}/pdf`} id="pdf">
                Open the PDF report
              </a>
            </p>
          ) : null}
          {view.report_items.map((section) => (
            <>
              <h2>
                {section.name}: {SECTION_WORDS[section.status] ?? section.status}
              </h2>
              {section.searched ? <p class="muted">{section.searched}</p> : null}
              <ul class="plain">
                {section.items.map((item) => (
                  <li>
                    <strong>{item.title}</strong>
                    {item.subtitle ? ` — ${item.subtitle}` : ''}
                    {item.description ? <div class="muted">{item.description}</div> : null}
                  </li>
                ))}
              </ul>
            </>
          ))}
        </ReportPage>
      ));
    });

    app.get('/console/checks/background/:id/pdf', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      return sendPdf(reply, `background-check-${request.params.id}.pdf`, openPdf(deps, await findCheck(deps, request.account.id, request.params.id, 'globalcheck')));
    });

    app.get('/console/checks/adverse-media/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      const row = await findCheck(deps, request.account.id, request.params.id, 'adverse_media');
      const view = adverseMediaView(deps, row);
      const s = openSubject(deps, row);
      const url = `/console/checks/adverse-media/${row.id}`;
      return show(request, reply, (ctx) => (
        <ReportPage
          ctx={ctx}
          title="News search"
          heading={`News about ${s.firstName} ${s.lastName}`}
          url={url}
          started={view.startDate}
          status={view.status}
          error={view.error}
          booking={row.reservation_id}
        >
          {view.status === 'FINISHED' ? (
            <p>
              {view.findings.length
                ? `${view.findings.length} articles${view.riskCategories.length ? `, about ${view.riskCategories.join(', ').replaceAll('_', ' ').toLowerCase()}` : ''}.`
                : 'No article names this person near words of wrongdoing.'}
            </p>
          ) : null}
          <ul class="plain">
            {view.findings.map((f) => (
              <li>
                <a href={f.link} rel="noreferrer noopener" target="_blank">
                  {f.title}
                </a>
                <div class="muted">{f.summary}</div>
              </li>
            ))}
          </ul>
        </ReportPage>
      ));
    });
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import type { Actor } from '../../lib/actor.js';
import { actionsOf, auditPage } from '../../modules/audit/service.js';
import { everyUser } from '../../modules/users/service.js';
import { reservationsById } from '../../modules/reservations/service.js';
import { listRules } from '../../modules/rules/service.js';
import { ConsolePage, dropEmpty, guestName, Head, Pager, show, when, type Ctx } from './shell.js';

const PAGE = 50;
const ACTOR_WORDS: Record<string, string> = { user: 'person', api_key: 'API key', operator: 'command line' };

/** "Ana Ruiz (person)", "Channel manager (API key)"; the account's own key is named "API key" already. */
const who = (actor: Actor | null) =>
  !actor ? 'The service' : actor.type === 'api_key' && actor.name === 'API key' ? "The account's API key" : `${actor.name} (${ACTOR_WORDS[actor.type] ?? actor.type})`;

/** "reservation.approved" → "Reservation approved": the action in words, its code kept beside it. */
const actionWords = (action: string) => {
  const text = action.replace(/[._]/g, ' ');
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
};

type Query = { actor?: string | undefined; action?: string | undefined; from_date?: string | undefined; to_date?: string | undefined; from?: number | undefined };

async function auditLogPage(deps: Deps, ctx: Ctx, q: Query) {
  const from = q.from ?? 0;
  const [page, people, actions] = await Promise.all([auditPage(deps, ctx.account, q, from, PAGE), everyUser(deps, ctx.account.id), actionsOf(deps, ctx.account)]);
  const reservationIds = [...new Set(page.items.flatMap((l) => (l.subject_id?.startsWith('res_') ? [l.subject_id] : [])))];
  const names = new Map(people.map((p) => [p.id, p.name || p.email]));
  // A rule by its name, linked while it exists.
  const rules = new Map((await listRules(deps, ctx.account)).map((r) => [r.id, r.name]));
  const guests = new Map((await reservationsById(deps, ctx.account, reservationIds)).map((r) => [r.id, guestName(r)]));
  return (
    <ConsolePage ctx={ctx} title="Who did what" section="audit">
      <h1>Who did what</h1>
      <p>Every change in this account: people in the console by name, integrations by their API key. The same lines are at GET /v1/audit.</p>
      <form method="get" action="/console/audit">
        <div class="filters">
          <div>
            <label for="actor">Person</label>
            <select id="actor" name="actor">
              <option value="">Anyone</option>
              {people.map((p) => (
                <option value={p.id} selected={p.id === q.actor}>
                  {p.name || p.email}
                  {p.removed_at ? ' (removed)' : ''}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="action">Action</label>
            <select id="action" name="action">
              <option value="">Any</option>
              {actions.map((a) => (
                <option value={a} selected={a === q.action}>
                  {actionWords(a)}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="from_date">From</label>
            <input id="from_date" name="from_date" type="date" value={q.from_date ?? ''} />
          </div>
          <div>
            <label for="to_date">To</label>
            <input id="to_date" name="to_date" type="date" value={q.to_date ?? ''} />
          </div>
        </div>
        <button type="submit">Show</button>
      </form>
      <table class="list cards" id="audit">
        <Head columns={['When', 'Who', 'What', 'On']} />
        <tbody>
          {page.items.map((line) => (
            <tr>
              <td data-label="When">{when(line.at)}</td>
              <td data-label="Who">{who(line.actor)}</td>
              <td data-label="What">
                {actionWords(line.action)} <code class="muted">{line.action}</code>
              </td>
              <td data-label="On">
                {line.subject_id && guests.has(line.subject_id) ? (
                  <a href={`/console/reservations/${line.subject_id}`}>{guests.get(line.subject_id)}</a>
                ) : line.subject_id && names.has(line.subject_id) ? (
                  names.get(line.subject_id)
                ) : line.subject_id && rules.has(line.subject_id) ? (
                  <a href={`/console/rules/${line.subject_id}`}>{rules.get(line.subject_id)}</a>
                ) : (
                  <code>{line.subject_id ?? '—'}</code>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.total ? null : <p class="muted">Nothing matches.</p>}
      <Pager base="/console/audit" from={from} size={PAGE} total={page.total} query={{ actor: q.actor, action: q.action, from_date: q.from_date, to_date: q.to_date }} />
    </ConsolePage>
  );
}

const AuditQuery = Type.Object({
  actor: Type.Optional(Type.String({ maxLength: 100 })),
  action: Type.Optional(Type.String({ maxLength: 100 })),
  from_date: Type.Optional(Type.String({ maxLength: 40 })),
  to_date: Type.Optional(Type.String({ maxLength: 40 })),
  from: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});

/** The audit log for owners: filter by person, action and dates, a page at a time. */
export const auditPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console/audit', { config: { role: 'owner' }, preValidation: dropEmpty, schema: { hide: true, querystring: AuditQuery } }, async (request, reply) =>
      show(request, reply, (ctx) => auditLogPage(deps, ctx, request.query)),
    );
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { createNamedKey, GRACE_HOURS, listNamedKeys, revokeNamedKey, rollNamedKey } from '../../modules/accounts/service.js';
import { everyUser } from '../../modules/users/service.js';
import { ConsolePage, Csrf, CsrfField, Head, PostButton, seeOther, show, when, type Ctx } from './shell.js';

const GRACE_CHOICES: [number, string][] = [
  [1, '1 hour'],
  [24, '1 day'],
  [72, '3 days'],
  [GRACE_HOURS.max, '7 days'],
];

async function keysPage(deps: Deps, ctx: Ctx, opts: { done?: string | undefined; fresh?: { name: string; value: string; oldUntil?: string } }) {
  const [keys, people] = await Promise.all([listNamedKeys(deps, ctx.account), everyUser(deps, ctx.account.id)]);
  const names = new Map(people.map((p) => [p.id, p.name || p.email]));
  return (
    <ConsolePage ctx={ctx} title="API keys" section="keys" notice={opts.done === 'revoked' ? 'The key is revoked: it no longer works.' : undefined}>
      <h1>API keys</h1>
      <p>
        A key for each integration, so one can be revoked or rolled without touching the others. Every change made with a key names it in <a href="/console/audit">Who did what</a>. The account’s own
        key (the one the API documentation speaks of) keeps working beside these.
      </p>
      {opts.fresh ? (
        <div class="notice" role="status" id="new-key">
          <p>
            New key <strong>{opts.fresh.name}</strong>: copy it now, it is shown only once.
          </p>
          <p class="key">
            <code>{opts.fresh.value}</code>
          </p>
          {opts.fresh.oldUntil ? <p>The old key keeps working until {when(opts.fresh.oldUntil)}.</p> : null}
        </div>
      ) : null}
      <table class="list cards" id="keys">
        <Head columns={['Name', 'Access', 'Made', 'Last used', 'Works until']} actions />
        <tbody>
          {keys.map((k) => (
            <tr>
              <td data-label="Name">
                {k.name}
                <br />
                <small class="muted">
                  <code>{k.id}</code>
                  {k.created_by ? ` by ${names.get(k.created_by) ?? k.created_by}` : ''}
                </small>
              </td>
              <td data-label="Access">{k.read_only ? 'Read only' : 'Read and write'}</td>
              <td data-label="Made">{when(k.created_at)}</td>
              <td data-label="Last used">{k.last_used_at ? when(k.last_used_at) : 'Never'}</td>
              <td data-label="Works until">{k.expires_at ? <span class="badge orange">{when(k.expires_at)}</span> : 'Until revoked'}</td>
              <td>
                {k.expires_at ? null : (
                  <form method="post" action={`/console/keys/${k.id}/roll`} class="inline">
                    <Csrf ctx={ctx} />
                    <label class="skip" for={`grace-${k.id}`}>
                      Old key keeps working for
                    </label>
                    <select id={`grace-${k.id}`} name="grace_hours">
                      {GRACE_CHOICES.map(([h, words]) => (
                        <option value={String(h)} selected={h === 24}>
                          old key works {words}
                        </option>
                      ))}
                    </select>
                    <button type="submit" class="secondary">
                      Roll
                    </button>
                  </form>
                )}
                <PostButton ctx={ctx} action={`/console/keys/${k.id}/revoke`} label="Revoke" kind="danger" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {keys.length ? null : <p class="muted">No named keys yet.</p>}
      <section class="panel" aria-labelledby="new-h">
        <h2 id="new-h">New key</h2>
        <form method="post" action="/console/keys" id="create-key">
          <Csrf ctx={ctx} />
          <label for="key-name">Name</label>
          <input id="key-name" name="name" required maxLength={100} placeholder="e.g. Channel manager sync" />
          <label class="check">
            <input type="checkbox" name="read_only" value="yes" /> <span>Read only: it can look but not change anything</span>
          </label>
          <button type="submit">Make the key</button>
        </form>
      </section>
    </ConsolePage>
  );
}

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Named API keys, for owners: made, rolled with a grace period, revoked. */
export const keyPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const config = { role: 'owner' as const };
    app.get('/console/keys', { config, schema: { hide: true, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }) } }, async (request, reply) =>
      show(request, reply, (ctx) => keysPage(deps, ctx, { done: request.query.done })),
    );
    app.post(
      '/console/keys',
      { config, schema: { hide: true, body: Type.Object({ name: Type.String({ maxLength: 100 }), read_only: Type.Optional(StringEnum(['yes'] as const)), ...CsrfField }) } },
      async (request, reply) => {
        const made = await createNamedKey(deps, request.account, request.actor, { name: request.body.name, readOnly: request.body.read_only === 'yes' });
        return show(request, reply, (ctx) => keysPage(deps, ctx, { fresh: { name: request.body.name.trim(), value: made.value } }));
      },
    );
    app.post(
      '/console/keys/:id/roll',
      { config, schema: { hide: true, params: IdParams, body: Type.Object({ grace_hours: Type.Integer({ minimum: GRACE_HOURS.min, maximum: GRACE_HOURS.max }), ...CsrfField }) } },
      async (request, reply) => {
        const rolled = await rollNamedKey(deps, request.account, request.actor, request.params.id, request.body.grace_hours);
        const name = (await listNamedKeys(deps, request.account)).find((k) => k.id === rolled.id)?.name ?? '';
        return show(request, reply, (ctx) => keysPage(deps, ctx, { fresh: { name, value: rolled.value, oldUntil: rolled.oldUntil } }));
      },
    );
    app.post('/console/keys/:id/revoke', { config, schema: { hide: true, params: IdParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      await revokeNamedKey(deps, request.account, request.actor, request.params.id);
      return seeOther(reply, '/console/keys?done=revoked');
    });
  };

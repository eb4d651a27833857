import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { RegisterBody } from '../../modules/accounts/schemas.js';
import { listChildren, listKeys, registerChild, toAccountView, updateManagedAccount } from '../../modules/accounts/service.js';
import { createSignupLink } from '../../modules/signup/service.js';
import { ConsolePage, Csrf, CsrfField, type Ctx, dropEmpty, Head, Pager, PostButton, seeOther, show, when } from './shell.js';

const PAGE = 20;
const DONE: Record<string, string> = {
  suspended: 'The account is suspended: its key and console are refused until you lift it.',
  resumed: 'The suspension is lifted.',
  disabled: 'The account is disabled.',
  enabled: 'The account is enabled again.',
};
const Query = Type.Object({ from: Type.Optional(Type.Integer({ minimum: 0 })), done: Type.Optional(Type.String({ maxLength: 20 })) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const CreateForm = Type.Object({ ...Type.Pick(RegisterBody, ['name', 'email', 'phone', 'password']).properties, ...CsrfField }, { additionalProperties: false });
const StateForm = Type.Object({ change: StringEnum(['suspend', 'resume', 'disable', 'enable'] as const), ...CsrfField });
const SignupForm = Type.Object({
  pms: Type.String({ minLength: 1, maxLength: 100 }),
  redirect: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 })),
  hidepw: Type.Optional(Type.Literal('on')),
  ...CsrfField,
});

type Shown = { created?: { name: string; apiKey: string }; signup?: { url: string; expiry: string } };

function stateWords(a: { is_active: boolean; is_suspended: boolean }) {
  if (!a.is_active) return 'disabled';
  return a.is_suspended ? 'suspended' : 'active';
}

async function accountsPage(deps: Deps, ctx: Ctx, opts: { from: number; done?: string | undefined } & Shown) {
  const children = await listChildren(deps, ctx.account, opts.from, PAGE);
  return (
    <ConsolePage ctx={ctx} title="Accounts" section="accounts" notice={opts.done ? DONE[opts.done] : undefined}>
      <h1>Accounts you manage</h1>
      {opts.created ? (
        <p class="notice" role="status">
          {opts.created.name} is created. Its API key: <code id="new-key">{opts.created.apiKey}</code>. The key is also listed under “API keys” below.
        </p>
      ) : null}
      {opts.signup ? (
        <p class="notice" role="status">
          Signup link, usable once until {when(opts.signup.expiry)}: <code id="signup-url">{opts.signup.url}</code>
        </p>
      ) : null}
      <section class="panel" aria-labelledby="children-h">
        <h2 id="children-h">Accounts</h2>
        {children.items.length ? (
          <table class="cards" id="children">
            <Head columns={['Name', 'E-mail', 'Created', 'State']} actions />
            <tbody>
              {children.items.map((a) => (
                <tr data-account={a.id}>
                  <td data-label="Name">
                    {a.name}
                    {a.is_reseller ? <small> (reseller)</small> : null}
                    <br />
                    <small class="muted">{a.id}</small>
                  </td>
                  <td data-label="E-mail">{a.email}</td>
                  <td data-label="Created">{when(a.created_at)}</td>
                  <td data-label="State">{stateWords(a)}</td>
                  <td>
                    {a.is_active ? (
                      <PostButton
                        ctx={ctx}
                        action={`/console/accounts/${a.id}/state`}
                        name="change"
                        value={a.is_suspended ? 'resume' : 'suspend'}
                        label={a.is_suspended ? 'Lift suspension' : 'Suspend'}
                        kind="secondary"
                      />
                    ) : null}{' '}
                    <PostButton
                      ctx={ctx}
                      action={`/console/accounts/${a.id}/state`}
                      name="change"
                      value={a.is_active ? 'disable' : 'enable'}
                      label={a.is_active ? 'Disable' : 'Enable'}
                      kind={a.is_active ? 'danger' : 'secondary'}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>You manage no account yet. Create one below or send a signup link.</p>
        )}
        <Pager base="/console/accounts" from={opts.from} size={PAGE} total={children.total} />
        <p class="muted">A suspended account keeps its data, but its key and its console are refused until you lift the suspension. A disabled account is closed.</p>
      </section>
      <div class="grid2">
        <section class="panel" aria-labelledby="create-h">
          <h2 id="create-h">Create an account</h2>
          <form method="post" action="/console/accounts">
            <Csrf ctx={ctx} />
            <label for="a_name">Name</label>
            <input id="a_name" name="name" required maxLength={200} autocomplete="organization" />
            <label for="a_email">E-mail</label>
            <input id="a_email" name="email" type="email" required maxLength={254} autocomplete="off" />
            <label for="a_phone">
              Phone <small>(optional)</small>
            </label>
            <input id="a_phone" name="phone" type="tel" maxLength={40} />
            <label for="a_password">
              Console password <small>(optional, 8 characters or more)</small>
            </label>
            <input id="a_password" name="password" type="password" minLength={8} maxLength={256} autocomplete="new-password" />
            <button type="submit">Create account</button>
          </form>
        </section>
        <section class="panel" aria-labelledby="signup-h">
          <h2 id="signup-h">Signup link</h2>
          <p class="muted">A link someone opens to create their own account under yours, with their own password.</p>
          <form method="post" action="/console/accounts/signup-link">
            <Csrf ctx={ctx} />
            <label for="l_pms">Their property management system</label>
            <select id="l_pms" name="pms">
              {deps.config.pmsNames.map((p) => (
                <option value={p}>{p === 'api' ? 'none (API)' : p}</option>
              ))}
            </select>
            <label for="l_redirect">
              Where to send them afterwards <small>(optional)</small>
            </label>
            <input id="l_redirect" name="redirect" type="url" placeholder="https://" maxLength={2000} />
            <label class="check">
              <input type="checkbox" name="hidepw" /> <span>Do not ask them for a password</span>
            </label>
            <button type="submit">Make a link</button>
          </form>
        </section>
      </div>
      <section class="panel" aria-labelledby="keys-h">
        <h2 id="keys-h">API keys</h2>
        <p>
          <a href="/console/accounts/keys">Show the API keys of your accounts</a>
        </p>
      </section>
    </ConsolePage>
  );
}

/**
 * A reseller's accounts (DESIGN.md section 10): the same services as /v1/accounts with the
 * signed-in account as the caller, so the same subtree rule decides which accounts it reaches.
 */
export const accountPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const config = { resellerOnly: true, role: 'owner' as const };

    app.get('/console/accounts', { config, schema: { hide: true, querystring: Query } }, async (request, reply) =>
      show(request, reply, (ctx) => accountsPage(deps, ctx, { from: request.query.from ?? 0, done: request.query.done })),
    );

    app.post('/console/accounts', { config, preValidation: dropEmpty, schema: { hide: true, body: CreateForm } }, async (request, reply) => {
      const { _csrf, ...input } = request.body;
      const { account, apiKey } = await registerChild(deps, request.account, request.actor, input);
      return show(request, reply, (ctx) => accountsPage(deps, ctx, { from: 0, created: { name: account.name, apiKey } }));
    });

    app.post('/console/accounts/:id/state', { config, schema: { hide: true, params: IdParams, body: StateForm } }, async (request, reply) => {
      const change = request.body.change;
      const status = change === 'disable' ? 'disabled' : change === 'enable' ? 'active' : undefined;
      const suspended = change === 'suspend' ? true : change === 'resume' ? false : undefined;
      await updateManagedAccount(deps, request.account, request.actor, request.params.id, {}, { status, suspended });
      const done = { suspend: 'suspended', resume: 'resumed', disable: 'disabled', enable: 'enabled' }[change];
      return seeOther(reply, `/console/accounts?done=${done}`);
    });

    app.post('/console/accounts/signup-link', { config, preValidation: dropEmpty, schema: { hide: true, body: SignupForm } }, async (request, reply) => {
      const signup = await createSignupLink(deps, request.account, { pms: request.body.pms, redirect: request.body.redirect, hidePassword: request.body.hidepw === 'on' });
      return show(request, reply, (ctx) => accountsPage(deps, ctx, { from: 0, signup }));
    });

    app.get('/console/accounts/keys', { config, schema: { hide: true } }, async (request, reply) => {
      const keys = await listKeys(deps, request.account);
      const me = toAccountView(request.account);
      return show(request, reply, (ctx) => (
        <ConsolePage ctx={ctx} title="API keys" section="accounts">
          <p>
            <a href="/console/accounts">← Accounts</a>
          </p>
          <h1>API keys</h1>
          <p class="muted">Each key acts as its account in the API (the x-api-key header). Keep them secret.</p>
          <table class="cards" id="keys">
            <Head columns={['Account', 'Key']} />
            <tbody>
              {keys.map((k) => (
                <tr data-account={k.user_id}>
                  <td data-label="Account">
                    {k.user_name}
                    {k.user_id === me.id ? <small> (yours)</small> : null}
                  </td>
                  <td data-label="Key">
                    <code class="key">{k.value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ConsolePage>
      ));
    });
  };

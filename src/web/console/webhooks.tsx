import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { AppError } from '../../lib/errors.js';
import { deliveriesView, replayDelivery, rotateWebhookSecret } from '../../modules/events/service.js';
import { WEBHOOK_KEYS } from '../../modules/webhooks/keys.js';
import { describeWebhooks, registerWebhook, unregisterWebhook } from '../../modules/webhooks/service.js';
import { ConsolePage, CsrfField, type Ctx, Head, Pager, PostButton, seeOther, show, when, PostForm } from './shell.js';

const PAGE = 20;
const DONE: Record<string, string> = { registered: 'Webhook saved.', removed: 'Webhook removed.', replayed: 'The event is queued to be sent again; it shows at the top of the log.' };
const KEY_WORDS: Record<string, string> = {
  screening_webhook_url: 'Screening verdicts and decisions',
  guest_portal_webhook_url: 'Guest portal progress',
  reservation_webhook_url: 'Reservations created and changed',
  stargate_webhook_url: 'Messages to guests',
  listing_webhook_url: 'Listings',
  account_webhook_url: 'Accounts',
  background_check_webhook_url: 'Background checks',
  callback: 'Callback of one request',
};
const Query = Type.Object({ from: Type.Optional(Type.Integer({ minimum: 0 })), done: Type.Optional(Type.String({ maxLength: 20 })) });

type Attempt = { webhook_key: string; webhook_url: string; problem: string };

async function webhooksPage(deps: Deps, ctx: Ctx, opts: { from: number; done?: string | undefined; secret?: { signing_secret: string; previous_secret_valid_until: string }; attempt?: Attempt }) {
  const attempt = opts.attempt;
  const [hooks, log] = await Promise.all([describeWebhooks(deps, ctx.account), deliveriesView(deps, ctx.account, opts.from, PAGE)]);
  return (
    <ConsolePage ctx={ctx} title="Webhooks" section="webhooks" notice={opts.done ? DONE[opts.done] : undefined}>
      <h1>Webhooks</h1>
      <p class="muted">guestscreen posts events to your systems, signed per the Standard Webhooks specification. Failed deliveries are retried; the log below shows every attempt.</p>
      <section class="panel" aria-labelledby="hooks-h">
        <h2 id="hooks-h">Where events go</h2>
        {hooks.webhooks.length ? (
          <table class="cards">
            <Head columns={['Events', 'URL', 'State']} actions />
            <tbody>
              {hooks.webhooks.map((w) => (
                <tr data-webhook={w.webhook_key}>
                  <td data-label="Events">{KEY_WORDS[w.webhook_key] ?? w.webhook_key}</td>
                  <td data-label="URL">
                    <code>{w.webhook_url}</code>
                  </td>
                  <td data-label="State">{w.enabled ? 'on' : `off: ${w.disabled_reason ?? 'turned off'}`}</td>
                  <td>
                    <PostButton ctx={ctx} action="/console/webhooks/remove" name="webhook_key" value={w.webhook_key} label="Remove" kind="secondary" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>No webhook is registered.</p>
        )}
        <PostForm ctx={ctx} action="/console/webhooks">
          <div class="filters">
            <div>
              <label for="w_key">Events</label>
              <select id="w_key" name="webhook_key">
                {WEBHOOK_KEYS.map((k) => (
                  <option value={k} selected={attempt?.webhook_key === k}>
                    {KEY_WORDS[k]}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label for="w_url">URL</label>
              <input
                id="w_url"
                name="webhook_url"
                type="url"
                required
                placeholder="https://"
                value={attempt?.webhook_url ?? ''}
                aria-invalid={attempt ? 'true' : undefined}
                aria-describedby={attempt ? 'w_problem' : undefined}
              />
            </div>
            <div>
              <button type="submit">Save webhook</button>
            </div>
          </div>
          {attempt ? (
            <p class="error" id="w_problem" role="alert">
              {attempt.problem}
            </p>
          ) : null}
        </PostForm>
      </section>
      {ctx.user.role === 'owner' ? (
        <section class="panel" aria-labelledby="secret-h">
          <h2 id="secret-h">Signing secret</h2>
          {opts.secret ? (
            <p class="notice" role="status">
              New secret: <code id="new-secret">{opts.secret.signing_secret}</code>. The old one still signs every delivery too until {when(opts.secret.previous_secret_valid_until)}.
            </p>
          ) : (
            <details>
              <summary>Show the secret</summary>
              <p class="key">
                <code>{hooks.signing_secret}</code>
              </p>
            </details>
          )}
          <PostButton ctx={ctx} action="/console/webhooks/rotate" role="owner" label="Replace the secret" kind="secondary" id="rotate" />
        </section>
      ) : null}
      <section class="panel" aria-labelledby="log-h">
        <h2 id="log-h">Delivery log</h2>
        {log.items.length ? (
          <table class="cards" id="deliveries">
            <Head columns={['When', 'Event', 'To', 'Outcome']} actions />
            <tbody>
              {log.items.map((d) => {
                const last = d.attempts.at(-1);
                return (
                  <tr data-delivery={d.id}>
                    <td data-label="When">{when(d.created_at)}</td>
                    <td data-label="Event">{d.event_type}</td>
                    <td data-label="To">
                      {KEY_WORDS[d.target] ?? d.target}
                      <br />
                      <small>{d.url}</small>
                    </td>
                    <td data-label="Outcome">
                      {d.state}
                      {last ? ` after ${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}: ${last.status_code ?? last.error ?? 'no answer'} in ${last.latency_ms} ms` : ''}
                    </td>
                    <td>
                      <PostButton ctx={ctx} action={`/console/webhooks/deliveries/${d.id}/replay`} label="Send again" kind="secondary" />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        ) : (
          <p>Nothing has been sent yet.</p>
        )}
        <Pager base="/console/webhooks" from={opts.from} size={PAGE} total={log.total} />
      </section>
    </ConsolePage>
  );
}

export const webhookPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console/webhooks', { schema: { hide: true, querystring: Query } }, async (request, reply) =>
      show(request, reply, (ctx) => webhooksPage(deps, ctx, { from: request.query.from ?? 0, done: request.query.done })),
    );

    app.post(
      '/console/webhooks',
      { schema: { hide: true, body: Type.Object({ webhook_key: StringEnum(WEBHOOK_KEYS), webhook_url: Type.String({ minLength: 1, maxLength: 2000 }), ...CsrfField }) } },
      async (request, reply) => {
        const { webhook_key, webhook_url } = request.body;
        try {
          await registerWebhook(deps, request.account, webhook_key, webhook_url);
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'bad_request') throw err;
          // Said on the form, with what the host typed kept, rather than on an error page.
          const problem = `guestscreen cannot send webhooks to that URL: ${err.message.replace(/^body\.webhook_url: /, '')}. Give the public address where your system receives them, such as https://example.com/hooks.`;
          return show(request, reply, (ctx) => webhooksPage(deps, ctx, { from: 0, attempt: { webhook_key, webhook_url, problem } }), 400);
        }
        return seeOther(reply, '/console/webhooks?done=registered');
      },
    );

    app.post('/console/webhooks/remove', { schema: { hide: true, body: Type.Object({ webhook_key: StringEnum(WEBHOOK_KEYS), ...CsrfField }) } }, async (request, reply) => {
      await unregisterWebhook(deps, request.account, request.body.webhook_key, undefined);
      return seeOther(reply, '/console/webhooks?done=removed');
    });

    app.post('/console/webhooks/rotate', { config: { role: 'owner' }, schema: { hide: true, body: Type.Object(CsrfField) } }, async (request, reply) => {
      const secret = await rotateWebhookSecret(deps, request.account);
      return show(request, reply, (ctx) => webhooksPage(deps, ctx, { from: 0, secret }));
    });

    app.post(
      '/console/webhooks/deliveries/:id/replay',
      { schema: { hide: true, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }), body: Type.Object(CsrfField) } },
      async (request, reply) => {
        await replayDelivery(deps, request.account, request.params.id);
        return seeOther(reply, '/console/webhooks?done=replayed');
      },
    );
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { AppError } from '../../lib/errors.js';
import { ALERT_MODE_WORDS, ALERT_MODES, setAlertMode } from '../../modules/alerts/service.js';
import { endSession, enrolled, tokenDigest, userSessions, type SessionRow } from '../../modules/users/sessions.js';
import { changePassword, disableTwoFactor, enableTwoFactor, newRecoveryCodesFor, newTotpSecret, recoveryCodesLeft, ROLE_HELP, ROLE_WORDS } from '../../modules/users/service.js';
import { CardPage, Problems } from '../layout.js';
import { ConsolePage, Csrf, CsrfField, Head, PostButton, seeOther, show, when, type Ctx } from './shell.js';

const DONE: Record<string, string> = {
  password: 'Your password is changed. Your other sessions have ended.',
  alerts: 'Saved: this is how you are told of guests who need you.',
  'two-factor-off': 'Two-factor sign-in is off.',
  'session-ended': 'The session has ended.',
  'recovery-used': 'You signed in with a recovery code, which now no longer works. If you have lost your phone, set up two-factor sign-in again below.',
};

/** "Chrome on macOS" from a browser's user agent, as far as it says; the raw text otherwise. */
export function browserName(ua: string | null): string {
  if (!ua) return 'Unknown browser';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrome\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : /curl|node|undici|Playwright/i.test(ua)
            ? 'A program'
            : undefined;
  const system = /iPhone|iPad/.test(ua) ? 'iOS' : /Android/.test(ua) ? 'Android' : /Mac OS X/.test(ua) ? 'macOS' : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : undefined;
  return browser ? `${browser}${system ? ` on ${system}` : ''}` : ua.slice(0, 60);
}

/** A table of sessions, with a button to end each; `who` names each session's person (an owner's view). */
export function SessionsTable({ ctx, sessions, who, action }: { ctx: Ctx; sessions: SessionRow[]; who?: (s: SessionRow) => string; action: (s: SessionRow) => string }) {
  const mine = (s: SessionRow) => s.token_hash === ctx.sessionDigest;
  return (
    <table class="list cards" id="sessions">
      <Head columns={[...(who ? ['Person'] : []), 'Browser', 'Address', 'Signed in', 'Last seen']} actions />
      <tbody>
        {sessions.map((s) => (
          <tr>
            {who ? <td data-label="Person">{who(s)}</td> : null}
            <td data-label="Browser">
              {browserName(s.user_agent)}
              {mine(s) ? (
                <>
                  {' '}
                  <span class="badge green">This session</span>
                </>
              ) : null}
            </td>
            <td data-label="Address">{s.address ?? '—'}</td>
            <td data-label="Signed in">{when(s.created_at)}</td>
            <td data-label="Last seen">{when(s.last_seen_at)}</td>
            <td>{mine(s) ? null : <PostButton ctx={ctx} action={action(s)} label="End" kind="secondary" />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

async function mePage(deps: Deps, ctx: Ctx, opts: { done?: string | undefined; problems?: string[] }) {
  const [sessions, codesLeft] = await Promise.all([userSessions(deps, ctx.user), ctx.user.totp_enabled_at ? recoveryCodesLeft(deps, ctx.user) : Promise.resolve(0)]);
  return (
    <ConsolePage ctx={ctx} title="Your account" section="me" notice={opts.done ? DONE[opts.done] : undefined}>
      <h1>{ctx.user.name || ctx.user.email}</h1>
      <p>
        {ctx.user.email} · {ROLE_WORDS[ctx.user.role]} of {ctx.account.name}: {ROLE_HELP[ctx.user.role]}.
      </p>
      <Problems list={opts.problems ?? []} />
      <section class="panel" aria-labelledby="password-h">
        <h2 id="password-h">Password</h2>
        <form method="post" action="/console/me/password">
          <Csrf ctx={ctx} />
          <input type="email" value={ctx.user.email} autocomplete="username" hidden readOnly />
          <label for="current">Current password</label>
          <input id="current" name="current" type="password" required autocomplete="current-password" maxLength={256} />
          <label for="password">New password</label>
          <input id="password" name="password" type="password" required minLength={8} maxLength={256} autocomplete="new-password" />
          <small class="hint">At least 8 characters. Your other sessions end.</small>
          <button type="submit">Change the password</button>
        </form>
      </section>
      <section class="panel" aria-labelledby="tfa-h">
        <h2 id="tfa-h">Two-factor sign-in</h2>
        {ctx.user.totp_enabled_at ? (
          <>
            <p>
              <span class="badge green">On</span> since {when(ctx.user.totp_enabled_at)}. {codesLeft} of 10 recovery codes left.
            </p>
            <PostButton ctx={ctx} action="/console/two-factor/recovery-codes" label="New recovery codes" kind="secondary" id="new-codes" />
            {ctx.account.require_two_factor ? (
              <p class="muted">This account requires two-factor sign-in for everyone.</p>
            ) : (
              <form method="post" action="/console/two-factor/off">
                <Csrf ctx={ctx} />
                <label for="off-password">Your password, to turn it off</label>
                <input id="off-password" name="password" type="password" required autocomplete="current-password" maxLength={256} />
                <button type="submit" class="danger">
                  Turn off
                </button>
              </form>
            )}
          </>
        ) : (
          <>
            <p>Off. With it on, signing in also asks for a code from an authenticator app on your phone, so a stolen password is not enough.</p>
            <p>
              <a class="button" href="/console/two-factor">
                Set up two-factor sign-in
              </a>
            </p>
          </>
        )}
      </section>
      <section class="panel" aria-labelledby="alerts-h">
        <h2 id="alerts-h">Guests who need you</h2>
        <p>When a guest turns red or orange, or has not finished the guest portal close to check-in, you are told by e-mail at {ctx.user.email}:</p>
        <form method="post" action="/console/me/alerts">
          <Csrf ctx={ctx} />
          <fieldset>
            <legend>Tell me</legend>
            {ALERT_MODES.map((m) => (
              <label class="check">
                <input type="radio" name="alerts" value={m} checked={m === ctx.user.alerts} /> <span>{ALERT_MODE_WORDS[m]}</span>
              </label>
            ))}
          </fieldset>
          <button type="submit">Save</button>
        </form>
      </section>
      <section class="panel" aria-labelledby="sessions-h">
        <h2 id="sessions-h">Your sessions</h2>
        <p>Where you are signed in. End any you do not recognise, then change your password.</p>
        <SessionsTable ctx={ctx} sessions={sessions} action={(s) => `/console/me/sessions/${s.id}/end`} />
      </section>
    </ConsolePage>
  );
}

function enrolPage(ctx: Ctx, setup: { secret: string; svg: string }, required: boolean, problems: string[]) {
  const body = (
    <>
      <h1>Set up two-factor sign-in</h1>
      {required ? <p class="notice">This account requires two-factor sign-in: set it up to go on.</p> : null}
      <ol>
        <li>Open an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, Aegis…).</li>
        <li>Scan this code, or type the key below it.</li>
        <li>Enter the 6 digits the app shows.</li>
      </ol>
      <figure class="qr" aria-label="QR code for your authenticator app" dangerouslySetInnerHTML={{ __html: setup.svg }} />
      <p>
        Key: <code id="totp-secret">{setup.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
      </p>
      <Problems list={problems} />
      <form method="post" action="/console/two-factor">
        <Csrf ctx={ctx} />
        <input type="hidden" name="secret" value={setup.secret} />
        <label for="code">Code from the app</label>
        <input id="code" name="code" required inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} autofocus />
        <button type="submit">Turn on</button>
      </form>
    </>
  );
  return required ? (
    <CardPage title="Set up two-factor sign-in">{body}</CardPage>
  ) : (
    <ConsolePage ctx={ctx} title="Set up two-factor sign-in" section="me">
      {body}
    </ConsolePage>
  );
}

function codesPage(ctx: Ctx, codes: string[], required: boolean) {
  const body = (
    <>
      <h1>Your recovery codes</h1>
      <p>
        Keep these somewhere safe, apart from your phone. Each signs you in once if you lose the phone. <strong>They are shown only now.</strong>
      </p>
      <ul class="codes" id="recovery-codes">
        {codes.map((c) => (
          <li>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <p>
        <a class="button" href={required ? '/console' : '/console/me'}>
          I have kept them
        </a>
      </p>
    </>
  );
  return required ? (
    <CardPage title="Your recovery codes">{body}</CardPage>
  ) : (
    <ConsolePage ctx={ctx} title="Your recovery codes" section="me">
      {body}
    </ConsolePage>
  );
}

const Done = Type.Object({ done: Type.Optional(Type.String({ maxLength: 30 })) });
const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * A person's own account (DESIGN.md section 12): their password, their two-factor sign-in and
 * their sessions. Every role reaches it; a session that must set up a second factor first reaches
 * the set-up pages only.
 */
export const mePages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const own = { role: 'viewer' as const };
    const enrol = { role: 'viewer' as const, stages: ['enrol' as const] };

    app.get('/console/me', { config: own, schema: { hide: true, querystring: Done } }, async (request, reply) => show(request, reply, (ctx) => mePage(deps, ctx, { done: request.query.done })));

    app.post('/console/me/alerts', { config: own, schema: { hide: true, body: Type.Object({ alerts: StringEnum(ALERT_MODES), ...CsrfField }) } }, async (request, reply) => {
      await setAlertMode(deps, request.user, request.body.alerts);
      return seeOther(reply, '/console/me?done=alerts');
    });

    app.post(
      '/console/me/password',
      { config: own, schema: { hide: true, body: Type.Object({ current: Type.String({ maxLength: 256 }), password: Type.String({ maxLength: 256 }), ...CsrfField }) } },
      async (request, reply) => {
        try {
          await changePassword(deps, request.user, request.body, tokenDigest(request.sessionToken!));
        } catch (err) {
          if (err instanceof AppError && err.code === 'bad_request')
            return show(request, reply, (ctx) => mePage(deps, ctx, { problems: [`${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`] }), 400);
          throw err;
        }
        return seeOther(reply, '/console/me?done=password');
      },
    );

    app.post('/console/me/sessions/:id/end', { config: own, schema: { hide: true, params: SessionParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      await endSession(deps, request.user, request.params.id, false);
      return seeOther(reply, '/console/me?done=session-ended');
    });

    app.get('/console/two-factor', { config: enrol, schema: { hide: true } }, async (request, reply) => {
      if (request.user.totp_enabled_at) return seeOther(reply, '/console/me');
      const setup = await newTotpSecret(request.user);
      return show(request, reply, (ctx) => enrolPage(ctx, setup, request.session.stage === 'enrol', []));
    });

    app.post(
      '/console/two-factor',
      { config: enrol, schema: { hide: true, body: Type.Object({ secret: Type.String({ maxLength: 64 }), code: Type.String({ maxLength: 20 }), ...CsrfField }) } },
      async (request, reply) => {
        const required = request.session.stage === 'enrol';
        if (request.user.totp_enabled_at) return seeOther(reply, '/console/me');
        let codes: string[];
        try {
          codes = await enableTwoFactor(deps, request.user, request.body.secret, request.body.code);
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'bad_request') throw err;
          // The same secret again, so the app's entry keeps working.
          const secret = /^[A-Z2-7]{32}$/.test(request.body.secret) ? request.body.secret : undefined;
          const setup = secret ? { secret, svg: (await newTotpSecret(request.user, secret)).svg } : await newTotpSecret(request.user);
          return show(request, reply, (ctx) => enrolPage(ctx, setup, required, [`${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`]), 400);
        }
        if (required) await enrolled(deps, request.sessionToken!);
        return show(request, reply, (ctx) => codesPage(ctx, codes, required));
      },
    );

    app.post('/console/two-factor/recovery-codes', { config: own, schema: { hide: true, body: Type.Object(CsrfField) } }, async (request, reply) => {
      const codes = await newRecoveryCodesFor(deps, request.user);
      return show(request, reply, (ctx) => codesPage(ctx, codes, false));
    });

    app.post('/console/two-factor/off', { config: own, schema: { hide: true, body: Type.Object({ password: Type.String({ maxLength: 256 }), ...CsrfField }) } }, async (request, reply) => {
      try {
        await disableTwoFactor(deps, request.account, request.user, request.body.password);
      } catch (err) {
        if (err instanceof AppError && err.code === 'bad_request') return show(request, reply, (ctx) => mePage(deps, ctx, { problems: ['The password is not right.'] }), 400);
        throw err;
      }
      return seeOther(reply, '/console/me?done=two-factor-off');
    });
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { setRequireTwoFactor } from '../../modules/accounts/service.js';
import { accountSessions, endSession } from '../../modules/users/sessions.js';
import { changeRole, invite, listPeople, removeUser, resendInvitation, resetFor, ROLE_HELP, ROLE_WORDS, ROLES, INVITATION_DAYS, RESET_MINUTES, type PersonLink } from '../../modules/users/service.js';
import { Problems } from '../layout.js';
import { SessionsTable } from './me.js';
import { ConsolePage, Csrf, CsrfField, dropEmpty, Head, PostButton, seeOther, show, when, type Ctx } from './shell.js';

const DONE: Record<string, string> = {
  role: 'The role is changed.',
  removed: 'The person is removed: their sessions have ended.',
  revoked: 'The invitation is withdrawn: its link no longer works.',
  required: 'Everyone now signs in with a second factor; those without one set it up at their next sign-in.',
  optional: 'Two-factor sign-in is now each person’s choice.',
  'session-ended': 'The session has ended.',
};

/**
 * What became of a link sent to someone: e-mailed, or (no mail server, or the e-mail failed) the
 * link itself for the owner to pass on, and where the e-mail was saved.
 */
function LinkNotice({ sent }: { sent: PersonLink }) {
  const what = sent.purpose === 'invite' ? 'The invitation' : 'The password reset link';
  const lasts = sent.purpose === 'invite' ? `it works once, for ${INVITATION_DAYS} days` : `it works once, for ${RESET_MINUTES} minutes`;
  if (sent.via === 'smtp') {
    return (
      <p class="notice" role="status" id="link-sent">
        {what} was e-mailed to {sent.user.email}; {lasts}.
      </p>
    );
  }
  return (
    <div class="notice" role="status" id="link-sent">
      <p>
        {sent.via === 'outbox' ? (
          <>
            {what} was not e-mailed: no mail server is set up (<code>GUESTSCREEN_SMTP_URL</code>), so the e-mail was saved as <code>{sent.file}</code>.
          </>
        ) : (
          `${what} could not be e-mailed to ${sent.user.email}: the mail server refused it or could not be reached.`
        )}{' '}
        Pass this link on to {sent.user.email} yourself; {lasts}:
      </p>
      <p>
        <code class="link" id="the-link">
          {sent.link}
        </code>
      </p>
    </div>
  );
}

async function peoplePage(deps: Deps, ctx: Ctx, opts: { done?: string | undefined; invited?: PersonLink; problems?: string[]; form?: { email?: string; name?: string; role?: string } }) {
  const [people, sessions] = await Promise.all([listPeople(deps, ctx.account), accountSessions(deps, ctx.account)]);
  const names = new Map(people.map((p) => [p.user.id, p.user.name || p.user.email]));
  const inv = opts.invited;
  return (
    <ConsolePage ctx={ctx} title="People" section="people" notice={opts.done ? DONE[opts.done] : undefined}>
      <h1>People</h1>
      <p>Everyone who works in this account, each with their own sign-in and role.</p>
      {inv ? <LinkNotice sent={inv} /> : null}
      <table class="list cards" id="people">
        <Head columns={['Name', 'E-mail', 'Role', 'Two-factor', 'State']} actions />
        <tbody>
          {people.map(({ user, state, invitationExpires }) => (
            <tr data-email={user.email}>
              <td data-label="Name">{user.name || '—'}</td>
              <td data-label="E-mail">{user.email}</td>
              <td data-label="Role">
                {user.id === ctx.user.id ? (
                  ROLE_WORDS[user.role]
                ) : (
                  <form method="post" action={`/console/people/${user.id}/role`} class="inline">
                    <Csrf ctx={ctx} />
                    <label class="skip" for={`role-${user.id}`}>
                      Role of {user.email}
                    </label>
                    <select id={`role-${user.id}`} name="role">
                      {ROLES.map((r) => (
                        <option value={r} selected={r === user.role}>
                          {ROLE_WORDS[r]}
                        </option>
                      ))}
                    </select>
                    <button type="submit" class="secondary">
                      Change
                    </button>
                  </form>
                )}
              </td>
              <td data-label="Two-factor">{user.totp_enabled_at ? <span class="badge green">On</span> : <span class="muted">Off</span>}</td>
              <td data-label="State">
                {state === 'active' ? (
                  `Joined ${when(user.joined_at)}`
                ) : state === 'invited' ? (
                  <span class="badge yellow">Invited, until {when(invitationExpires)}</span>
                ) : (
                  <span class="badge orange">Invitation expired</span>
                )}
              </td>
              <td>
                {user.id === ctx.user.id ? (
                  <span class="muted">You</span>
                ) : (
                  <>
                    {state !== 'active' ? (
                      <PostButton ctx={ctx} action={`/console/people/${user.id}/resend`} label="Send again" kind="secondary" />
                    ) : (
                      <PostButton ctx={ctx} action={`/console/people/${user.id}/reset`} label="Reset password" kind="secondary" />
                    )}
                    <PostButton ctx={ctx} action={`/console/people/${user.id}/remove`} label={state === 'active' ? 'Remove' : 'Withdraw'} kind="danger" />
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <section class="panel" aria-labelledby="invite-h">
        <h2 id="invite-h">Invite someone</h2>
        <Problems list={opts.problems ?? []} />
        <form method="post" action="/console/people" id="invite">
          <Csrf ctx={ctx} />
          <label for="invite-email">E-mail</label>
          <input id="invite-email" name="email" type="email" required maxLength={254} value={opts.form?.email ?? ''} />
          <label for="invite-name">Name (they can change it)</label>
          <input id="invite-name" name="name" maxLength={200} value={opts.form?.name ?? ''} />
          <fieldset>
            <legend>Role</legend>
            {ROLES.map((r) => (
              <label class="check">
                <input type="radio" name="role" value={r} checked={r === (opts.form?.role ?? 'reviewer')} />{' '}
                <span>
                  <strong>{ROLE_WORDS[r]}</strong>: {ROLE_HELP[r]}
                </span>
              </label>
            ))}
          </fieldset>
          <button type="submit">Send the invitation</button>
        </form>
      </section>
      <section class="panel" aria-labelledby="tfa-h">
        <h2 id="tfa-h">Two-factor sign-in</h2>
        {ctx.account.require_two_factor ? (
          <>
            <p>
              <span class="badge green">Required</span> Everyone signs in with a code from an authenticator app too.
            </p>
            <PostButton ctx={ctx} action="/console/people/two-factor" name="required" value="no" label="Let each person choose" kind="secondary" />
          </>
        ) : (
          <>
            <p>Each person chooses. Requiring it means a stolen password alone opens nothing; people without it set it up at their next sign-in.</p>
            <PostButton ctx={ctx} action="/console/people/two-factor" name="required" value="yes" label="Require it for everyone" id="require-tfa" />
          </>
        )}
      </section>
      <section class="panel" aria-labelledby="sessions-h">
        <h2 id="sessions-h">Everyone’s sessions</h2>
        <SessionsTable ctx={ctx} sessions={sessions} who={(s) => names.get(s.user_id) ?? '—'} action={(s) => `/console/people/sessions/${s.id}/end`} />
      </section>
    </ConsolePage>
  );
}

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const Done = Type.Object({ done: Type.Optional(Type.String({ maxLength: 30 })) });
const InviteForm = Type.Object({
  email: Type.String({ maxLength: 254 }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  role: StringEnum(ROLES),
  ...CsrfField,
});

/**
 * The account's people (DESIGN.md section 12), for owners: invitations, roles, removal, the
 * account's two-factor rule and everyone's sessions. The services refuse what would leave the
 * account without an owner.
 */
export const peoplePages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const config = { role: 'owner' as const };
    app.get('/console/people', { config, schema: { hide: true, querystring: Done } }, async (request, reply) => show(request, reply, (ctx) => peoplePage(deps, ctx, { done: request.query.done })));

    app.post('/console/people', { config, preValidation: dropEmpty, schema: { hide: true, body: InviteForm } }, async (request, reply) => {
      const { _csrf, ...form } = request.body;
      const invited = await invite(deps, request.account, request.actor, form).catch((err: unknown) => err as Error);
      if (invited instanceof Error) {
        if (!('code' in invited) || !['bad_request', 'conflict'].includes(String(invited.code))) throw invited;
        return show(request, reply, (ctx) => peoplePage(deps, ctx, { problems: [`${invited.message[0]!.toUpperCase()}${invited.message.slice(1)}.`], form }), 400);
      }
      return show(request, reply, (ctx) => peoplePage(deps, ctx, { invited }));
    });

    app.post('/console/people/:id/resend', { config, schema: { hide: true, params: IdParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      const invited = await resendInvitation(deps, request.account, request.actor, request.params.id);
      return show(request, reply, (ctx) => peoplePage(deps, ctx, { invited }));
    });

    app.post('/console/people/:id/reset', { config, schema: { hide: true, params: IdParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      const invited = await resetFor(deps, request.account, request.actor, request.params.id);
      return show(request, reply, (ctx) => peoplePage(deps, ctx, { invited }));
    });

    app.post('/console/people/:id/role', { config, schema: { hide: true, params: IdParams, body: Type.Object({ role: StringEnum(ROLES), ...CsrfField }) } }, async (request, reply) => {
      await changeRole(deps, request.account, request.actor, request.params.id, request.body.role);
      return seeOther(reply, '/console/people?done=role');
    });

    app.post('/console/people/:id/remove', { config, schema: { hide: true, params: IdParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      const removed = await removeUser(deps, request.account, request.actor, request.params.id);
      return seeOther(reply, `/console/people?done=${removed.password_hash ? 'removed' : 'revoked'}`);
    });

    app.post('/console/people/two-factor', { config, schema: { hide: true, body: Type.Object({ required: StringEnum(['yes', 'no'] as const), ...CsrfField }) } }, async (request, reply) => {
      await setRequireTwoFactor(deps, request.account, request.actor, request.body.required === 'yes');
      return seeOther(reply, `/console/people?done=${request.body.required === 'yes' ? 'required' : 'optional'}`);
    });

    app.post('/console/people/sessions/:id/end', { config, schema: { hide: true, params: IdParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      await endSession(deps, request.user, request.params.id, true);
      return seeOther(reply, '/console/people?done=session-ended');
    });
  };

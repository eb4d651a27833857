import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { compileProblem } from '../../modules/rules/context.js';
import { Expression, RuleAction } from '../../modules/rules/routes.js';
import { createRule, deleteRule, dryRun, getRule, listRules, updateRule } from '../../modules/rules/service.js';
import { ConsolePage, Csrf, CsrfField, type Ctx, Head, PostButton, seeOther, show, STATUS_WORDS } from './shell.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const DONE: Record<string, string> = {
  created: 'Rule saved. It applies from the next screening.',
  saved: 'Rule saved.',
  deleted: 'Rule deleted.',
  enabled: 'Rule enabled.',
  disabled: 'Rule disabled.',
};
/** The rule form: the API's fields, `intent` saying whether to save or only try it. */
const RuleForm = Type.Object({
  name: Type.String({ maxLength: 100 }),
  expression: Expression,
  action: RuleAction,
  enabled: Type.Optional(Type.Literal('yes')),
  intent: StringEnum(['save', 'dry-run'] as const),
  ...CsrfField,
});
type Values = { name: string; expression: string; action: 'review' | 'decline' | 'approve'; enabled: boolean };
type DryRun = Awaited<ReturnType<typeof dryRun>>;
const ACTION_WORDS = { review: 'ask for review', decline: 'decline', approve: 'approve' } as const;

function RuleEditor({ ctx, action, values, problem, dry }: { ctx: Ctx; action: string; values: Values; problem?: string | undefined; dry?: DryRun | undefined }) {
  return (
    <>
      <form method="post" action={action}>
        <Csrf ctx={ctx} />
        <label for="r_name">Name</label>
        <input id="r_name" name="name" required maxLength={100} value={values.name} />
        <label for="r_expression">Condition (CEL)</label>
        <textarea
          id="r_expression"
          name="expression"
          class="code"
          required
          maxLength={4000}
          value={values.expression}
          aria-invalid={problem ? 'true' : undefined}
          aria-describedby={problem ? 'r_problem' : 'r_help'}
        />
        {problem ? (
          <p class="error" id="r_problem" role="alert">
            {problem}
          </p>
        ) : (
          <small id="r_help">
            For example <code>risk.score &gt;= 50 &amp;&amp; reservation.nights &gt; 14</code> or <code>checks.payment_verification.status == "FAIL"</code>.
          </small>
        )}
        <label for="r_action">When it holds</label>
        <select id="r_action" name="action">
          {(['review', 'decline', 'approve'] as const).map((a) => (
            <option value={a} selected={a === values.action}>
              {ACTION_WORDS[a]}
            </option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" name="enabled" value="yes" checked={values.enabled} /> <span>Enabled</span>
        </label>
        <div class="actions">
          <button type="submit" name="intent" value="save">
            Save
          </button>
          <button type="submit" name="intent" value="dry-run" class="secondary" id="dry-run">
            Try on past bookings
          </button>
        </div>
      </form>
      {dry ? <DryRunResult dry={dry} /> : null}
    </>
  );
}

function DryRunResult({ dry }: { dry: DryRun }) {
  return (
    <section id="dry-run-result" role="status">
      <h2>Tried on your {dry.evaluated} most recent screened bookings</h2>
      <p>
        It holds for <strong>{dry.hits}</strong>; {dry.changed} of them would change status.
      </p>
      {dry.items.length ? (
        <table class="cards">
          <Head columns={['Guest', 'Code', 'Now', 'Would become']} />
          <tbody>
            {dry.items.map((h) => (
              <tr>
                <td data-label="Guest">
                  <a href={`/console/reservations/${h.id}`}>{h.guest_name ?? h.id}</a>
                </td>
                <td data-label="Code">{h.confirmation_code ?? '—'}</td>
                <td data-label="Now">{STATUS_WORDS[h.current_status] ?? h.current_status}</td>
                <td data-label="Would become">{STATUS_WORDS[h.would_become] ?? h.would_become}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {dry.errors.length ? (
        <p class="error">
          It could not be evaluated for {dry.errors.length} bookings: {dry.errors[0]?.error}
        </p>
      ) : null}
    </section>
  );
}

const BLANK: Values = { name: '', expression: '', action: 'review', enabled: true };

export const rulePages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const listPage = async (ctx: Ctx, opts: { done?: string | undefined; values?: Values; problem?: string | undefined; dry?: DryRun | undefined } = {}) => {
      const rules = await listRules(deps, ctx.account);
      return (
        <ConsolePage ctx={ctx} title="Rules" section="rules" notice={opts.done ? DONE[opts.done] : undefined}>
          <h1>Your rules</h1>
          <p class="muted">Rules run after every screening and can ask for review, decline or approve. A rule's name shows on the bookings it fires for.</p>
          <section class="panel" aria-labelledby="rules-h">
            <h2 id="rules-h">{rules.length === 1 ? '1 rule' : `${rules.length} rules`}</h2>
            {rules.length ? (
              <table class="cards">
                <Head columns={['Name', 'Condition', 'Then', 'State']} actions />
                <tbody>
                  {rules.map((r) => (
                    <tr data-rule={r.id}>
                      <td data-label="Name">
                        <a href={`/console/rules/${r.id}`}>{r.name}</a>
                      </td>
                      <td data-label="Condition">
                        <code>{r.expression}</code>
                      </td>
                      <td data-label="Then">{ACTION_WORDS[r.action]}</td>
                      <td data-label="State">{r.enabled ? 'enabled' : 'disabled'}</td>
                      <td>
                        <PostButton ctx={ctx} action={`/console/rules/${r.id}/enabled`} name="enabled" value={r.enabled ? 'no' : 'yes'} label={r.enabled ? 'Disable' : 'Enable'} kind="secondary" />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p>No rules yet.</p>
            )}
          </section>
          <section class="panel" aria-labelledby="new-h">
            <h2 id="new-h">New rule</h2>
            <RuleEditor ctx={ctx} action="/console/rules" values={opts.values ?? BLANK} problem={opts.problem} dry={opts.dry} />
          </section>
        </ConsolePage>
      );
    };

    const rulePage = async (ctx: Ctx, id: string, opts: { values?: Values; problem?: string | undefined; dry?: DryRun | undefined } = {}) => {
      const rule = await getRule(deps, ctx.account, id);
      return (
        <ConsolePage ctx={ctx} title={rule.name} section="rules">
          <p>
            <a href="/console/rules">← Rules</a>
          </p>
          <h1>{rule.name}</h1>
          <section class="panel">
            <RuleEditor ctx={ctx} action={`/console/rules/${rule.id}`} values={opts.values ?? { ...rule, enabled: rule.enabled }} problem={opts.problem} dry={opts.dry} />
          </section>
          <section class="panel">
            <PostButton ctx={ctx} action={`/console/rules/${rule.id}/delete`} label="Delete this rule" kind="danger" />
          </section>
        </ConsolePage>
      );
    };

    app.get('/console/rules', { schema: { hide: true, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }) } }, async (request, reply) =>
      show(request, reply, (ctx) => listPage(ctx, { done: request.query.done })),
    );

    app.post('/console/rules', { schema: { hide: true, body: RuleForm } }, async (request, reply) => {
      const b = request.body;
      const values: Values = { name: b.name, expression: b.expression, action: b.action, enabled: b.enabled === 'yes' };
      const problem = compileProblem(b.expression) ?? undefined;
      if (problem || b.intent === 'dry-run') {
        const dry = problem ? undefined : await dryRun(deps, request.account, values);
        return show(request, reply, (ctx) => listPage(ctx, { values, problem, dry }), problem ? 400 : 200);
      }
      await createRule(deps, request.account, values);
      return seeOther(reply, '/console/rules?done=created');
    });

    app.get('/console/rules/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => show(request, reply, (ctx) => rulePage(ctx, request.params.id)));

    app.post('/console/rules/:id', { schema: { hide: true, params: IdParams, body: RuleForm } }, async (request, reply) => {
      const b = request.body;
      const values: Values = { name: b.name, expression: b.expression, action: b.action, enabled: b.enabled === 'yes' };
      const problem = compileProblem(b.expression) ?? undefined;
      if (problem || b.intent === 'dry-run') {
        await getRule(deps, request.account, request.params.id);
        const dry = problem ? undefined : await dryRun(deps, request.account, values);
        return show(request, reply, (ctx) => rulePage(ctx, request.params.id, { values, problem, dry }), problem ? 400 : 200);
      }
      await updateRule(deps, request.account, request.params.id, values);
      return seeOther(reply, '/console/rules?done=saved');
    });

    app.post('/console/rules/:id/enabled', { schema: { hide: true, params: IdParams, body: Type.Object({ enabled: StringEnum(['yes', 'no'] as const), ...CsrfField }) } }, async (request, reply) => {
      await updateRule(deps, request.account, request.params.id, { enabled: request.body.enabled === 'yes' });
      return seeOther(reply, `/console/rules?done=${request.body.enabled === 'yes' ? 'enabled' : 'disabled'}`);
    });

    app.post('/console/rules/:id/delete', { schema: { hide: true, params: IdParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      await deleteRule(deps, request.account, request.params.id);
      return seeOther(reply, '/console/rules?done=deleted');
    });
  };

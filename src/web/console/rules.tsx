import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { fromCel, OPERATORS, RULE_FIELDS, toCel, type Condition, type Join, type Operator } from '../../modules/rules/builder.js';
import { compileProblem } from '../../modules/screening/rule-context.js';
import { Expression, RuleAction } from '../../modules/rules/routes.js';
import { createRule, deleteRule, dryRun, getRule, listRules, updateRule } from '../../modules/rules/service.js';
import { ConsolePage, CsrfField, type Ctx, Head, PostButton, seeOther, show, STATUS_WORDS, PostForm } from './shell.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const DONE: Record<string, string> = {
  created: 'Rule saved. It applies from the next screening.',
  saved: 'Rule saved.',
  deleted: 'Rule deleted.',
  enabled: 'Rule enabled.',
  disabled: 'Rule disabled.',
};
/** Condition rows the builder offers; a rule needing more is written in CEL. */
const ROWS = 4;
const RowFields = Object.fromEntries(
  Array.from({ length: ROWS }, (_, i) => [
    [`c${i}_field`, Type.Optional(Type.String({ maxLength: 100 }))],
    [`c${i}_op`, Type.Optional(Type.String({ maxLength: 20 }))],
    [`c${i}_value`, Type.Optional(Type.String({ maxLength: 1000 }))],
  ]).flat(),
) as Record<string, TOptional<TString>>;
/**
 * The rule form: the API's fields, the condition either built (`mode` builder: rows of field,
 * comparison and value, joined by `join`) or written in CEL; `intent` saying whether to save it,
 * only try it, or switch between the two ways of writing it.
 */
const RuleForm = Type.Object({
  name: Type.String({ maxLength: 100 }),
  mode: Type.Optional(StringEnum(['builder', 'cel'] as const)),
  expression: Type.Optional(Type.String({ maxLength: Expression.maxLength })),
  join: Type.Optional(StringEnum(['all', 'any'] as const)),
  ...RowFields,
  action: RuleAction,
  enabled: Type.Optional(Type.Literal('yes')),
  intent: StringEnum(['save', 'dry-run', 'switch'] as const),
  ...CsrfField,
});
type Values = { name: string; expression: string; action: 'review' | 'decline' | 'approve'; enabled: boolean; mode: 'builder' | 'cel'; conditions: Condition[]; join: Join };
type DryRun = Awaited<ReturnType<typeof dryRun>>;
const ACTION_WORDS = { review: 'ask for review', decline: 'decline', approve: 'approve' } as const;

function RuleEditor({ ctx, action, values, problem, dry }: { ctx: Ctx; action: string; values: Values; problem?: string | undefined; dry?: DryRun | undefined }) {
  return (
    <>
      <PostForm ctx={ctx} action={action}>
        <label for="r_name">Name</label>
        <input id="r_name" name="name" required maxLength={100} value={values.name} />
        <input type="hidden" name="mode" value={values.mode} />
        {values.mode === 'builder' ? (
          <Builder values={values} problem={problem} />
        ) : (
          <>
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
                <CodeWords text={problem} />
              </p>
            ) : (
              <small id="r_help">
                For example <code>risk.score &gt;= 50 &amp;&amp; reservation.nights &gt; 14</code> or <code>checks.payment_verification.status == "FAIL"</code>. The fields are in the rules
                documentation.
              </small>
            )}
            <button type="submit" name="intent" value="switch" class="secondary" id="to-builder" formnovalidate>
              Use the builder
            </button>
          </>
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
      </PostForm>
      {dry ? <DryRunResult dry={dry} /> : null}
    </>
  );
}

/** A CEL error as text, the names of fields and variables in it set as code. */
function CodeWords({ text }: { text: string }) {
  return <>{text.split(/(\b[a-z]\w*(?:\.\w+)+\b|\b[a-z]+_\w+\b)/).map((part, i) => (i % 2 ? <code>{part}</code> : part))}</>;
}

/** The condition as rows of field, comparison and value; the CEL it makes shown beneath. */
function Builder({ values, problem }: { values: Values; problem?: string | undefined }) {
  const rows = Array.from({ length: ROWS }, (_, i) => values.conditions[i] ?? { field: '', op: '' as Operator, value: '' });
  return (
    <fieldset id="builder" aria-describedby={problem ? 'r_problem' : undefined}>
      <legend>Condition</legend>
      <label for="r_join">The rule holds when</label>
      <select id="r_join" name="join">
        <option value="all" selected={values.join === 'all'}>
          all of these hold
        </option>
        <option value="any" selected={values.join === 'any'}>
          any one of these holds
        </option>
      </select>
      {rows.map((c, i) => (
        <div class="filters condition" data-row={String(i)}>
          <div>
            <label for={`c${i}_field`}>{i === 0 ? 'Field' : `Field ${i + 1} (optional)`}</label>
            <select id={`c${i}_field`} name={`c${i}_field`}>
              <option value="">—</option>
              {RULE_FIELDS.map((f) => (
                <option value={f.path} selected={f.path === c.field}>
                  {f.words}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for={`c${i}_op`}>Comparison</label>
            <select id={`c${i}_op`} name={`c${i}_op`}>
              {(Object.keys(OPERATORS) as Operator[]).map((op) => (
                <option value={op} selected={op === c.op}>
                  {OPERATORS[op]}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for={`c${i}_value`}>Value</label>
            <input id={`c${i}_value`} name={`c${i}_value`} maxLength={1000} value={c.value} />
          </div>
        </div>
      ))}
      {problem ? (
        <p class="error" id="r_problem" role="alert">
          {problem}
        </p>
      ) : null}
      {values.expression ? (
        <p id="r_cel">
          In CEL: <code>{values.expression}</code>
        </p>
      ) : null}
      <button type="submit" name="intent" value="switch" class="secondary" id="to-cel" formnovalidate>
        Write it in CEL instead
      </button>
    </fieldset>
  );
}

function DryRunResult({ dry }: { dry: DryRun }) {
  return (
    <section id="dry-run-result" role="status">
      <h2>Tried on your {dry.evaluated} most recent screened bookings</h2>
      <p>
        It holds for <strong>{dry.hits}</strong>; {dry.changed} of them would change status.
      </p>
      {dry.unknown.map((u) => (
        <p class="warning" data-unknown={u.field}>
          {u.hits} of them {u.hits === 1 ? 'does' : 'do'} not know {u.words.charAt(0).toLowerCase() + u.words.slice(1)}: the condition holds for them although nobody gave it.
        </p>
      ))}
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

const BLANK: Values = { name: '', expression: '', action: 'review', enabled: true, mode: 'builder', conditions: [], join: 'all' };

/** A stored rule as the form shows it: in the builder when its CEL reads back, else as CEL. */
function valuesOf(rule: { name: string; expression: string; action: Values['action']; enabled: boolean }): Values {
  const built = fromCel(rule.expression);
  return { ...rule, mode: built ? 'builder' : 'cel', conditions: built?.conditions ?? [], join: built?.join ?? 'all' };
}

type Form = Static<typeof RuleForm>;

/**
 * The form as sent: its values, the CEL it stands for and the problem with it, if any. `switch`
 * turns the builder's rows into CEL, or CEL the builder can read into rows.
 */
function readForm(b: Form): { values: Values; problem: string | undefined } {
  const rows = b as unknown as Record<string, string | undefined>;
  const conditions = Array.from({ length: ROWS }, (_, i) => ({ field: rows[`c${i}_field`] ?? '', op: (rows[`c${i}_op`] ?? '') as Operator, value: rows[`c${i}_value`] ?? '' })).filter((c) => c.field);
  const base = { name: b.name, action: b.action, enabled: b.enabled === 'yes', join: b.join ?? 'all' };
  const mode = b.mode ?? 'cel';
  if (mode === 'builder') {
    // An empty builder turned to CEL opens an empty editor: there is nothing to carry over.
    if (b.intent === 'switch' && !conditions.length) return { values: { ...base, mode: 'cel', expression: '', conditions }, problem: undefined };
    const built = toCel(conditions, base.join);
    if ('problem' in built) return { values: { ...base, mode: 'builder', expression: '', conditions }, problem: built.problem };
    if (b.intent === 'switch') return { values: { ...base, mode: 'cel', expression: built.expression, conditions }, problem: undefined };
    return { values: { ...base, mode: 'builder', expression: built.expression, conditions }, problem: compileProblem(built.expression) ?? undefined };
  }
  const expression = b.expression ?? '';
  if (b.intent === 'switch') {
    const back = fromCel(expression);
    if (back) return { values: { ...base, mode: 'builder', expression, conditions: back.conditions, join: back.join }, problem: undefined };
    return {
      values: { ...base, mode: 'cel', expression, conditions: [] },
      problem: 'This condition cannot be shown in the builder (it uses brackets, functions, both “and” and “or”, or fields the builder does not offer): keep it in CEL.',
    };
  }
  if (!expression.trim()) return { values: { ...base, mode: 'cel', expression, conditions: [] }, problem: 'Write the condition.' };
  return { values: { ...base, mode: 'cel', expression, conditions: [] }, problem: compileProblem(expression) ?? undefined };
}

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
            <RuleEditor ctx={ctx} action={`/console/rules/${rule.id}`} values={opts.values ?? valuesOf(rule)} problem={opts.problem} dry={opts.dry} />
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
      const { values, problem } = readForm(request.body);
      if (problem || request.body.intent !== 'save') {
        const dry = problem || request.body.intent === 'switch' ? undefined : await dryRun(deps, request.account, values);
        return show(request, reply, (ctx) => listPage(ctx, { values, problem, dry }), problem && request.body.intent !== 'switch' ? 400 : 200);
      }
      request.auditSubject = (await createRule(deps, request.account, values)).id;
      return seeOther(reply, '/console/rules?done=created');
    });

    app.get('/console/rules/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => show(request, reply, (ctx) => rulePage(ctx, request.params.id)));

    app.post('/console/rules/:id', { schema: { hide: true, params: IdParams, body: RuleForm } }, async (request, reply) => {
      const { values, problem } = readForm(request.body);
      if (problem || request.body.intent !== 'save') {
        await getRule(deps, request.account, request.params.id);
        const dry = problem || request.body.intent === 'switch' ? undefined : await dryRun(deps, request.account, values);
        return show(request, reply, (ctx) => rulePage(ctx, request.params.id, { values, problem, dry }), problem && request.body.intent !== 'switch' ? 400 : 200);
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

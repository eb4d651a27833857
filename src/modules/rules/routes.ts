import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, MessageResponse } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import * as rules from './service.js';

const tags = ['Business rules'];
export const RuleAction = StringEnum(['review', 'decline', 'approve'] as const, { description: 'what the rule does when its condition holds' });
export const Expression = Type.String({ minLength: 1, maxLength: 4000, description: 'a CEL condition over the documented context (docs/rules.md)' });
const Rule = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    expression: Type.String(),
    action: Type.String(),
    enabled: Type.Boolean(),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { title: 'Rule' },
);
/** A new rule, as the API and the console take it. */
export const RuleBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }), expression: Expression, action: RuleAction, enabled: Type.Optional(Type.Boolean()) },
  { title: 'RuleInput', additionalProperties: false },
);
const Update = Type.Partial(RuleBody, { additionalProperties: false, title: 'RuleUpdate' });
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const errors = { ...authErrors, 409: authErrors[400] };

/** Beyond the spec: per-account business rules in CEL, with a dry run over past reservations. */
export const ruleRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/rules', { schema: { tags, operationId: 'listRules', summary: "The account's business rules", response: { 200: Type.Array(Rule), ...errors } } }, async (request) =>
      rules.listRules(deps, request.account),
    );
    app.post(
      '/rules',
      {
        config: { idempotentReplay: (request, id) => rules.getRule(deps, request.account, id) },
        schema: { tags, operationId: 'createRule', summary: 'Create a rule; the expression must compile', body: RuleBody, response: { 200: Rule, ...errors } },
      },
      async (request) => rules.createRule(deps, request.account, request.body),
    );
    app.get('/rules/:id', { schema: { tags, operationId: 'getRule', summary: 'One rule', params: Params, response: { 200: Rule, ...errors } } }, async (request) =>
      rules.getRule(deps, request.account, request.params.id),
    );
    app.put(
      '/rules/:id',
      { schema: { tags, operationId: 'updateRule', summary: 'Change a rule: name, expression, action or enabled', params: Params, body: Update, response: { 200: Rule, ...errors } } },
      async (request) => rules.updateRule(deps, request.account, request.params.id, request.body),
    );
    app.delete('/rules/:id', { schema: { tags, operationId: 'deleteRule', summary: 'Delete a rule', params: Params, response: { 200: MessageResponse, ...errors } } }, async (request) =>
      rules.deleteRule(deps, request.account, request.params.id),
    );
    app.post(
      '/rules/dry-run',
      {
        schema: {
          tags,
          operationId: 'dryRunRule',
          summary: "Evaluate a candidate rule over the account's screened reservations without changing anything",
          body: Type.Object(
            { expression: Expression, action: RuleAction, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, description: 'newest reservations to try, default 1000' })) },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Object({
              evaluated: Type.Integer(),
              hits: Type.Integer(),
              changed: Type.Integer({ description: 'hits whose verification status would change' }),
              unknown: Type.Array(Type.Object({ field: Type.String(), words: Type.String(), hits: Type.Integer({ description: 'hits for which the booking does not know this field' }) }), {
                description: 'the fields the condition names that a booking may not know (an age with no birth date given), with how many hits hold with one unknown',
              }),
              items: Type.Array(
                Type.Object({
                  id: Type.String(),
                  confirmation_code: Nullable(Type.String()),
                  guest_name: Nullable(Type.String()),
                  current_status: Type.String(),
                  would_become: Type.String(),
                }),
              ),
              errors: Type.Array(Type.Object({ id: Type.String(), error: Type.String() })),
            }),
            ...errors,
          },
        },
      },
      async (request) => rules.dryRun(deps, request.account, request.body),
    );
  };

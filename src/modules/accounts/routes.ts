import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, emptyBodyIsObject } from '../../http/schemas.js';
import { AccountChildren, AccountKeys, ChildrenQuery, IdParams, RegisterBody, RegisteredAccount, UpdateBody, UpdateQuery } from './schemas.js';
import * as accounts from './service.js';

const AccountRef = Type.Ref('Account');
const tags = ['Accounts'];

export const accountRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/accounts/me',
      {
        config: { allowSuspended: true },
        schema: { tags, operationId: 'getCurrentAccount', summary: 'The calling account; validates the key', response: { 200: AccountRef, ...authErrors } },
      },
      async (request) => accounts.toAccountView(request.account),
    );

    app.get(
      '/accounts/children',
      {
        config: { resellerOnly: true },
        schema: {
          tags,
          operationId: 'listChildAccounts',
          summary: 'Direct child accounts of the caller, paged',
          querystring: ChildrenQuery,
          response: { 200: AccountChildren, ...authErrors },
        },
      },
      async (request) => accounts.listChildren(deps, request.account, request.query.from ?? 0, request.query.size ?? 20),
    );

    app.get(
      '/accounts/keys',
      {
        config: { resellerOnly: true },
        schema: {
          tags,
          operationId: 'listApiKeys',
          summary: "API keys of every account in the caller's subtree, the caller included",
          response: { 200: AccountKeys, ...authErrors },
        },
      },
      async (request) => accounts.listKeys(deps, request.account),
    );

    app.post(
      '/accounts/register',
      {
        config: { resellerOnly: true },
        preValidation: emptyBodyIsObject,
        schema: {
          tags,
          operationId: 'createChildAccount',
          summary: 'Create a child account of the caller',
          body: RegisterBody,
          response: { 200: RegisteredAccount, ...authErrors },
        },
      },
      async (request) => {
        const { account, apiKey } = await accounts.registerChild(deps, request.account, request.actor, request.body);
        return { ...accounts.toAccountView(account), api_key: apiKey };
      },
    );

    app.put(
      '/accounts/:id',
      {
        config: { resellerOnly: true },
        preValidation: emptyBodyIsObject,
        schema: {
          tags,
          operationId: 'updateAccount',
          summary: 'Update an account the caller manages; status and suspended change its state',
          params: IdParams,
          querystring: UpdateQuery,
          body: UpdateBody,
          response: { 200: AccountRef, ...authErrors },
        },
      },
      async (request) => {
        const { status, suspended } = request.query;
        const updated = await accounts.updateManagedAccount(deps, request.account, request.actor, request.params.id, request.body, {
          status,
          suspended: suspended === undefined ? undefined : suspended === 'true',
        });
        return accounts.toAccountView(updated);
      },
    );
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, isTrue, QueryFlag } from '../../http/schemas.js';
import { createSignupLink } from './service.js';

const tags = ['Accounts'];

export const SignupQuery = Type.Object(
  {
    pms: Type.String({ minLength: 1, description: '`api` or a configured PMS name' }),
    redirect: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', description: 'where to send the new account after signup' })),
    hidepw: Type.Optional(QueryFlag),
  },
  { additionalProperties: false },
);

export const SignupLink = Type.Object({ url: Type.String({ format: 'uri' }), expiry: Type.String({ format: 'date-time' }) }, { title: 'SignupLink' });

/** A reseller's single-use link for a new customer to sign up as its child account. */
export const signupRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/accounts/signup',
      {
        config: { resellerOnly: true },
        schema: {
          tags,
          operationId: 'createSignupLink',
          summary: 'A single-use self-signup link that creates a child account of the caller',
          querystring: SignupQuery,
          response: { 200: SignupLink, ...authErrors },
        },
      },
      async (request) =>
        createSignupLink(deps, request.account, {
          pms: request.query.pms,
          redirect: request.query.redirect,
          hidePassword: isTrue(request.query.hidepw),
        }),
    );
  };

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, MessageResponse } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import { WEBHOOK_KEYS } from './keys.js';
import * as webhooks from './service.js';

const tags = ['Webhooks'];
const WebhookKeySchema = StringEnum(WEBHOOK_KEYS, { description: 'which event kind the URL receives' });

const RegisterBody = Type.Object(
  { webhook_url: Type.String({ minLength: 1, description: 'http(s) URL' }), webhook_key: WebhookKeySchema },
  { additionalProperties: false, title: 'AccountWebhooksRequest' },
);

const UnregisterBody = Type.Object(
  {
    webhook_key: WebhookKeySchema,
    webhook_url: Type.Optional(Type.String({ description: 'when given, must match the registered URL' })),
  },
  { additionalProperties: false, title: 'AccountWebhookRemovalRequest' },
);

const WebhookList = Type.Object(
  {
    signing_secret: Type.String({ description: 'whsec_… secret that signs every delivery (Standard Webhooks)' }),
    webhooks: Type.Array(
      Type.Object({
        webhook_key: Type.String(),
        webhook_url: Type.String(),
        enabled: Type.Boolean({ description: 'false after the receiver answered 410 Gone; registering again enables it' }),
        disabled_reason: Nullable(Type.String()),
        created_at: Type.String({ format: 'date-time' }),
        updated_at: Type.String({ format: 'date-time' }),
      }),
    ),
  },
  { title: 'Webhooks' },
);

export const webhookRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/accounts/webhooks',
      {
        schema: {
          tags,
          operationId: 'registerWebhook',
          summary: 'Register (or replace) the URL of one webhook kind',
          body: RegisterBody,
          response: { 200: MessageResponse, ...authErrors },
        },
      },
      async (request) => webhooks.registerWebhook(deps, request.account, request.body.webhook_key, request.body.webhook_url),
    );

    app.delete(
      '/accounts/webhooks',
      {
        schema: {
          tags,
          operationId: 'unregisterWebhook',
          summary: 'Unregister the URL of one webhook kind',
          body: UnregisterBody,
          response: { 200: MessageResponse, ...authErrors },
        },
      },
      async (request) => webhooks.unregisterWebhook(deps, request.account, request.body.webhook_key, request.body.webhook_url),
    );

    app.get(
      '/accounts/webhooks',
      {
        schema: {
          tags,
          operationId: 'listWebhooks',
          summary: 'Registered webhooks and the signing secret (beyond the spec)',
          response: { 200: WebhookList, ...authErrors },
        },
      },
      async (request) => webhooks.describeWebhooks(deps, request.account),
    );
  };

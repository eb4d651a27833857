import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, Pagination } from '../../http/schemas.js';
import { Nullable } from '../../http/validation.js';
import { deliveriesView, replayDelivery, rotateWebhookSecret } from './service.js';

const tags = ['Webhooks'];

const DeliveryList = Type.Object(
  {
    from: Type.Integer(),
    size: Type.Integer(),
    total: Type.Integer(),
    items: Type.Array(
      Type.Object({
        id: Type.String(),
        event_id: Type.String(),
        event_type: Type.String(),
        subject_id: Nullable(Type.String()),
        target: Type.String({ description: 'the webhook key, or callback' }),
        url: Type.String(),
        state: Type.String({ description: 'pending, succeeded or failed' }),
        attempts: Type.Array(
          Type.Object({
            attempt: Type.Integer(),
            status_code: Nullable(Type.Integer()),
            latency_ms: Type.Integer(),
            error: Nullable(Type.String()),
            at: Type.String(),
          }),
        ),
        created_at: Type.String(),
        updated_at: Type.String(),
      }),
    ),
  },
  { title: 'WebhookDeliveryPage' },
);

/** The deliveries of the events to the webhooks registered (webhooks/routes.ts), their replays and the secret that signs them. */
export const deliveryRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/accounts/webhooks/deliveries',
      {
        schema: {
          tags,
          operationId: 'listWebhookDeliveries',
          summary: 'Webhook and callback deliveries with every attempt, newest first (beyond the spec)',
          querystring: Type.Object(Pagination, { additionalProperties: false }),
          response: { 200: DeliveryList, ...authErrors },
        },
      },
      async (request) => deliveriesView(deps, request.account, request.query.from ?? 0, request.query.size ?? 20),
    );

    app.post(
      '/accounts/webhooks/deliveries/:id/replay',
      {
        schema: {
          tags,
          operationId: 'replayWebhookDelivery',
          summary: "Send a delivery's event again, to the target's current URL (beyond the spec)",
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
          response: { 200: Type.Object({ message: Type.String(), id: Type.String() }), ...authErrors },
        },
      },
      async (request) => replayDelivery(deps, request.account, request.params.id),
    );

    app.post(
      '/accounts/webhooks/secret/rotate',
      {
        schema: {
          tags,
          operationId: 'rotateWebhookSecret',
          summary: 'Replace the signing secret; deliveries carry both signatures for 24 hours (beyond the spec)',
          response: { 200: Type.Object({ signing_secret: Type.String(), previous_secret_valid_until: Type.String() }), ...authErrors },
        },
      },
      async (request) => rotateWebhookSecret(deps, request.account),
    );
  };

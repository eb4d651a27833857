import type { FastifyInstance } from 'fastify';
import type { ServerOptions } from 'node:http';
import type { Config } from '../config.js';

/**
 * How long a client may take to send a request: its headers within `headersTimeoutMs`, all of
 * it within `requestTimeoutMs`, checked every second (Node checks every 30 s by default, and
 * Fastify turns the whole-request limit off), so a client that trickles a header line or a body
 * byte at a time is cut off soon after its time is up.
 */
export function connectionOptions(config: Config): { requestTimeout: number; http: ServerOptions } {
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs / 2),
    },
  };
}

/**
 * An answer sent before the request's body was read (413: larger than the limit) keeps the
 * connection open while the rest of the body arrives, and drops it unread. Closing at once, as
 * Fastify asks, makes the kernel reset a connection that still has data coming in, and a client
 * still sending never reads the answer. The drain is bounded by the request timeout.
 */
export function registerLingeringClose(app: FastifyInstance) {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 413 && !request.raw.complete) reply.removeHeader('connection');
    done(null, payload);
  });
}

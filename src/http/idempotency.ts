import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUniqueViolation } from '../db/dialect.js';
import type { Deps } from '../deps.js';
import { iso } from '../lib/time.js';
import { AppError, badRequest } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

const WINDOW_MS = 24 * 3600_000;

function fingerprint(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

/**
 * Idempotency-Key on every POST (IETF httpapi draft semantics): the same key and request within
 * 24 hours replays the first answer; another request under the key is 422; while the first is
 * still running, 409. Keys belong to the account. 5xx answers are not kept, so a retry runs again.
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps) {
  app.decorateRequest('idempotencyKey', null);

  // Only POST routes carry the hooks, so reads pay nothing for them.
  const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    route.preHandler = [...asList(route.preHandler), claimKey];
    route.onSend = [...asList(route.onSend), storeAnswer];
  });

  async function claimKey(request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.account) return;
    const key = Array.isArray(header) ? header[0] ?? '' : header;
    if (key.length < 1 || key.length > 255) throw badRequest('header.idempotency-key: must be 1 to 255 characters');
    const accountId = request.account.id;
    const hash = fingerprint(request);
    const now = deps.clock();
    // How long a request may hold its key before another attempt may assume it died with its process.
    const lockedUntil = iso(new Date(now.getTime() + deps.config.idempotencyLockSeconds * 1000));

    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await deps.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row || row.expires_at <= iso(now)) {
        if (row) await deps.db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute();
        try {
          await deps.db
            .insertInto('idempotency_keys')
            .values({
              account_id: accountId,
              key,
              request_hash: hash,
              state: 'in_flight',
              response_status: null,
              response_body: null,
              resource_id: null,
              locked_until: lockedUntil,
              expires_at: iso(new Date(now.getTime() + WINDOW_MS)),
            })
            .execute();
          request.idempotencyKey = key;
          return;
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          continue;
        }
      }
      if (row.request_hash !== hash) {
        throw new AppError('unprocessable', 'Idempotency-Key was already used with a different request');
      }
      if (row.state === 'done' && row.response_status !== null) {
        return reply
          .code(row.response_status)
          .header('idempotent-replayed', 'true')
          .type('application/json; charset=utf-8')
          .send(row.response_body ?? '');
      }
      if (row.locked_until > iso(now)) {
        throw new AppError('conflict', 'a request with this Idempotency-Key is still in progress; retry later', { 'retry-after': '1' });
      }
      // The first attempt's process died mid-request: take the key over, if nobody else just did.
      const taken = await deps.db
        .updateTable('idempotency_keys')
        .set({ locked_until: lockedUntil })
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .where('locked_until', '=', row.locked_until)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) {
        request.idempotencyKey = key;
        return;
      }
    }
    throw new AppError('conflict', 'a request with this Idempotency-Key is still in progress; retry later', { 'retry-after': '1' });
  }

  async function storeAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const key = request.idempotencyKey;
    if (!key || reply.getHeader('idempotent-replayed')) return payload;
    const where = deps.db.updateTable('idempotency_keys').where('account_id', '=', request.account.id).where('key', '=', key);
    if (reply.statusCode >= 500) {
      await deps.db.deleteFrom('idempotency_keys').where('account_id', '=', request.account.id).where('key', '=', key).execute();
      return payload;
    }
    const body = typeof payload === 'string' ? payload : '';
    // The object the answer is about, so erasing it can erase the stored answer too.
    let resourceId = (request.params as { id?: string } | undefined)?.id ?? null;
    if (!resourceId) {
      try {
        const parsed = JSON.parse(body) as { id?: unknown };
        if (typeof parsed.id === 'string') resourceId = parsed.id;
      } catch {
        resourceId = null;
      }
    }
    await where
      .set({ state: 'done', response_status: reply.statusCode, response_body: body, resource_id: resourceId })
      .execute();
    return payload;
  }
}

import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { isUniqueViolation } from '../db/dialect.js';
import { runInWriteScope, type WriteScope } from '../db/write-scope.js';
import type { Deps } from '../deps.js';
import { iso } from '../lib/time.js';
import { AppError, badRequest } from '../lib/errors.js';
import * as repo from './idempotency-repo.js';
import type { KeyState } from './idempotency-repo.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds, with the token that proves it still does. */
    idempotency: { key: string; owner: string } | null;
  }
  interface FastifyContextConfig {
    /**
     * The answer to a retry whose first attempt did its work but died before answering: the
     * object the work wrote (`resourceId`) as the route would have answered it. A route without
     * it answers such a retry 409, never running the work again.
     */
    idempotentReplay?: (request: FastifyRequest, resourceId: string) => Promise<unknown>;
  }
}

const WINDOW_MS = 24 * 3600_000;

function fingerprint(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

const inProgress = () => new AppError('conflict', 'a request with this Idempotency-Key is still in progress; retry later', { 'retry-after': '1' });

/**
 * Idempotency-Key on every POST (IETF httpapi draft semantics): the same key and request within
 * 24 hours replays the first answer; another request under the key is 422; while the first is
 * still running, 409. Keys belong to the account.
 *
 * The work a key guards happens at most once, answered or not: every transaction the request
 * commits also marks its key `applied`, in that transaction, and only while the request still
 * holds the key. A retry after a crash finds either no trace of the work (the key is still
 * `in_flight`: it runs again) or the mark (it is answered from what the work wrote, through the
 * route's `idempotentReplay`). A request whose key was taken over after its lock ran out cannot
 * commit any more. 5xx answers are not kept, so a retry of a request that did nothing runs again.
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps) {
  app.decorateRequest('idempotency', null);

  // Only POST routes carry the hooks, so reads pay nothing for them.
  const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    route.preHandler = [...asList(route.preHandler), claimKeyHook];
    route.onSend = [...asList(route.onSend), storeAnswer];
  });

  /** Marks the work done, in the work's own transaction, while the request still holds the key. */
  const scopeOf = (request: FastifyRequest, held: { key: string; owner: string }): WriteScope => ({
    async inTransaction(tx, subject) {
      const params = request.params as { id?: string } | undefined;
      const resourceId = subject ?? params?.id ?? null;
      if (!(await repo.markApplied(tx, request.account.id, held.key, held.owner, resourceId))) {
        throw new AppError('conflict', 'this request outlived its hold on the Idempotency-Key and another attempt took it over; nothing was applied by this one');
      }
    },
  });

  // Callback style, so the rest of the request (its handler) runs inside the write scope.
  function claimKeyHook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    claimKey(request, reply).then(
      (held) => {
        if (held === 'answered') return;
        if (held) runInWriteScope(scopeOf(request, held), () => done());
        else done();
      },
      (err: Error) => done(err),
    );
  }

  async function claimKey(request: FastifyRequest, reply: FastifyReply): Promise<{ key: string; owner: string } | 'answered' | null> {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.account) return null;
    const key = Array.isArray(header) ? (header[0] ?? '') : header;
    if (key.length < 1 || key.length > 255) throw badRequest('header.idempotency-key: must be 1 to 255 characters');
    const accountId = request.account.id;
    const hash = fingerprint(request);
    const now = deps.clock();
    const owner = randomBytes(12).toString('base64url');
    // How long a request may hold its key before another attempt may assume it died with its process.
    const lockedUntil = iso(new Date(now.getTime() + deps.config.idempotencyLockSeconds * 1000));

    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await repo.findKey(deps.db, accountId, key);
      if (!row || row.expires_at <= iso(now)) {
        if (row) await repo.deleteKey(deps.db, accountId, key);
        try {
          await repo.insertKey(deps.db, {
            account_id: accountId,
            key,
            request_hash: hash,
            state: 'in_flight' satisfies KeyState,
            response_status: null,
            response_body: null,
            resource_id: null,
            locked_until: lockedUntil,
            expires_at: iso(new Date(now.getTime() + WINDOW_MS)),
            owner,
          });
          request.idempotency = { key, owner };
          return request.idempotency;
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          continue;
        }
      }
      if (row.request_hash !== hash) {
        throw new AppError('unprocessable', 'Idempotency-Key was already used with a different request');
      }
      if (row.state === 'done' && row.response_status !== null) {
        reply
          .code(row.response_status)
          .header('idempotent-replayed', 'true')
          .type('application/json; charset=utf-8')
          .send(row.response_body ?? '');
        return 'answered';
      }
      if (row.locked_until > iso(now)) throw inProgress();
      // The attempt holding the key died (its lock ran out): take the key over, if nobody else just did.
      if (!(await repo.takeOver(deps.db, accountId, key, row.locked_until, { lockedUntil, owner }))) continue;
      request.idempotency = { key, owner };
      if (row.state !== 'applied') return request.idempotency;
      // Its work was committed, its answer never stored: answer from what it wrote.
      const replay = request.routeOptions.config.idempotentReplay;
      if (!replay || !row.resource_id) {
        throw new AppError(
          'conflict',
          'the request with this Idempotency-Key was applied, but the service stopped before answering it; it will not be applied again. Read the object it changed to see the outcome',
        );
      }
      reply
        .code(200)
        .header('idempotent-recovered', 'true')
        .send(await replay(request, row.resource_id));
      return 'answered';
    }
    throw inProgress();
  }

  async function storeAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const held = request.idempotency;
    if (!held || reply.getHeader('idempotent-replayed')) return payload;
    if (reply.statusCode >= 500) {
      // Work it committed stays applied, and a retry may recover its answer at once; work it
      // did not commit leaves no trace (the key would be 'applied'), so a retry may run it again.
      await repo.releaseKey(deps.db, request.account.id, held.key, held.owner, iso(deps.clock()));
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
    await repo.storeAnswer(deps.db, request.account.id, held.key, held.owner, { status: reply.statusCode, body, resourceId });
    return payload;
  }
}

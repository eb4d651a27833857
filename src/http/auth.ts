import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { hashApiKey, isWellFormedApiKey } from '../lib/api-keys.js';
import { iso } from '../lib/time.js';
import { findAccountByKeyHash, touchLastLogin, type AccountRow } from '../modules/accounts/repo.js';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: AccountRow;
  }
  interface FastifyContextConfig {
    /** No x-api-key needed (health, OpenAPI document, web pages). */
    public?: boolean;
    /** Reachable by a suspended account (only GET /v1/accounts/me). */
    allowSuspended?: boolean;
    /** Only for accounts that are resellers. */
    resellerOnly?: boolean;
  }
}

const unauthorized = (message: string) => new AppError('unauthorized', message);

/**
 * x-api-key on every /v1 route, with the rules of DESIGN.md section 3. last_login moves at
 * most once per configured resolution, so reads stay reads.
 */
export function registerAuth(app: FastifyInstance, deps: Deps) {
  const resolutionMs = deps.config.lastLoginResolutionSeconds * 1000;
  app.decorateRequest('account', null as unknown as AccountRow);

  /** Returns nothing when the key's account is known to this process, a promise when it must be read. */
  const authenticate = (request: FastifyRequest): void | Promise<void> => {
    const config = request.routeOptions.config;
    if (config.public || request.is404 || !request.url.startsWith('/v1/')) return;
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) throw unauthorized('missing x-api-key header');
    const keyHash = hashApiKey(key);
    const now = deps.clock();
    // A cached key was found in the database, so it is well formed: the checksum (CRC32 and
    // base62, 2 % of a GET /v1/accounts/me) is checked on a miss only.
    const cached = deps.keyCache.get(keyHash, now.getTime());
    if (cached) return admit(request, cached, now);
    if (!isWellFormedApiKey(key)) throw unauthorized('x-api-key is not a valid API key');
    return findAccountByKeyHash(deps.db, keyHash).then((account) => {
      if (!account) throw unauthorized('unknown API key');
      deps.keyCache.set(keyHash, account, now.getTime());
      admit(request, account, now);
    });
  };

  const admit = (request: FastifyRequest, account: AccountRow, now: Date): void => {
    const config = request.routeOptions.config;
    if (!account.is_active) throw unauthorized('account is disabled');
    if (account.is_suspended && !config.allowSuspended) throw new AppError('forbidden', 'account is suspended');
    if (config.resellerOnly && !account.is_reseller) {
      throw new AppError('forbidden', 'this endpoint is for reseller accounts');
    }
    request.account = account;
    if (!account.last_login || now.getTime() - Date.parse(account.last_login) >= resolutionMs) {
      const at = iso(now);
      account.last_login = at;
      touchLastLogin(deps.db, account.id, at).catch((err: unknown) => request.log.warn({ err }, 'last_login update failed'));
    }
  };

  // Callback style: a cached key costs no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    let pending: void | Promise<void>;
    try {
      pending = authenticate(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });
}

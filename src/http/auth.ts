import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Role } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { hashApiKey, isWellFormedApiKey } from '../lib/api-keys.js';
import { iso } from '../lib/time.js';
import { findAccountByKeyHash, touchKeyUsed, touchLastLogin, type AccountRow, type KeyInfo } from '../modules/accounts/repo.js';
import { keyActor, type Actor } from '../lib/actor.js';
import { AppError } from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: AccountRow;
    /** Who is acting: the request's API key, or the person signed in to the console. */
    actor: Actor;
  }
  interface FastifyContextConfig {
    /** No x-api-key or console session needed (health, the OpenAPI document, the guest pages, the console sign-in). */
    public?: boolean;
    /** Reachable by a suspended account (only GET /v1/accounts/me). */
    allowSuspended?: boolean;
    /** Only for accounts that are resellers. */
    resellerOnly?: boolean;
    /**
     * The console: the least role a person needs (viewer < reviewer < manager < owner). Unsaid,
     * a page (GET) needs viewer and a form needs manager.
     */
    role?: Role;
    /** The console: reachable by a session still waiting for its second factor ('code') or to set one up ('enrol'). */
    stages?: readonly ('code' | 'enrol')[];
  }
}

/** The least role a console page or form needs: its own, or viewer for a page and manager for a form. */
export const neededRole = (method: string, config: { role?: Role | undefined }): Role => config.role ?? (method === 'GET' || method === 'HEAD' ? 'viewer' : 'manager');

const unauthorized = (message: string) => new AppError('unauthorized', message);

/**
 * Failed authentications by client address, counted in fixed one-minute windows. Past the limit,
 * an address's requests with a key this process does not know already are refused (429) before
 * any database read, until the window ends; keys in use keep working from the cache.
 */
class AuthFailures {
  #window = 0;
  readonly #counts = new Map<string, number>();

  constructor(private readonly perMinute: number) {}

  #roll(nowMs: number) {
    const window = Math.floor(nowMs / 60_000);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts.clear();
    }
  }

  record(address: string, nowMs: number) {
    if (this.perMinute <= 0) return;
    this.#roll(nowMs);
    this.#counts.set(address, (this.#counts.get(address) ?? 0) + 1);
  }

  assertAllowed(address: string, nowMs: number) {
    if (this.perMinute <= 0) return;
    this.#roll(nowMs);
    if ((this.#counts.get(address) ?? 0) < this.perMinute) return;
    const retry = Math.ceil(((this.#window + 1) * 60_000 - nowMs) / 1000);
    throw new AppError('rate_limited', `too many failed authentications from this address (${this.perMinute} a minute); retry in ${retry} s`, { 'retry-after': String(retry) });
  }
}

/** The token of an `Authorization: Bearer <token>` header, if that is what it holds. */
const bearer = (value: string | undefined) => /^Bearer +(\S+)$/i.exec(value ?? '')?.[1];

/**
 * x-api-key on every /v1 route, with the rules of DESIGN.md section 3. last_login moves at
 * most once per configured resolution, so reads stay reads. The key may come as
 * `Authorization: Bearer <key>` instead, as generated API clients send it.
 */
export function registerAuth(app: FastifyInstance, deps: Deps) {
  const resolutionMs = deps.config.lastLoginResolutionSeconds * 1000;
  const failures = new AuthFailures(deps.config.authFailuresPerMinute);
  app.decorateRequest('account', null as unknown as AccountRow);
  app.decorateRequest('actor', null as unknown as Actor);
  // When each key's last use was last written, in this process: at most once per resolution.
  const keyTouched = new Map<string, number>();

  /** Returns nothing when the key's account is known to this process, a promise when it must be read. */
  const authenticate = (request: FastifyRequest): void | Promise<void> => {
    const config = request.routeOptions.config;
    if (config.public || request.is404 || !request.url.startsWith('/v1/')) return;
    const header = request.headers['x-api-key'];
    const key = (Array.isArray(header) ? header[0] : header) || bearer(request.headers.authorization);
    const now = deps.clock();
    const failed = (message: string) => {
      failures.record(request.ip, now.getTime());
      return unauthorized(message);
    };
    if (!key) {
      failures.assertAllowed(request.ip, now.getTime());
      throw failed('missing x-api-key header (or Authorization: Bearer with the key)');
    }
    const keyHash = hashApiKey(key);
    // A cached key was found in the database, so it is well formed: the checksum (CRC32 and
    // base62, not free) is checked on a miss only.
    const cached = deps.keyCache.get(keyHash, now.getTime());
    if (cached) return admit(request, cached.account, cached.key, now);
    failures.assertAllowed(request.ip, now.getTime());
    if (!isWellFormedApiKey(key)) throw failed('x-api-key is not a valid API key');
    return findAccountByKeyHash(deps.db, keyHash).then((found) => {
      if (!found) throw failed('unknown API key');
      deps.keyCache.set(keyHash, found, now.getTime());
      if (!found.account.is_active) failures.record(request.ip, now.getTime());
      admit(request, found.account, found.key, now);
    });
  };

  const admit = (request: FastifyRequest, account: AccountRow, key: KeyInfo, now: Date): void => {
    const config = request.routeOptions.config;
    if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) throw unauthorized('this API key was rolled and its grace period has ended; use the new key');
    if (!account.is_active) throw unauthorized('account is disabled');
    if (account.is_suspended && !config.allowSuspended) throw new AppError('forbidden', 'account is suspended');
    if (config.resellerOnly && !account.is_reseller) {
      throw new AppError('forbidden', 'this endpoint is for reseller accounts');
    }
    if (key.readOnly && request.method !== 'GET' && request.method !== 'HEAD') throw new AppError('forbidden', 'this API key is read-only: it can only read (GET)');
    request.account = account;
    request.actor = keyActor(key);
    if (key.name !== null && now.getTime() - (keyTouched.get(key.id) ?? 0) >= resolutionMs) {
      keyTouched.set(key.id, now.getTime());
      if (keyTouched.size > 10_000) keyTouched.delete(keyTouched.keys().next().value!);
      touchKeyUsed(deps.db, key.id, iso(now)).catch((err: unknown) => request.log.warn({ err }, 'key last use update failed'));
    }
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

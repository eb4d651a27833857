import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { createRequire } from 'node:module';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import type { Agent } from 'undici';
import { outboundUrlProblem } from './urls.js';

/** dns.lookup's shape, so tests can inject a resolver without touching the network. */
export type Resolver = (hostname: string, options: LookupOptions & { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

export class OutboundRefused extends Error {
  readonly code = 'OUTBOUND_REFUSED';
}

/** The only IPv6 addresses allocated for public use (RFC 4291 global unicast). */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Why an address may not be a target, or null for a public unicast address. An allow-list:
 * an IPv4 address must be what ipaddr.js calls plain 'unicast' (so not loopback, private,
 * link-local, CGNAT, multicast, reserved, unspecified or broadcast); an IPv6 address must also
 * lie in 2000::/3, which leaves out the IPv4-compatible ::a.b.c.d form, NAT64, 6to4, Teredo,
 * unique-local and every range yet to be named. IPv4-mapped IPv6 is judged by the IPv4 address
 * inside it.
 */
export function addressProblem(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return `${address} is not an IP address`;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range !== 'unicast') return `${address} is a ${range} address`;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return `${address} is not a global unicast address`;
  return null;
}

export interface OutboundOptions {
  allowPrivate: boolean;
  resolver?: Resolver | undefined;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Certificates (PEM) to trust besides the system's: a server whose chain the system does not hold (Spain's SES). */
  ca?: string | undefined;
}

export interface OutboundResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
  latencyMs: number;
  /** The answer was longer than maxResponseBytes and was cut there. */
  truncated: boolean;
}

/** undici loads with the first outbound request, not in a start that makes none. */
let undiciModule: typeof import('undici') | undefined;
const undici = () => (undiciModule ??= createRequire(import.meta.url)('undici') as typeof import('undici'));

const agents = new Map<string, Agent>();

function agentFor(opts: OutboundOptions): Agent {
  const resolver = opts.resolver ?? systemResolver;
  const key = `${opts.allowPrivate ? 'open' : 'guarded'}${opts.ca ? `:${opts.ca}` : ''}`;
  const cached = opts.resolver ? undefined : agents.get(key);
  if (cached) return cached;
  const agent = new (undici().Agent)({
    connections: 16,
    connect: {
      ...(opts.ca ? { ca: [...tls.rootCertificates, opts.ca] } : {}),
      // Resolve, check every address, and hand the socket only checked addresses: the
      // connection goes where the check looked, so a DNS answer cannot change in between.
      lookup: ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
        resolver(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return callback(err);
          if (!opts.allowPrivate) {
            for (const a of addresses) {
              const problem = addressProblem(a.address);
              if (problem) return callback(new OutboundRefused(`refused ${hostname}: ${problem}`));
            }
          }
          if (options.all) return callback(null, addresses);
          const first = addresses[0];
          if (!first) return callback(new Error(`${hostname} did not resolve`));
          return callback(null, first.address, first.family);
        });
      }) as unknown as LookupFunction,
    },
  });
  if (!opts.resolver) agents.set(key, agent);
  return agent;
}

/** Checks a URL before any connection: its form, and a literal IP host against the private ranges. */
export function assertOutboundUrl(url: string, opts: Pick<OutboundOptions, 'allowPrivate'>): URL {
  const problem = outboundUrlProblem(url);
  if (problem) throw new OutboundRefused(`refused ${url}: ${problem}`);
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowPrivate && isIP(host)) {
    const p = addressProblem(host);
    if (p) throw new OutboundRefused(`refused ${url}: ${p}`);
  }
  return u;
}

/** Resolves a host now (at registration time) and refuses it when any address is private. */
export async function assertPublicHost(url: string, opts: OutboundOptions): Promise<void> {
  const u = assertOutboundUrl(url, opts);
  if (opts.allowPrivate) return;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return;
  const resolver = opts.resolver ?? systemResolver;
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    resolver(host, { all: true }, (err, list) => (err ? reject(new OutboundRefused(`refused ${url}: ${host} does not resolve (${err.code ?? err.message})`)) : resolve(list))),
  );
  for (const a of addresses) {
    const p = addressProblem(a.address);
    if (p) throw new OutboundRefused(`refused ${url}: ${host} resolves to ${p}`);
  }
}

/**
 * A request through the guard: http(s) only, no credentials, no redirects followed, every
 * resolved address checked, a time limit and a cap on how much of the answer is read.
 */
export async function requestOutbound(method: 'GET' | 'POST', url: string, init: { body?: string; headers: Record<string, string> }, opts: OutboundOptions): Promise<OutboundResponse> {
  assertOutboundUrl(url, opts);
  const timeout = opts.timeoutMs ?? 10_000;
  const cap = opts.maxResponseBytes ?? 64 * 1024;
  const started = performance.now();
  const res = await undici().request(url, {
    method,
    body: init.body,
    headers: init.headers,
    dispatcher: agentFor(opts),
    headersTimeout: timeout,
    bodyTimeout: timeout,
    signal: AbortSignal.timeout(timeout),
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const b = chunk as Buffer;
    if (size < cap) chunks.push(b.subarray(0, cap - size));
    size += b.length;
    if (size >= cap) {
      res.body.destroy();
      break;
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return { status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), headers, latencyMs: Math.round(performance.now() - started), truncated: size > cap };
}

/** A JSON POST through the guard (webhooks, callbacks, SMS). */
export function postOutbound(url: string, body: string, headers: Record<string, string>, opts: OutboundOptions): Promise<OutboundResponse> {
  return requestOutbound('POST', url, { body, headers: { 'content-type': 'application/json', 'user-agent': 'guestscreen-webhooks/1', ...headers } }, opts);
}

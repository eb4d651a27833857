import { lookup } from 'node:dns/promises';
import { connect, isIP } from 'node:net';
import { addressProblem } from '../../lib/outbound.js';
import { providerFailed, type LookupContext } from '../core.js';
import type { DomainRecord } from './rdap.js';

const TIMEOUT_MS = 10_000;
const CAP = 1024 * 1024;

/**
 * One WHOIS query (RFC 3912): the domain and CRLF, then everything until the server closes.
 * The host is resolved and checked like every outbound target (no private addresses unless
 * allowed), and the connection goes to the checked address.
 */
async function query(ctx: LookupContext, host: string, port: number, domain: string): Promise<string> {
  const { deps } = ctx;
  let address = host;
  if (!isIP(host)) {
    try {
      address = (await lookup(host)).address;
    } catch (err) {
      throw providerFailed(`WHOIS server ${host}`, `could not be reached: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  const problem = deps.config.allowPrivateTargets ? null : addressProblem(address);
  if (problem) throw providerFailed(`WHOIS server ${host}`, `refused: ${problem}`);
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = connect({ host: address, port });
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`timed out after ${TIMEOUT_MS / 1000} s`)));
    socket.on('connect', () => socket.end(`${domain}\r\n`));
    socket.on('data', (c: Buffer) => {
      size += c.length;
      if (size > CAP) socket.destroy(new Error('answered more than 1 MiB'));
      else chunks.push(c);
    });
    socket.on('error', (err) => reject(providerFailed(`WHOIS server ${host}`, `failed: ${err.message}`)));
    socket.on('close', (hadError) => {
      if (!hadError) resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

const field = (text: string, names: string[]): string | null => {
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([^:]+?)\s*:\s*(.+?)\s*$/.exec(line);
    if (m && names.includes((m[1] as string).toLowerCase())) return m[2] as string;
  }
  return null;
};

const NOT_FOUND = /no match for|not found|no entries found|no data found|is available for registration|no object found/i;

/**
 * WHOIS over port 43, for top-level domains without RDAP: IANA's server names the registry's
 * (`refer:`), which is then asked. Its text has no standard form; the usual field names of
 * registries are read, and an answer that says the domain is free is null.
 */
export async function whoisDomain(ctx: LookupContext, server: { host: string; port: number }, domain: string): Promise<DomainRecord | null> {
  const iana = await query(ctx, server.host, server.port, domain);
  const refer = field(iana, ['refer', 'whois']);
  if (!refer) throw providerFailed('WHOIS', `has no registry server for the top-level domain of ${domain}`);
  const text = await query(ctx, refer, server.port, domain);
  if (/status:\s*free/i.test(text) || (NOT_FOUND.test(text) && !field(text, ['domain name', 'domain']))) return null;
  const date = (v: string | null) => {
    if (!v) return null;
    const d = new Date(v.replace(/^(\d{4})\.(\d{2})\.(\d{2})/, '$1-$2-$3'));
    return Number.isNaN(d.getTime()) ? v : d.toISOString();
  };
  return {
    domain: (field(text, ['domain name', 'domain']) ?? domain).toLowerCase(),
    server: refer,
    registrar: field(text, ['registrar', 'registrar name', 'sponsoring registrar']),
    createdAt: date(field(text, ['creation date', 'created', 'registered', 'registration time', 'created on'])),
    expiresAt: date(field(text, ['registry expiry date', 'expiration date', 'expiry date', 'expires', 'paid-till', 'expire date', 'expires on'])),
    registrant: field(text, ['registrant organization', 'registrant organisation', 'org'])
      ? { name: null, organisation: field(text, ['registrant organization', 'registrant organisation', 'org']), country: field(text, ['registrant country']) }
      : null,
    source: { name: `WHOIS (${refer})`, date: ctx.deps.clock().toISOString() },
  };
}

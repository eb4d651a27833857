/**
 * One SOAP exchange with a police system, as every adapter makes it: a POST through the outbound
 * guard, and what went wrong on the way told apart from what the service answered.
 */
import { OutboundRefused, requestOutbound, type OutboundOptions, type OutboundResponse } from '../../lib/outbound.js';

/** The service could not be reached or did not answer as itself: sending again later may work. */
export class AuthorityUnreachable extends Error {}

/** The request posted; a failure on the way is AuthorityUnreachable (the guard's refusal passes through as OutboundRefused). */
export async function postSoap(system: string, endpoint: string, body: string, headers: Record<string, string>, opts: OutboundOptions): Promise<OutboundResponse> {
  try {
    return await requestOutbound('POST', endpoint, { body, headers: { 'user-agent': 'guestscreen', ...headers } }, opts);
  } catch (err) {
    if (err instanceof OutboundRefused) throw err;
    throw new AuthorityUnreachable(`${system} could not be reached at ${endpoint}: ${(err as Error).message}`);
  }
}

/** The answer's XML: a SOAP fault comes with a 500 and is the service's own answer; any other HTTP error is the way there. */
export function soapBody(system: string, res: OutboundResponse): string {
  if (res.status >= 400 && !/Envelope/.test(res.body)) throw new AuthorityUnreachable(`${system} answered HTTP ${res.status}`);
  return res.body;
}

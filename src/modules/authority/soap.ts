/**
 * One SOAP exchange with a police system, as every adapter makes it: a POST through the outbound
 * guard, and what went wrong on the way told apart from what the service answered.
 */
import { OutboundRefused, requestOutbound, type OutboundOptions, type OutboundResponse } from '../../lib/outbound.js';

/**
 * The service could not be reached or did not answer as itself: sending again later may work.
 * `mayHaveArrived`: the request may have been taken (the answer was lost on the way back), so a
 * filing sent again could be filed twice.
 */
export class AuthorityUnreachable extends Error {
  constructor(
    message: string,
    readonly mayHaveArrived = false,
    /** The far end closed the connection before any answer (not a time-out): a service that numbers its files can be sent the same one again. */
    readonly dropped = false,
  ) {
    super(message);
  }
}

/** Failures that happen before a request is written: nothing reached the service. */
const NOT_SENT =
  /^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR_CONNECT_TIMEOUT|ERR_TLS_CERT_ALTNAME_INVALID|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_)/;

/** The far end closed the connection without answering. */
const DROPPED = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/;

/** The request posted; a failure on the way is AuthorityUnreachable (the guard's refusal passes through as OutboundRefused). */
export async function postSoap(system: string, endpoint: string, body: string, headers: Record<string, string>, opts: OutboundOptions): Promise<OutboundResponse> {
  try {
    return await requestOutbound('POST', endpoint, { body, headers: { 'user-agent': 'guestscreen', ...headers } }, opts);
  } catch (err) {
    if (err instanceof OutboundRefused) throw err;
    const code = String((err as { code?: unknown }).code ?? (err as { cause?: { code?: unknown } }).cause?.code ?? '');
    throw new AuthorityUnreachable(`${system} could not be reached at ${endpoint}: ${(err as Error).message}`, !NOT_SENT.test(code), DROPPED.test(code));
  }
}

/** The answer's XML: a SOAP fault comes with a 500 and is the service's own answer; any other HTTP error is the way there. */
export function soapBody(system: string, res: OutboundResponse): string {
  if (res.status >= 400 && !/Envelope/.test(res.body)) throw new AuthorityUnreachable(`${system} answered HTTP ${res.status}`);
  return res.body;
}

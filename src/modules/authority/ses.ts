/**
 * Spain's SES.HOSPEDAJES spoken to: its SOAP 1.1 service over HTTPS with the host's web-service
 * user and password (HTTP Basic), the files of ses-files.ts in, its answers out. A transport
 * failure (no connection, a time-out, an HTTP error without a SOAP answer) is told apart from an
 * answer of the service: only the first is worth sending again.
 */
import { basic } from '../../providers/core.js';
import { OutboundRefused } from '../../lib/outbound.js';
import { AuthorityUnreachable, postSoap, soapBody } from './soap.js';
import {
  cancelFile,
  catalogoRequest,
  comunicacionRequest,
  packed,
  partFile,
  queryFile,
  readCatalogoResponse,
  readComunicacionResponse,
  readQueryResponse,
  SesFault,
  type LotResult,
  type SesHeader,
  type SesStay,
} from './ses-files.js';

export interface SesConnection extends SesHeader {
  endpoint: string;
  user: string;
  password: string;
  /** Certificates (PEM) to trust besides the system's: the Ministry's chain (FNMT) is not in every system's store. */
  ca?: string | undefined;
  timeoutMs: number;
  /** The endpoint may be on a private network (an operator's test rig, the tests' fake). */
  allowPrivate: boolean;
}

/** The service answered and refused: sending the same again will not work. */
export class SesRefusal extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
  ) {
    super(`SES.HOSPEDAJES answered ${code}: ${description}`);
  }
}

/** The most communications a request carries, and lots a query asks about (manual §3): the caller splits larger sets. */
export const MOST_COMMUNICATIONS = 100;
export const MOST_LOTS = 10;

async function call(conn: SesConnection, xml: string): Promise<string> {
  let res;
  try {
    res = await postSoap(
      'SES.HOSPEDAJES',
      conn.endpoint,
      xml,
      { 'content-type': 'text/xml; charset=utf-8', soapaction: '""', authorization: basic(conn.user, conn.password) },
      { allowPrivate: conn.allowPrivate, timeoutMs: conn.timeoutMs, maxResponseBytes: 4 * 1024 * 1024, ca: conn.ca },
    );
  } catch (err) {
    if (err instanceof OutboundRefused) throw new SesRefusal(0, err.message);
    throw err;
  }
  if (res.status === 401 || res.status === 403)
    throw new SesRefusal(res.status, `the web-service user or password was refused (HTTP ${res.status}); check them, and that "Envío de comunicaciones por servicio web" is ticked in the SES portal`);
  return soapBody('SES.HOSPEDAJES', res);
}

/** An answer read, a fault or a body that is no answer taken as the service refusing. */
function read<T>(reader: (xml: string) => T, xml: string): T {
  try {
    return reader(xml);
  } catch (err) {
    if (err instanceof SesFault) throw new SesRefusal(0, err.message);
    throw new AuthorityUnreachable(`SES.HOSPEDAJES answered with what is not its XML: ${(err as Error).message}`, true);
  }
}

/** The stays' part sent (operation A, type PV): the lot the service will process them in. */
export async function sendPart(conn: SesConnection, establishment: string, stays: SesStay[]): Promise<{ lot: string; file: string }> {
  if (!stays.length || stays.length > MOST_COMMUNICATIONS) throw new RangeError(`a part holds 1 to ${MOST_COMMUNICATIONS} stays, not ${stays.length}`);
  const file = partFile(establishment, stays);
  const answer = read(readComunicacionResponse, await call(conn, comunicacionRequest(conn, 'A', packed(file), 'PV')));
  if (answer.code !== 0 || !answer.lot) throw new SesRefusal(answer.code, answer.description);
  return { lot: answer.lot, file };
}

/** The lots asked about (operation C): each one's state and, once processed, each communication's code or error. */
export async function queryLots(conn: SesConnection, lots: string[]): Promise<LotResult[]> {
  if (!lots.length || lots.length > MOST_LOTS) throw new RangeError(`a query asks about 1 to ${MOST_LOTS} lots, not ${lots.length}`);
  const answer = read(readQueryResponse, await call(conn, comunicacionRequest(conn, 'C', packed(queryFile(lots)))));
  if (answer.code !== 0) throw new SesRefusal(answer.code, answer.description);
  return answer.lots;
}

/** Communications cancelled (operation B) by their codes; the lot of the cancellation. */
export async function cancelCommunications(conn: SesConnection, codes: string[]): Promise<string | null> {
  const answer = read(readComunicacionResponse, await call(conn, comunicacionRequest(conn, 'B', packed(cancelFile(codes)))));
  if (answer.code !== 0) throw new SesRefusal(answer.code, answer.description);
  return answer.lot;
}

/** One of the service's code tables (`catalogo`): what credentials are checked with on saving. */
export async function catalogue(conn: SesConnection, table: string): Promise<{ code: string; words: string }[]> {
  const answer = read(readCatalogoResponse, await call(conn, catalogoRequest(table)));
  if (answer.code !== 0) throw new SesRefusal(answer.code, answer.description);
  return answer.entries;
}

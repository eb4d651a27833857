/**
 * Portugal's SIBA spoken to: its SOAP 1.1 service (ASMX), one operation, the file of
 * siba-files.ts delivered by `EntregaBoletinsAlojamento` with the unit's NIPC, establishment and
 * access key. A transport failure (a dropped connection, an HTML error page, a time-out) is told
 * apart from the service's answer: only the first is worth sending again, and where the request
 * may have arrived, not on its own.
 */
import { OutboundRefused } from '../../lib/outbound.js';
import { entregaRequest, readEntregaAnswer, SIBA_ACTION, type SibaError } from './siba-files.js';
import { AuthorityUnreachable, postSoap, soapBody } from './soap.js';

export interface SibaConnection {
  endpoint: string;
  /** The host's NIPC (UnidadeHoteleira). */
  unit: string;
  /** The establishment's number, `00` the first. */
  establishment: string;
  key: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** The service answered and refused the file, or some of its bulletins (their lines, 1 the first). */
export class SibaRefusal extends Error {
  constructor(readonly errors: SibaError[]) {
    super(`SIBA refused: ${errors.map((e) => `${e.line ? `bulletin ${e.line}: ` : ''}${e.code} ${e.description}`).join('; ')}`);
  }
  /** Code 60: the unit or its key was not recognised. */
  get unauthorised(): boolean {
    return this.errors.some((e) => e.code === '60');
  }
}

/** Delivers one file; resolves when SIBA answered `0` (taken), throws SibaRefusal or AuthorityUnreachable. */
export async function deliverBulletins(conn: SibaConnection, file: string): Promise<void> {
  let res;
  try {
    res = await postSoap(
      'SIBA',
      conn.endpoint,
      entregaRequest(conn.unit, conn.establishment, conn.key, file),
      { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${SIBA_ACTION}"` },
      {
        allowPrivate: conn.allowPrivate,
        timeoutMs: conn.timeoutMs,
        maxResponseBytes: 1024 * 1024,
      },
    );
  } catch (err) {
    if (err instanceof OutboundRefused) throw new SibaRefusal([{ line: 0, code: '', description: err.message }]);
    throw err;
  }
  const body = soapBody('SIBA', res);
  const answer = readEntregaAnswer(body);
  // Not the service's answer (its HTML error page, when it is down): the request may have been taken.
  if (!answer) throw new AuthorityUnreachable(`SIBA answered HTTP ${res.status} with what is not its answer`, true);
  if (!answer.taken) throw new SibaRefusal(answer.errors);
}

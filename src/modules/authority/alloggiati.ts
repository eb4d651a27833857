/**
 * Italy's Alloggiati Web spoken to: its SOAP 1.2 service (ASMX), a token from `GenerateToken`
 * (user, password and WSKEY) for the calls after it, the rows of alloggiati-files.ts checked by
 * `Test` and filed by `Send` (their `GestioneAppartamenti_` forms for a short-let account's
 * apartment), the day's receipt fetched by `Ricevuta`. A transport failure is told apart from an
 * answer of the service: only the first is worth sending again.
 */
import { OutboundRefused } from '../../lib/outbound.js';
import { AuthorityUnreachable, postSoap, soapBody } from './soap.js';
import { AlloggiatiFault, readOutcome, readRows, readToken, request, rowList, type Outcome } from './alloggiati-files.js';

export interface AlloggiatiConnection {
  endpoint: string;
  user: string;
  password: string;
  wsKey: string;
  /** A short-let account's apartment (IdAppartamento): its rows go through GestioneAppartamenti_*. */
  apartment?: string | undefined;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** The service answered and refused. */
export class AlloggiatiRefusal extends Error {
  constructor(readonly outcome: Outcome) {
    super(`Alloggiati Web refused: ${[outcome.code, outcome.name, outcome.detail].filter(Boolean).join(' ') || 'no reason given'}`);
  }
}

/** The most rows a call carries: the caller splits larger sets. */
export const MOST_ROWS = 1000;

async function call<T>(conn: AlloggiatiConnection, operation: string, fields: Record<string, unknown>, read: (xml: string) => T): Promise<T> {
  let res;
  try {
    res = await postSoap(
      'Alloggiati Web',
      conn.endpoint,
      request(operation, fields),
      { 'content-type': `application/soap+xml; charset=utf-8; action="AlloggiatiService/${operation}"` },
      { allowPrivate: conn.allowPrivate, timeoutMs: conn.timeoutMs, maxResponseBytes: 16 * 1024 * 1024 },
    );
  } catch (err) {
    if (err instanceof OutboundRefused) throw new AlloggiatiRefusal({ ok: false, code: null, name: null, detail: err.message });
    throw err;
  }
  const body = soapBody('Alloggiati Web', res);
  try {
    return read(body);
  } catch (err) {
    if (err instanceof AlloggiatiFault) throw new AlloggiatiRefusal({ ok: false, code: null, name: 'SOAP fault', detail: err.message });
    throw new AuthorityUnreachable(`Alloggiati Web answered with what is not its XML: ${(err as Error).message}`, true);
  }
}

/** A token for the calls after it (valid about an hour). */
export async function generateToken(conn: AlloggiatiConnection): Promise<string> {
  const answer = await call(conn, 'GenerateToken', { Utente: conn.user, Password: conn.password, WsKey: conn.wsKey }, readToken);
  if (!answer.outcome.ok || !answer.token) throw new AlloggiatiRefusal(answer.outcome);
  return answer.token;
}

/** The credentials checked, as on saving them: a token made, and the service's own check of it. */
export async function checkCredentials(conn: AlloggiatiConnection): Promise<void> {
  const token = await generateToken(conn);
  const { outcome } = await call(conn, 'Authentication_Test', { Utente: conn.user, token }, (xml) => readOutcome(xml, 'Authentication_Test'));
  if (!outcome.ok) throw new AlloggiatiRefusal(outcome);
}

/**
 * The rows checked (`Test`, nothing filed) or filed (`Send`): each row's outcome, in order. A row
 * refused is in its outcome; the call itself refused (a bad token, too many rows) throws.
 */
export async function submitRows(conn: AlloggiatiConnection, token: string, rows: string[], file: boolean): Promise<Outcome[]> {
  if (!rows.length || rows.length > MOST_ROWS) throw new RangeError(`a call carries 1 to ${MOST_ROWS} rows, not ${rows.length}`);
  const operation = `${conn.apartment ? 'GestioneAppartamenti_' : ''}${file ? 'Send' : 'Test'}`;
  const fields = { Utente: conn.user, token, ElencoSchedine: rowList(rows), ...(conn.apartment ? { IdAppartamento: conn.apartment } : {}) };
  const answer = await call(conn, operation, fields, (xml) => readRows(xml, operation));
  if (!answer.outcome.ok && !answer.rows.length) throw new AlloggiatiRefusal(answer.outcome);
  if (answer.rows.length !== rows.length) throw new AuthorityUnreachable(`Alloggiati Web answered for ${answer.rows.length} rows of ${rows.length}`, true);
  return answer.rows;
}

/** The day's receipt (a PDF), for the rows filed that day; downloadable for 30 days. */
export async function receipt(conn: AlloggiatiConnection, token: string, day: string): Promise<Buffer> {
  const answer = await call(conn, 'Ricevuta', { Utente: conn.user, token, Data: `${day}T00:00:00` }, (xml) => readOutcome(xml, 'Ricevuta', 'PDF'));
  if (!answer.outcome.ok || !answer.value) throw new AlloggiatiRefusal(answer.outcome);
  return Buffer.from(answer.value, 'base64');
}

/** One of the service's code tables (Luoghi, Tipi_Documento, …) as its CSV (`;`-separated, a header first). */
export async function table(conn: AlloggiatiConnection, token: string, kind: 'Luoghi' | 'Tipi_Documento'): Promise<string> {
  const answer = await call(conn, 'Tabella', { Utente: conn.user, token, tipo: kind }, (xml) => readOutcome(xml, 'Tabella', 'CSV'));
  if (!answer.outcome.ok || answer.value === null) throw new AlloggiatiRefusal(answer.outcome);
  return answer.value;
}

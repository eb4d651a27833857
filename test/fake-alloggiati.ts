/**
 * A local Alloggiati Web for the tests: a Fastify server on 127.0.0.1 that speaks the service's
 * SOAP 1.2 as its WSDL says (GenerateToken, Authentication_Test, Test, Send, their
 * GestioneAppartamenti_ forms, Ricevuta), checks the user, password and WSKEY and then the token,
 * checks every row as the service does (its 168 characters, or 174 with an apartment; the guest
 * type; the arrival today or yesterday; at most 30 days; members straight after their head; a
 * document for heads and lone guests) and answers each row's `esito` in the manual's words. `Send`
 * keeps the valid rows of the day; `Ricevuta` answers that day's receipt as a PDF in Base64.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import PDFDocument from 'pdfkit';

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, trimValues: false, isArray: (name) => name === 'string' });
type Node = Record<string, unknown>;
const node = (v: unknown) => (v && typeof v === 'object' ? (v as Node) : {});
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The manual's error codes for a row. */
const WRONG_FORMAT = ['11', 'SCHEDINA_FORMATO_NON_CORRETTO'] as const;
const WRONG_FIELD = ['12', 'SCHEDINA_CAMPO_NON_CORRETTO'] as const;

const validDate = (s: string) => /^\d{2}\/\d{2}\/\d{4}$/.test(s) && !Number.isNaN(Date.parse(`${s.slice(6)}-${s.slice(3, 5)}-${s.slice(0, 2)}`));

/** Each row's problem, or null: in order, as the service checks them. */
function rowProblems(rows: string[], today: string, apartment: boolean): (readonly [string, string, string] | null)[] {
  const yesterday = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);
  const ddmmyyyy = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
  let head: string | null = null;
  return rows.map((row) => {
    if ([...row].length !== (apartment ? 174 : 168)) return [...WRONG_FORMAT, 'Dimensione Riga errata'];
    const field = (from: number, length: number) =>
      [...row]
        .slice(from, from + length)
        .join('')
        .trim();
    const type = field(0, 2);
    if (!['16', '17', '18', '19', '20'].includes(type)) return [...WRONG_FIELD, 'Tipo Alloggiato errato'];
    if (type === '19' && head !== '17') return [...WRONG_FIELD, 'Familiare senza Capo Famiglia'];
    if (type === '20' && head !== '18') return [...WRONG_FIELD, 'Membro Gruppo senza Capo Gruppo'];
    if (type !== '19' && type !== '20') head = type;
    const arrival = field(2, 10);
    if (!validDate(arrival) || ![ddmmyyyy(today), ddmmyyyy(yesterday)].includes(arrival)) return [...WRONG_FIELD, 'Data di Arrivo Errata'];
    const days = Number(field(12, 2));
    if (!Number.isInteger(days) || days < 1 || days > 30) return [...WRONG_FIELD, 'Giorni di Permanenza errati'];
    if (!field(14, 50) || !field(64, 30)) return [...WRONG_FIELD, 'Cognome o Nome mancante'];
    if (!['1', '2'].includes(field(94, 1))) return [...WRONG_FIELD, 'Sesso errato'];
    if (!validDate(field(95, 10))) return [...WRONG_FIELD, 'Data di Nascita errata'];
    const [comune, province, state, citizenship] = [field(105, 9), field(114, 2), field(116, 9), field(125, 9)];
    if (!PLACES.has(state) || !PLACES.has(citizenship)) return [...WRONG_FIELD, 'Stato errato'];
    if (state === '100000100' && (!/^\d{9}$/.test(comune) || !/^[A-Z]{2}$/.test(province))) return [...WRONG_FIELD, 'Comune di Nascita errato'];
    const [docType, docNumber, docPlace] = [field(134, 5), field(139, 20), field(159, 9)];
    if (type === '19' || type === '20') {
      if (docType || docNumber || docPlace) return [...WRONG_FIELD, 'Documento non previsto per il tipo alloggiato'];
    } else if (!DOCUMENTS.has(docType) || !docNumber || !PLACES.has(docPlace)) return [...WRONG_FIELD, 'Documento errato'];
    return null;
  });
}

export interface FakeAlloggiati {
  url: string;
  /** The rows filed by Send, by day (YYYY-MM-DD). */
  filed: Map<string, string[]>;
  /** The operations called, in order. */
  calls: string[];
  dropNext(n: number): void;
  /** Every answer from now on comes this late (0: at once), as a slow service's. */
  answerAfter(ms: number): void;
  close(): Promise<void>;
}

/**
 * The code tables `Tabella` answers, in the service's layout (a header, `;`-separated). Italy's
 * code is the service's own (100000100); the other codes are made up for the tests. A comune
 * valid until 1999 is there to check that a birthplace is looked up as it was on the birth date.
 */
export const TABLES: Record<string, string> = {
  Luoghi: [
    'Codice;Descrizione;Provincia;DataFineVal',
    '100000100;ITALIA;EE;',
    '100000215;FRANCIA;EE;',
    '100000216;GERMANIA;EE;',
    '100000239;SPAGNA;EE;',
    '100000219;REGNO UNITO;EE;',
    '415015146;MILANO;MI;',
    '415058091;ROMA;RM;',
    '401001999;CASTELNUOVO VECCHIO;TO;31/12/1999',
    '401002000;CASTELNUOVO NUOVO;TO;',
  ].join('\r\n'),
  Tipi_Documento: ['Codice;Descrizione', "IDENT;CARTA DI IDENTITA'", 'PASOR;PASSAPORTO ORDINARIO', 'PATEN;PATENTE DI GUIDA'].join('\r\n'),
};

/** The codes the tables hold: a row naming another is refused. */
const codes = (csv: string) =>
  new Set(
    csv
      .split(/\r?\n/)
      .slice(1)
      .map((l) => l.split(';')[0]!),
  );
const PLACES = codes(TABLES.Luoghi!);
const DOCUMENTS = codes(TABLES.Tipi_Documento!);

export async function startFakeAlloggiati(credentials: { user: string; password: string; wsKey: string }, today: () => string): Promise<FakeAlloggiati> {
  const app = Fastify();
  const tokens = new Set<string>();
  const filed = new Map<string, string[]>();
  const calls: string[] = [];
  let drop = 0;
  let slow = 0;
  let n = 0;
  app.addContentTypeParser(['application/soap+xml', 'text/xml'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const soap = (operation: string, inner: string) =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><${operation}Response xmlns="AlloggiatiService">${inner}</${operation}Response></soap:Body></soap:Envelope>`;
  const esito = (problem: readonly [string, string, string] | null) =>
    problem
      ? `<esito>false</esito><ErroreCod>${problem[0]}</ErroreCod><ErroreDes>${problem[1]}</ErroreDes><ErroreDettaglio>${problem[2]}</ErroreDettaglio>`
      : '<esito>true</esito><ErroreCod /><ErroreDes /><ErroreDettaglio />';
  const AUTH = ['1', 'AUTENTICAZIONE_FALLITA', 'Utente, password o WSKEY errati'] as const;
  const TOKEN = ['2', 'TOKEN_NON_VALIDO', 'Token scaduto o non valido'] as const;

  const receiptPdf = (day: string, rows: string[]) =>
    new Promise<Buffer>((resolve) => {
      const doc = new PDFDocument({ size: 'A4' });
      const chunks: Buffer[] = [];
      doc.on('data', (c: Buffer) => chunks.push(c));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      doc.fontSize(14).text(`Ricevuta Alloggiati Web del ${day}`);
      doc.fontSize(10).text(`Schedine trasmesse: ${rows.length}`);
      for (const r of rows) doc.text(`${r.slice(14, 64).trim()} ${r.slice(64, 94).trim()}`);
      doc.end();
    });

  app.post('/*', async (req, reply) => {
    if (drop > 0) {
      drop--;
      req.raw.socket.destroy();
      return reply;
    }
    if (slow > 0) await new Promise((r) => setTimeout(r, slow));
    reply.header('content-type', 'application/soap+xml; charset=utf-8');
    const body = node(node(node(parser.parse(String(req.body ?? ''))).Envelope).Body);
    const [operation, fields] = Object.entries(body).map(([k, v]) => [k, node(v)] as const)[0] ?? ['', {}];
    calls.push(operation);
    if (operation === 'GenerateToken') {
      if (str(fields.Utente) !== credentials.user || str(fields.Password) !== credentials.password || str(fields.WsKey) !== credentials.wsKey)
        return soap(operation, `<GenerateTokenResult><issued>0001-01-01T00:00:00</issued><expires>0001-01-01T00:00:00</expires></GenerateTokenResult><result>${esito(AUTH)}</result>`);
      const token = `TOKEN${++n}`;
      tokens.add(token);
      return soap(
        operation,
        `<GenerateTokenResult><issued>${new Date().toISOString()}</issued><expires>${new Date(Date.now() + 3_600_000).toISOString()}</expires><token>${token}</token></GenerateTokenResult><result>${esito(null)}</result>`,
      );
    }
    const tokenOk = str(fields.Utente) === credentials.user && tokens.has(str(fields.token));
    if (operation === 'Authentication_Test') return soap(operation, `<Authentication_TestResult>${esito(tokenOk ? null : TOKEN)}</Authentication_TestResult>`);
    const rowCall = /^(GestioneAppartamenti_)?(Test|Send)$/.exec(operation);
    if (rowCall) {
      if (!tokenOk) return soap(operation, `<${operation}Result>${esito(TOKEN)}</${operation}Result><result><SchedineValide>0</SchedineValide></result>`);
      const rows = ((node(fields.ElencoSchedine).string as unknown[]) ?? []).map(str);
      if (rows.length > 1000)
        return soap(operation, `<${operation}Result>${esito(['13', 'TROPPE_SCHEDINE', 'Massimo 1000 schedine'])}</${operation}Result><result><SchedineValide>0</SchedineValide></result>`);
      const problems = rowProblems(rows, today(), Boolean(rowCall[1]));
      if (rowCall[2] === 'Send') filed.set(today(), [...(filed.get(today()) ?? []), ...rows.filter((_, i) => !problems[i])]);
      const valid = problems.filter((p) => !p).length;
      return soap(
        operation,
        `<${operation}Result>${esito(null)}</${operation}Result><result><SchedineValide>${valid}</SchedineValide><Dettaglio>${problems.map((p) => `<EsitoOperazioneServizio>${esito(p)}</EsitoOperazioneServizio>`).join('')}</Dettaglio></result>`,
      );
    }
    if (operation === 'Tabella') {
      if (!tokenOk) return soap(operation, `<TabellaResult>${esito(TOKEN)}</TabellaResult>`);
      const csv = TABLES[str(fields.tipo)];
      if (csv === undefined) return soap(operation, `<TabellaResult>${esito(['3', 'TABELLA_NON_VALIDA', str(fields.tipo)])}</TabellaResult>`);
      return soap(operation, `<TabellaResult>${esito(null)}</TabellaResult><CSV>${csv.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</CSV>`);
    }
    if (operation === 'Ricevuta') {
      if (!tokenOk) return soap(operation, `<RicevutaResult>${esito(TOKEN)}</RicevutaResult>`);
      const day = str(fields.Data).slice(0, 10);
      const rows = filed.get(day);
      if (!rows) return soap(operation, `<RicevutaResult>${esito(['20', 'RICEVUTA_NON_DISPONIBILE', `Nessuna schedina inviata il ${day}`])}</RicevutaResult>`);
      return soap(operation, `<RicevutaResult>${esito(null)}</RicevutaResult><PDF>${(await receiptPdf(day, rows)).toString('base64')}</PDF>`);
    }
    return reply
      .code(500)
      .send(
        `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><soap:Fault><soap:Code><soap:Value>soap:Sender</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="it">Operazione sconosciuta: ${operation}</soap:Text></soap:Reason></soap:Fault></soap:Body></soap:Envelope>`,
      );
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/service/service.asmx`,
    filed,
    calls,
    dropNext: (k) => void (drop = k),
    answerAfter: (ms) => void (slow = ms),
    close: () => app.close(),
  };
}

/**
 * A local SIBA for the tests: a Fastify server on 127.0.0.1 that speaks the service's SOAP as its
 * WSDL says (one operation, `EntregaBoletinsAlojamento`, SOAPAction `http://sef.pt/...`) and answers
 * as the recorded exchanges with its development service do (`0` in the recorded envelope). It
 * checks the unit and key (code 60 otherwise, in the service's words), validates every file it
 * is given against the shared `bal.xsd` with libxml2 (xmllint-wasm) and every country against
 * the shared ICAO table, refuses a file whose number is not above the last one taken from
 * that establishment, and can refuse a guest's bulletin by document number (`ErrosBA`, its `Linha`).
 * It can also drop a connection, answer an HTML error page, or answer late.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import { validateXML } from 'xmllint-wasm';

const SHARED = fileURLToPath(new URL('../../shared/authority/siba/', import.meta.url));
/** Whether the shared SIBA files (bal.xsd, countries.xml) are beside this checkout: a copy of the tree elsewhere skips what needs them. */
export const SIBA_FILES_PRESENT = existsSync(`${SHARED}bal.xsd`) && existsSync(`${SHARED}countries.xml`);

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, trimValues: true, isArray: (name) => name === 'Boletim_Alojamento' });
type Node = Record<string, unknown>;
const node = (v: unknown) => (v && typeof v === 'object' ? (v as Node) : {});
const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** What the service has taken: each file, decoded, with its unit, establishment and number. */
export interface TakenFile {
  /** The service it was delivered to: `/bawsdev/…` the development service, `/baws/…` production. */
  service: 'development' | 'production';
  unit: string;
  establishment: string;
  number: number;
  xml: string;
  bulletins: Node[];
}

export interface FakeSiba {
  url: string;
  taken: TakenFile[];
  /** Every request's problems the fake found (XSD, ICAO, numbering): a test asserts none. */
  invalid: string[];
  /** The bulletins with this document number are refused with this code and words (null: taken again). */
  refuseDocument(number: string, refusal: { code: string; words: string } | null): void;
  dropNext(n: number): void;
  /** The next n files are taken, and their connection dropped before the answer: an answer lost on its way back. */
  dropAfterTaking(n: number): void;
  htmlNext(n: number): void;
  answerAfter(ms: number): void;
  close(): Promise<void>;
}

const envelope = (result: string) =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><EntregaBoletinsAlojamentoResponse xmlns="http://sef.pt/"><EntregaBoletinsAlojamentoResult>${result}</EntregaBoletinsAlojamentoResult></EntregaBoletinsAlojamentoResponse></soap:Body></soap:Envelope>`;
const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const errors = (lines: { line: number; code: string; words: string }[]) =>
  escape(`<ErrosBA>${lines.map((l) => `<RetornoBA><Linha>${l.line}</Linha><Codigo_Retorno>${l.code}</Codigo_Retorno><Descricao>${l.words}</Descricao></RetornoBA>`).join('')}</ErrosBA>`);

/** Starts a SIBA that takes these units (NIPC, establishment and key). */
export async function startFakeSiba(units: { unit: string; establishment: string; key: string }[]): Promise<FakeSiba> {
  const XSD = readFileSync(`${SHARED}bal.xsd`, 'utf8');
  // SIBA's ICAO codes (Germany is D, not DEU).
  const ICAO = new Set([...readFileSync(`${SHARED}countries.xml`, 'utf8').matchAll(/<Codigo_ICAO>([^<]+)<\/Codigo_ICAO>/g)].map((m) => m[1]!.trim()));
  const app = Fastify({ bodyLimit: 10 * 1024 * 1024 });
  const taken: TakenFile[] = [];
  const invalid: string[] = [];
  const refused = new Map<string, { code: string; words: string }>();
  const lastNumber = new Map<string, number>();
  let drop = 0;
  let dropAfter = 0;
  let html = 0;
  let slow = 0;
  app.addContentTypeParser(['text/xml', 'application/soap+xml'], { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.post('/*', async (req, reply) => {
    if (drop > 0) {
      drop--;
      req.raw.socket.destroy();
      return reply;
    }
    if (slow > 0) await new Promise((r) => setTimeout(r, slow));
    if (html > 0) {
      html--;
      return reply.code(503).type('text/html').send('<html><body><h1>Service Unavailable</h1></body></html>');
    }
    reply.type('text/xml; charset=utf-8');
    if (String(req.headers.soapaction ?? '').replaceAll('"', '') !== 'http://sef.pt/EntregaBoletinsAlojamento') invalid.push(`SOAPAction ${String(req.headers.soapaction)}`);
    const call = node(node(node(node(parser.parse(String(req.body ?? ''))).Envelope).Body).EntregaBoletinsAlojamento);
    const [unit, establishment, key] = [str(call.UnidadeHoteleira), str(call.Estabelecimento), str(call.ChaveAcesso)];
    if (!units.some((u) => u.unit === unit && Number(u.establishment) === Number(establishment) && u.key === key))
      return envelope(errors([{ line: 0, code: '60', words: 'Não foi possível autenticar a Unidade Hoteleira' }]));
    const xml = Buffer.from(str(call.Boletins), 'base64').toString('utf8');
    const check = await validateXML({ xml: [{ fileName: 'boletins.xml', contents: xml }], schema: [{ fileName: 'bal.xsd', contents: XSD }] });
    if (!check.valid) {
      invalid.push(...check.errors.map((e) => e.rawMessage));
      return envelope(errors([{ line: 0, code: '10', words: 'Ficheiro inválido' }]));
    }
    const doc = node(node(parser.parse(xml)).MovimentoBAL);
    const bulletins = ((doc.Boletim_Alojamento as unknown[]) ?? []).map(node);
    const problems: { line: number; code: string; words: string }[] = [];
    bulletins.forEach((b, i) => {
      for (const f of ['Nacionalidade', 'Pais_Emissor_Documento', 'Pais_Residencia_Origem'])
        if (!ICAO.has(str(b[f]))) {
          invalid.push(`${f} ${str(b[f])} is not an ICAO code of SIBA's table`);
          problems.push({ line: i + 1, code: '21', words: `${f} inválido` });
        }
      const refusal = refused.get(str(b.Documento_Identificacao));
      if (refusal) problems.push({ line: i + 1, code: refusal.code, words: refusal.words });
    });
    const number = Number(str(node(doc.Envio).Numero_Ficheiro));
    const which = `${unit}/${Number(establishment)}`;
    if (number <= (lastNumber.get(which) ?? 0)) {
      invalid.push(`file number ${number} after ${lastNumber.get(which)}`);
      problems.push({ line: 0, code: '30', words: 'Número de ficheiro já utilizado' });
    }
    if (problems.length) return envelope(errors(problems));
    lastNumber.set(which, number);
    taken.push({ service: req.url.includes('/bawsdev/') ? 'development' : 'production', unit, establishment, number, xml, bulletins });
    if (dropAfter > 0) {
      dropAfter--;
      req.raw.socket.destroy();
      return reply;
    }
    return envelope('0');
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/bawsdev/boletinsalojamento.asmx`,
    taken,
    invalid,
    refuseDocument: (number, refusal) => void (refusal ? refused.set(number, refusal) : refused.delete(number)),
    dropNext: (k) => void (drop = k),
    dropAfterTaking: (k) => void (dropAfter = k),
    htmlNext: (k) => void (html = k),
    answerAfter: (ms) => void (slow = ms),
    close: () => app.close(),
  };
}

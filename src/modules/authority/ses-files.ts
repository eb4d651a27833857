/**
 * Spain's SES.HOSPEDAJES (Ministerio del Interior, Real Decreto 933/2021), as its manual v3.1.3
 * and its XSDs describe it: the guests' part (PV) of a stay built as `altaParteHospedaje.xsd`
 * says, zipped then Base64 in a SOAP `comunicacionRequest` with its header; the lot it answers
 * queried (`tipoOperacion` C) until processed; communications cancelled (B) by their codes.
 *
 * Only files and answers here: no I/O. The answers are read as the servers really send them,
 * the manual's own misspellings included (`codigoRetorno` for `codigo`, `resutadoComunicacion`,
 * `tipoComuniacion`).
 */
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { strToU8, zipSync } from 'fflate';

export const SES_NS = {
  soap: 'http://schemas.xmlsoap.org/soap/envelope/',
  service: 'http://www.soap.servicios.hospedajes.mir.es/comunicacion',
  part: 'http://www.neg.hospedajes.mir.es/altaParteHospedaje',
  query: 'http://www.neg.hospedajes.mir.es/consultarComunicacion',
  cancel: 'http://www.neg.hospedajes.mir.es/anularComunicacion',
} as const;

/** An address as the part gives it: `codigoMunicipio` (INE, five digits) in Spain, `nombreMunicipio` abroad. */
export interface SesAddress {
  direccion: string;
  direccionComplementaria?: string | undefined;
  codigoMunicipio?: string | undefined;
  nombreMunicipio?: string | undefined;
  codigoPostal: string;
  /** ISO 3166-1 alpha-3. */
  pais: string;
}

/** One guest, in the XSD's order. */
export interface SesPerson {
  nombre: string;
  apellido1: string;
  apellido2?: string | undefined;
  tipoDocumento?: string | undefined;
  numeroDocumento?: string | undefined;
  soporteDocumento?: string | undefined;
  /** YYYY-MM-DD. */
  fechaNacimiento: string;
  nacionalidad?: string | undefined;
  sexo?: string | undefined;
  direccion: SesAddress;
  telefono?: string | undefined;
  telefono2?: string | undefined;
  correo?: string | undefined;
  /** A minor's relationship to an adult of the stay (TIPO_PARENTESCO). */
  parentesco?: string | undefined;
}

/** One stay: its contract and its guests, one communication of a part. */
export interface SesStay {
  referencia: string;
  /** YYYY-MM-DD. */
  fechaContrato: string;
  /** Local date and time, YYYY-MM-DDTHH:MM:SS. */
  fechaEntrada: string;
  fechaSalida: string;
  numHabitaciones?: number | undefined;
  internet?: boolean | undefined;
  pago: { tipoPago: string; fechaPago?: string | undefined; medioPago?: string | undefined; titular?: string | undefined; caducidadTarjeta?: string | undefined };
  personas: SesPerson[];
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', suppressEmptyNode: false, format: false });
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>';

/** The object with its unset fields dropped, its order kept (the XSD's sequence). */
const present = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== '')) as T;

/**
 * The part's file (`altaParteHospedaje.xsd`): the establishment's code, then one communication a
 * stay. Its children are unqualified, as the schema (no elementFormDefault) and the manual's
 * example have them; accents are kept ("García", "2ºB" in the manual).
 */
export function partFile(codigoEstablecimiento: string, stays: SesStay[]): string {
  const comunicacion = stays.map((s) => ({
    contrato: present({
      referencia: s.referencia,
      fechaContrato: s.fechaContrato,
      fechaEntrada: s.fechaEntrada,
      fechaSalida: s.fechaSalida,
      numPersonas: s.personas.length,
      numHabitaciones: s.numHabitaciones,
      internet: s.internet,
      pago: present(s.pago),
    }),
    persona: s.personas.map((p) =>
      present({
        rol: 'VI',
        nombre: p.nombre,
        apellido1: p.apellido1,
        apellido2: p.apellido2,
        tipoDocumento: p.tipoDocumento,
        numeroDocumento: p.numeroDocumento,
        soporteDocumento: p.soporteDocumento,
        fechaNacimiento: p.fechaNacimiento,
        nacionalidad: p.nacionalidad,
        sexo: p.sexo,
        direccion: present(p.direccion),
        telefono: p.telefono,
        telefono2: p.telefono2,
        correo: p.correo,
        parentesco: p.parentesco,
      }),
    ),
  }));
  return XML_HEAD + builder.build({ 'alt:peticion': { '@xmlns:alt': SES_NS.part, solicitud: { codigoEstablecimiento, comunicacion } } });
}

/** The query's file (`consultarComunicacion.xsd`): the lots asked about, ten at most a request. */
export function queryFile(lots: string[]): string {
  return XML_HEAD + builder.build({ 'con:lotes': { '@xmlns:con': SES_NS.query, 'con:lote': lots } });
}

/** The cancellation's file (`anularComunicacion.xsd`): the communications' codes. */
export function cancelFile(codes: string[]): string {
  return XML_HEAD + builder.build({ 'anul:comunicaciones': { '@xmlns:anul': SES_NS.cancel, 'anul:codigoComunicacion': codes } });
}

/** A file as `solicitud` carries it: a ZIP archive of it, in Base64 (anything else is error 10111). */
export function packed(file: string, name = 'solicitud.xml'): string {
  return Buffer.from(zipSync({ [name]: strToU8(file) }, { level: 6 })).toString('base64');
}

export interface SesHeader {
  codigoArrendador: string;
  /** The software sending (≤ 50). */
  aplicacion: string;
}

/** The SOAP request of the `comunicacion` operation: A (create, with its type), C (query) or B (cancel). */
export function comunicacionRequest(header: SesHeader, operation: 'A' | 'B' | 'C', solicitud: string, tipoComunicacion?: 'PV'): string {
  const cabecera = present({ codigoArrendador: header.codigoArrendador, aplicacion: header.aplicacion, tipoOperacion: operation, tipoComunicacion });
  return envelope({ 'com:comunicacionRequest': { peticion: { cabecera, solicitud } } });
}

/** The SOAP request of the `catalogo` operation: one code table (SEXO, TIPO_DOCUMENTO, …); the check on saving credentials. */
export function catalogoRequest(catalogo: string): string {
  return envelope({ 'com:catalogoRequest': { peticion: { catalogo } } });
}

function envelope(body: object): string {
  return (
    XML_HEAD +
    builder.build({
      'soapenv:Envelope': { '@xmlns:soapenv': SES_NS.soap, '@xmlns:com': SES_NS.service, 'soapenv:Header': '', 'soapenv:Body': body },
    })
  );
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => ['resultado', 'resultadoComunicacion', 'resutadoComunicacion', 'tupla'].includes(name),
});

type Node = Record<string, unknown>;
const nodeOf = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const list = (v: unknown): Node[] => (Array.isArray(v) ? v.map(nodeOf) : v === undefined ? [] : [nodeOf(v)]);

/** The SOAP body's one element, or the fault the server answered with. */
function body(xml: string): { name: string; node: Node } {
  const parsed = nodeOf(parser.parse(xml));
  const soapBody = nodeOf(nodeOf(parsed.Envelope).Body);
  const fault = nodeOf(soapBody.Fault);
  if (Object.keys(fault).length) throw new SesFault(text(fault.faultstring) ?? 'the server answered with a SOAP fault');
  const [name, node] = Object.entries(soapBody)[0] ?? [];
  if (!name) throw new SesFault('the answer holds no SOAP body');
  return { name, node: nodeOf(node) };
}

/** An answer that is no answer of the service: a fault, or not its XML. */
export class SesFault extends Error {}

/** A code and its words, from `codigo` or the manual's `codigoRetorno`. */
function status(node: Node): { code: number; description: string } {
  const raw = text(node.codigo) ?? text(node.codigoRetorno);
  const code = Number(raw);
  if (raw === undefined || !Number.isInteger(code)) throw new SesFault('the answer holds no result code');
  return { code, description: text(node.descripcion) ?? '' };
}

/** What a create (A) or a cancellation (B) answered: 0 and the lot when received (received, not yet accepted). */
export function readComunicacionResponse(xml: string): { code: number; description: string; lot: string | null } {
  const { node } = body(xml);
  const answer = nodeOf(node.respuesta);
  return { ...status(answer), lot: text(answer.lote) ?? null };
}

/** A lot's state (`codigoEstado`): 1 processed, 2 header or format error, 3 unexpected error, 4 in progress, 5 pending, 6 processed with errors. */
export type LotState = 1 | 2 | 3 | 4 | 5 | 6;

export interface CommunicationResult {
  /** The communication's place in the part, from 1. */
  order: number;
  /** The proof of filing (36 characters), when accepted. */
  code: string | null;
  errorType: string | null;
  error: string | null;
}

export interface LotResult {
  lot: string;
  state: LotState;
  stateWords: string;
  results: CommunicationResult[];
}

/** What a query (C) answered: the request's own status, and each lot asked about. */
export function readQueryResponse(xml: string): { code: number; description: string; lots: LotResult[] } {
  const { node } = body(xml);
  const lots = list(node.resultado).map((r) => {
    const results = nodeOf(r.resultadoComunicaciones);
    return {
      lot: text(r.lote) ?? '',
      state: Number(text(r.codigoEstado)) as LotState,
      stateWords: text(r.descEstado) ?? '',
      results: [...list(results.resultadoComunicacion), ...list(results.resutadoComunicacion)].map((c) => ({
        order: Number(text(c.orden)),
        code: text(c.codigoComunicacion) ?? null,
        errorType: text(c.tipoError) ?? null,
        error: text(c.error) ?? null,
      })),
    };
  });
  return { ...status(nodeOf(node.respuesta)), lots };
}

/** What `catalogo` answered: its status and the table's codes with their words. */
export function readCatalogoResponse(xml: string): { code: number; description: string; entries: { code: string; words: string }[] } {
  const { node } = body(xml);
  // `resultado` is a list wherever it appears (a query's lots); the table's is one.
  const table = list(nodeOf(node.respuesta).resultado)[0] ?? {};
  const entries = list(table.tupla).map((t) => ({ code: text(t.codigo) ?? '', words: text(t.descripcion) ?? '' }));
  return { ...status(list(node.resultado)[0] ?? {}), entries };
}

/**
 * Italy's Alloggiati Web (Polizia di Stato, TULPS art. 109), as its WSDL and web-service manual
 * describe it: each guest a row of 168 characters (174 with a short-let account's apartment),
 * family and group members straight after their head, sent as `ElencoSchedine` to `Test` (checks
 * only) or `Send` after `GenerateToken`; each row's `esito` read back; the day's receipt
 * (`Ricevuta`) a Base64 PDF. Only rows, envelopes and answers here: no I/O.
 */
import { XMLBuilder, XMLParser } from 'fast-xml-parser';

export const ALLOGGIATI_NS = 'AlloggiatiService';

/** The guest types (Tipi_Alloggiato): alone, a family's head, a group's leader, a family's member, a group's member. */
export type GuestType = '16' | '17' | '18' | '19' | '20';
export const HEADS: ReadonlySet<GuestType> = new Set(['17', '18']);
export const MEMBERS: ReadonlySet<GuestType> = new Set(['19', '20']);

export interface GuestRow {
  type: GuestType;
  /** YYYY-MM-DD: today or yesterday only, as the service takes it. */
  arrival: string;
  /** Nights, 1 to 30. */
  days: number;
  surname: string;
  givenNames: string;
  /** 1 male, 2 female. */
  sex: '1' | '2';
  /** YYYY-MM-DD. */
  birthDate: string;
  /** The comune's code (Luoghi) when born in Italy, with its province; blank when born abroad. */
  birthComune?: string | undefined;
  birthProvince?: string | undefined;
  /** The state's code (Luoghi; Italy 100000100). */
  birthState: string;
  citizenship: string;
  /** A head's or a lone guest's document: its type (Tipi_Documento), number and place of issue (a comune's code in Italy, else a state's). Members leave them blank. */
  documentType?: string | undefined;
  documentNumber?: string | undefined;
  documentPlace?: string | undefined;
}

/** The layout: each field's length, in order (AUTHORITIES.md, as five implementations agree). */
const LAYOUT = [
  ['type', 2],
  ['arrival', 10],
  ['days', 2],
  ['surname', 50],
  ['givenNames', 30],
  ['sex', 1],
  ['birthDate', 10],
  ['birthComune', 9],
  ['birthProvince', 2],
  ['birthState', 9],
  ['citizenship', 9],
  ['documentType', 5],
  ['documentNumber', 20],
  ['documentPlace', 9],
] as const;
export const ROW_LENGTH = 168;
export const APARTMENT_ROW_LENGTH = 174;

/** A field too long for its place in the row. */
export class RowOverflow extends Error {}

const ddmmyyyy = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
/** Characters, not UTF-16 units: the layout counts what a reader sees. */
const chars = (s: string) => [...s].length;

/** One guest's row: each field left-aligned and padded with spaces to its length; a member's document fields blank. */
export function guestRow(g: GuestRow, apartment?: string): string {
  const member = MEMBERS.has(g.type);
  const value = (field: (typeof LAYOUT)[number][0]): string => {
    if (member && (field === 'documentType' || field === 'documentNumber' || field === 'documentPlace')) return '';
    if (field === 'arrival' || field === 'birthDate') return ddmmyyyy(g[field]);
    if (field === 'days') return String(g.days).padStart(2, '0');
    return (g[field] ?? '').toUpperCase();
  };
  let row = '';
  for (const [field, length] of LAYOUT) {
    const v = value(field);
    if (chars(v) > length) throw new RowOverflow(`${field} "${v}" is longer than its ${length} characters`);
    row += v + ' '.repeat(length - chars(v));
  }
  if (apartment !== undefined) {
    if (chars(apartment) > 6) throw new RowOverflow(`the apartment's id "${apartment}" is longer than 6 characters`);
    row += apartment.padEnd(6, ' ');
  }
  return row;
}

/**
 * The rows in the order the service takes them: each family's or group's members straight after
 * their head. `groups` holds each stay's guests, its head (type 17 or 18) or lone guest first.
 */
export function orderedRows(groups: GuestRow[][], apartment?: string): string[] {
  return groups.flatMap((guests) => {
    const heads = guests.filter((g) => !MEMBERS.has(g.type));
    const members = guests.filter((g) => MEMBERS.has(g.type));
    if (members.length && !(heads.length === 1 && HEADS.has(heads[0]!.type))) throw new RowOverflow('members of a family or group need one head (type 17 or 18) in the same stay');
    return [...heads, ...members].map((g) => guestRow(g, apartment));
  });
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', format: false });

/** A SOAP 1.2 request of one operation, its fields in the WSDL's order. */
export function request(operation: string, fields: Record<string, unknown>): string {
  const prefixed = Object.fromEntries(Object.entries(fields).map(([k, v]) => [`all:${k}`, v]));
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    builder.build({
      'soap:Envelope': { '@xmlns:soap': 'http://www.w3.org/2003/05/soap-envelope', '@xmlns:all': ALLOGGIATI_NS, 'soap:Header': '', 'soap:Body': { [`all:${operation}`]: prefixed } },
    })
  );
}

/** The rows as `ElencoSchedine` carries them. */
export const rowList = (rows: string[]) => ({ 'all:string': rows });

const parser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'EsitoOperazioneServizio' });

type Node = Record<string, unknown>;
const nodeOf = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** An outcome as the service gives it: `esito`, and where false its code, name and detail. */
export interface Outcome {
  ok: boolean;
  code: string | null;
  name: string | null;
  detail: string | null;
}

const outcome = (n: Node): Outcome => ({ ok: text(n.esito) === 'true', code: text(n.ErroreCod), name: text(n.ErroreDes), detail: text(n.ErroreDettaglio) });

/** An answer that is no answer of the service: a fault, or not its XML. */
export class AlloggiatiFault extends Error {}

/** The operation's response element. */
export function responseOf(xml: string, operation: string): Node {
  const body = nodeOf(nodeOf(nodeOf(parser.parse(xml)).Envelope).Body);
  const fault = nodeOf(body.Fault);
  if (Object.keys(fault).length)
    throw new AlloggiatiFault(text(nodeOf(nodeOf(fault.Reason).Text)['#text']) ?? text(nodeOf(fault.Reason).Text) ?? text(fault.faultstring) ?? 'the server answered with a SOAP fault');
  const response = body[`${operation}Response`];
  if (!response) throw new AlloggiatiFault(`the answer holds no ${operation}Response`);
  return nodeOf(response);
}

/** GenerateToken's answer: the token and its expiry, or the refusal. */
export function readToken(xml: string): { outcome: Outcome; token: string | null; expires: string | null } {
  const r = responseOf(xml, 'GenerateToken');
  const info = nodeOf(r.GenerateTokenResult);
  return { outcome: outcome(nodeOf(r.result)), token: text(info.token), expires: text(info.expires) };
}

/** Test's or Send's answer: the call's own outcome, how many rows were valid, and each row's. */
export function readRows(xml: string, operation: string): { outcome: Outcome; valid: number; rows: Outcome[] } {
  const r = responseOf(xml, operation);
  const result = nodeOf(r.result);
  const rows = ((nodeOf(result.Dettaglio).EsitoOperazioneServizio as unknown[]) ?? []).map((n) => outcome(nodeOf(n)));
  return { outcome: outcome(nodeOf(r[`${operation}Result`])), valid: Number(text(result.SchedineValide) ?? 0), rows };
}

/** An answer with only its outcome (Authentication_Test), or with its outcome and a value (Ricevuta's PDF, Tabella's CSV). */
export function readOutcome(xml: string, operation: string, value?: string): { outcome: Outcome; value: string | null } {
  const r = responseOf(xml, operation);
  return { outcome: outcome(nodeOf(r[`${operation}Result`])), value: value ? text(r[value]) : null };
}

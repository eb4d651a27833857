/**
 * Portugal's SIBA (Sistema de Informação de Boletins de Alojamento), as its `bal.xsd` and its
 * service's WSDL describe it: a `MovimentoBAL` file (the establishment's block, one
 * `Boletim_Alojamento` a guest, the `Envio` with the file's number), in Base64 in the SOAP
 * `EntregaBoletinsAlojamento`; its answer `0` when taken, else `ErrosBA` line by line.
 *
 * Only files and answers here: no I/O.
 */
import countries from 'i18n-iso-countries';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';

export const SIBA_NS = { soap: 'http://schemas.xmlsoap.org/soap/envelope/', service: 'http://sef.pt/', file: 'http://sef.pt/BAws' } as const;
export const SIBA_ACTION = 'http://sef.pt/EntregaBoletinsAlojamento';

/** The establishment as every file's `Unidade_Hoteleira` block gives it, in the XSD's order and bounds. */
export interface SibaUnit {
  /** The host's NIPC (≤ 9). */
  Codigo_Unidade_Hoteleira: string;
  /** The establishment's number, `00` the first (≤ 2). */
  Estabelecimento: string;
  Nome: string;
  Abreviatura: string;
  Morada: string;
  Localidade: string;
  /** The postcode's first four digits, and its three after the dash. */
  Codigo_Postal: string;
  Zona_Postal: string;
  Telefone: string;
  Fax: string;
  Nome_Contacto: string;
  Email_Contacto?: string | undefined;
}

/** One guest's bulletin, in the XSD's order. Countries are SIBA's ICAO codes; dates `YYYY-MM-DD`. */
export interface SibaBulletin {
  /** The surname (never the given names: a mistake an open library makes). */
  Apelido: string;
  Nome?: string | undefined;
  Nacionalidade: string;
  Data_Nascimento: string;
  Local_Nascimento?: string | undefined;
  Documento_Identificacao: string;
  Pais_Emissor_Documento: string;
  /** P passport, B identity card, O other. */
  Tipo_Documento: 'P' | 'B' | 'O';
  Data_Entrada: string;
  Data_Saida?: string | undefined;
  Pais_Residencia_Origem: string;
  Local_Residencia_Origem: string;
}

/** The bounds `bal.xsd` sets, checked on saving an establishment and before a file is built. */
export const UNIT_BOUNDS: Record<keyof SibaUnit, number> = {
  Codigo_Unidade_Hoteleira: 9,
  Estabelecimento: 2,
  Nome: 40,
  Abreviatura: 15,
  Morada: 40,
  Localidade: 30,
  Codigo_Postal: 4,
  Zona_Postal: 3,
  Telefone: 10,
  Fax: 10,
  Nome_Contacto: 40,
  Email_Contacto: 140,
};
export const BULLETIN_BOUNDS = {
  Apelido: 40,
  Nome: 40,
  Local_Nascimento: 30,
  Documento_Identificacao: 16,
  Local_Residencia_Origem: 30,
} as const;

/**
 * Where SIBA's ICAO table (`countries.xml`) differs from ISO 3166 alpha-3: Germany and Kosovo have
 * their own codes, and the territories it does not list are reported as their state's nationals
 * (a Gibraltarian's passport is British, a Greenlander's Danish). Antarctica and Western Sahara
 * have no code there, and are left to SIBA's refusal.
 */
const ICAO_CODES: Record<string, string> = { DEU: 'D', XKK: 'RKS' };
const STATE_OF: Record<string, string> = {
  ...Object.fromEntries(['AIA', 'IOT', 'CYM', 'FLK', 'GIB', 'PCN', 'SHN', 'SGS', 'TCA', 'VGB', 'GGY', 'IMN', 'JEY'].map((c) => [c, 'GBR'])),
  ...Object.fromEntries(['ASM', 'UMI', 'VIR'].map((c) => [c, 'USA'])),
  ...Object.fromEntries(['ABW', 'CUW', 'SXM', 'BES'].map((c) => [c, 'NLD'])),
  ...Object.fromEntries(['GUF', 'PYF', 'ATF', 'GLP', 'MTQ', 'SPM', 'WLF', 'BLM', 'MAF'].map((c) => [c, 'FRA'])),
  ...Object.fromEntries(['CXR', 'CCK', 'HMD', 'NFK'].map((c) => [c, 'AUS'])),
  ...Object.fromEntries(['FRO', 'GRL'].map((c) => [c, 'DNK'])),
  BVT: 'NOR',
  SJM: 'NOR',
  TKL: 'NZL',
  ALA: 'FIN',
};

/** A country (ISO alpha-2) as SIBA's ICAO code: Germany `D`, most others their alpha-3. */
export function sibaCountry(alpha2: string): string {
  const alpha3 = countries.alpha2ToAlpha3(alpha2) ?? alpha2;
  return ICAO_CODES[alpha3] ?? STATE_OF[alpha3] ?? alpha3;
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', suppressEmptyNode: false, format: false });
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>';

/** Control characters XML 1.0 cannot carry (a file with one is refused whole), and line breaks or tabs, which no field of SIBA's holds: a space. */
const UNSENDABLE = /[\u0000-\u001F\u007F]+/g;
const clean = (v: unknown) => (typeof v === 'string' ? v.replace(UNSENDABLE, ' ').replace(/ {2,}/g, ' ').trim() : v);

/** The object with its unset fields dropped, its order kept (the XSD's sequence), its text cleaned. */
const present = <T extends object>(o: T) =>
  Object.fromEntries(
    Object.entries(o)
      .map(([k, v]) => [k, clean(v)])
      .filter(([, v]) => v !== undefined && v !== null && v !== ''),
  ) as T;

/** A date as the XSD's `xs:dateTime` at midnight, as SIBA's own examples write it. */
const dateTime = (day: string) => `${day.slice(0, 10)}T00:00:00`;

/** The establishment's block in the XSD's order: every field but the e-mail is required, Fax among them (empty when there is none). */
function unitBlock(unit: SibaUnit): Record<string, string> {
  const fields = (Object.keys(UNIT_BOUNDS) as (keyof SibaUnit)[]).map((k) => [k, String(clean(unit[k] ?? ''))] as const);
  return Object.fromEntries(fields.filter(([k, v]) => k !== 'Email_Contacto' || v !== ''));
}

/** A file's `MovimentoBAL`: the establishment, its guests, and the file's number and time (local, `YYYY-MM-DDTHH:MM:SS`). */
export function movimentoBal(unit: SibaUnit, bulletins: SibaBulletin[], envio: { number: number; at: string }): string {
  const Boletim_Alojamento = bulletins.map((b) =>
    present({
      Apelido: b.Apelido,
      Nome: b.Nome,
      Nacionalidade: b.Nacionalidade,
      Data_Nascimento: dateTime(b.Data_Nascimento),
      Local_Nascimento: b.Local_Nascimento,
      Documento_Identificacao: b.Documento_Identificacao,
      Pais_Emissor_Documento: b.Pais_Emissor_Documento,
      Tipo_Documento: b.Tipo_Documento,
      Data_Entrada: dateTime(b.Data_Entrada),
      Data_Saida: b.Data_Saida ? dateTime(b.Data_Saida) : undefined,
      Pais_Residencia_Origem: b.Pais_Residencia_Origem,
      Local_Residencia_Origem: b.Local_Residencia_Origem,
    }),
  );
  return (
    XML_HEAD +
    builder.build({
      MovimentoBAL: {
        '@xmlns': SIBA_NS.file,
        Unidade_Hoteleira: unitBlock(unit),
        Boletim_Alojamento,
        Envio: { Numero_Ficheiro: envio.number, Data_Movimento: envio.at.slice(0, 19) },
      },
    })
  );
}

/** The SOAP request: the unit, the establishment, the key and the file in Base64. */
export function entregaRequest(unit: string, establishment: string, key: string, file: string): string {
  return (
    XML_HEAD +
    builder.build({
      'soap:Envelope': {
        '@xmlns:soap': SIBA_NS.soap,
        'soap:Body': {
          EntregaBoletinsAlojamento: {
            '@xmlns': SIBA_NS.service,
            UnidadeHoteleira: unit,
            Estabelecimento: establishment,
            ChaveAcesso: key,
            Boletins: Buffer.from(file, 'utf8').toString('base64'),
          },
        },
      },
    })
  );
}

/** One line of SIBA's refusal: the bulletin (`Linha`, 1 the first guest; 0 the file itself), its code and words. */
export interface SibaError {
  line: number;
  code: string;
  description: string;
}

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false, trimValues: true });

/**
 * What SIBA answered: taken (`0`), or its errors; null when the answer is not the service's
 * (an HTML error page, a SOAP envelope without the result).
 */
export function readEntregaAnswer(body: string): { taken: true } | { taken: false; errors: SibaError[] } | null {
  let result: unknown;
  try {
    const doc = parser.parse(body) as { Envelope?: { Body?: { EntregaBoletinsAlojamentoResponse?: { EntregaBoletinsAlojamentoResult?: unknown } } } };
    result = doc.Envelope?.Body?.EntregaBoletinsAlojamentoResponse?.EntregaBoletinsAlojamentoResult;
  } catch {
    return null;
  }
  if (result === undefined || result === null) return null;
  const text = String(result).trim();
  if (text === '0') return { taken: true };
  // The errors come as XML escaped inside the result.
  let errors: SibaError[] = [];
  try {
    const inner = parser.parse(text) as { ErrosBA?: { RetornoBA?: unknown } };
    const lines = inner.ErrosBA?.RetornoBA;
    const list = (Array.isArray(lines) ? lines : lines ? [lines] : []) as { Linha?: unknown; Codigo_Retorno?: unknown; Descricao?: unknown }[];
    errors = list.map((l) => ({ line: Number(l.Linha ?? 0) || 0, code: String(l.Codigo_Retorno ?? '').trim(), description: String(l.Descricao ?? '').trim() }));
  } catch {
    // not XML: the words as they came
  }
  if (!errors.length) errors = [{ line: 0, code: text.slice(0, 20), description: text.slice(0, 500) }];
  return { taken: false, errors };
}

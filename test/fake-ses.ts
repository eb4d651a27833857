/**
 * A local SES.HOSPEDAJES for the tests: a Fastify server on 127.0.0.1 that speaks the service's
 * SOAP as `comunicacion.wsdl` says, checks the web-service user and password, unpacks each
 * `solicitud` (ZIP then Base64, else 10111), validates the file inside against the Ministry's
 * own XSDs (read from the shared directory beside the checkout, never copied into the project;
 * where they are not there, the files are only parsed), applies the rules
 * the manual checks beyond the XSD, and answers as the real service does: a lot, pending (5) then
 * in progress (4) on the queries that follow, then processed (1) or processed with errors (6)
 * with each communication's code or error, in the manual's spelling (`codigoRetorno`,
 * `resutadoComunicacion`, `tipoComuniacion`). A test can make the next requests fail on the wire.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import { unzipSync, strFromU8 } from 'fflate';
import { validateXML } from 'xmllint-wasm';

export const SES_XSD_DIR = path.join(import.meta.dirname, '..', '..', 'shared', 'authority', 'ses-hospedajes', 'v3.1.3');
/** The Ministry's files are read beside the checkout (never copied into it): where they are not, nothing is validated against them. */
export const SES_XSDS = existsSync(path.join(SES_XSD_DIR, 'altaParteHospedaje.xsd'));
const xsd = (name: string) => ({ fileName: name, contents: readFileSync(path.join(SES_XSD_DIR, name), 'utf8') });

/** A file validated against one of the Ministry's schemas (with the general types it imports): the errors, none when valid. */
export async function sesSchemaErrors(file: string, schema: 'altaParteHospedaje.xsd' | 'consultarComunicacion.xsd' | 'anularComunicacion.xsd'): Promise<string[]> {
  if (!SES_XSDS) return [];
  const result = await validateXML({ xml: { fileName: 'file.xml', contents: file }, schema: xsd(schema), preload: [xsd('tiposGenerales.xsd')] });
  return result.errors.map((e) => e.message);
}

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (name) => ['comunicacion', 'persona', 'lote', 'codigoComunicacion'].includes(name) });
type Node = Record<string, unknown>;
const node = (v: unknown) => (v && typeof v === 'object' ? (v as Node) : {});
const str = (v: unknown) => (typeof v === 'string' ? v : '');

interface Communication {
  order: number;
  code: string | null;
  errorType: string | null;
  error: string | null;
  reference: string;
  people: Node[];
  cancelled: boolean;
}
interface Lot {
  id: string;
  operation: 'A' | 'B';
  /** How many queries it has seen: pending on the first, in progress on the second, processed after. */
  queried: number;
  communications: Communication[];
}

const years = (born: string, on: string) => {
  const [b, d] = [new Date(born), new Date(on)];
  return d.getUTCFullYear() - b.getUTCFullYear() - (d.getUTCMonth() < b.getUTCMonth() || (d.getUTCMonth() === b.getUTCMonth() && d.getUTCDate() < b.getUTCDate()) ? 1 : 0);
};

/** The rules the manual checks beyond the XSD, for one communication: the first broken, in the service's words. */
function ministryRule(comunicacion: Node): string | null {
  const entrada = str(node(comunicacion.contrato).fechaEntrada).slice(0, 10);
  const people = (comunicacion.persona as Node[]) ?? [];
  const documents = new Set<string>();
  for (const p of people) {
    const [tipo, numero] = [str(p.tipoDocumento), str(p.numeroDocumento)];
    const adult = years(str(p.fechaNacimiento), entrada) >= 18;
    if (adult && (!tipo || !numero)) return `El tipo y número de documento son obligatorios para mayores de edad: ${str(p.nombre)}`;
    if ((tipo === 'NIF' || tipo === 'NIE') && !str(p.soporteDocumento)) return `El soporte del documento es obligatorio para NIF y NIE: ${str(p.nombre)}`;
    if (tipo === 'NIF' && !str(p.apellido2)) return `El segundo apellido es obligatorio para NIF: ${str(p.nombre)}`;
    if (!str(p.telefono) && !str(p.telefono2) && !str(p.correo)) return `Es obligatorio informar un teléfono o un correo electrónico: ${str(p.nombre)}`;
    const dir = node(p.direccion);
    if (str(dir.pais) === 'ESP' && !str(dir.codigoMunicipio)) return `El código de municipio es obligatorio para direcciones en España: ${str(p.nombre)}`;
    if (str(dir.pais) !== 'ESP' && !str(dir.nombreMunicipio)) return `El nombre del municipio es obligatorio para direcciones fuera de España: ${str(p.nombre)}`;
    if (numero && documents.has(numero)) return `Documento duplicado en la comunicación: ${numero}`;
    if (numero) documents.add(numero);
    if (!adult && !str(p.parentesco)) return `Es obligatorio informar el parentesco de los menores de edad: ${str(p.nombre)}`;
  }
  return null;
}

export interface FakeSes {
  url: string;
  /** The part files received, as unpacked. */
  parts: string[];
  /** Every SOAP request received, as sent. */
  requests: string[];
  /** The next n requests get no answer: the connection is closed. */
  dropNext(n: number): void;
  /** The next n requests are answered only after ms (a time-out for a client that waits less). */
  delayNext(n: number, ms: number): void;
  /** The lots created, to look into. */
  lots: Map<string, Lot>;
  close(): Promise<void>;
}

/** `validate: false` leaves the Ministry's XSDs out (a benchmark measures the client, not the schema check). */
export async function startFakeSes(credentials: { user: string; password: string; arrendador: string }, opts: { validate?: boolean } = {}): Promise<FakeSes> {
  const schemaErrors = opts.validate === false ? async () => [] : sesSchemaErrors;
  const app = Fastify();
  const lots = new Map<string, Lot>();
  const [parts, requests] = [[] as string[], [] as string[]];
  let [drop, delay, delayMs] = [0, 0, 0];
  app.addContentTypeParser(['text/xml', 'application/soap+xml'], { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const soap = (inner: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Header/><SOAP-ENV:Body>${inner}</SOAP-ENV:Body></SOAP-ENV:Envelope>`;
  const ns3 = (element: string, inner: string) => soap(`<ns3:${element} xmlns:ns3="http://www.soap.servicios.hospedajes.mir.es/comunicacion">${inner}</ns3:${element}>`);
  const answer = (code: number, words: string, lot?: string) =>
    ns3('comunicacionResponse', `<respuesta><codigoRetorno>${code}</codigoRetorno><descripcion>${words}</descripcion>${lot ? `<lote>${lot}</lote>` : ''}</respuesta>`);
  const unpack = (solicitud: string): string | null => {
    try {
      const files = Object.values(unzipSync(Buffer.from(solicitud, 'base64')));
      return files.length === 1 ? strFromU8(files[0]!) : null;
    } catch {
      return null;
    }
  };

  app.post('/*', async (req, reply) => {
    const raw = String(req.body ?? '');
    requests.push(raw);
    if (drop > 0) {
      drop--;
      req.raw.socket.destroy();
      return reply;
    }
    if (delay > 0) {
      delay--;
      await new Promise((r) => setTimeout(r, delayMs));
    }
    reply.header('content-type', 'text/xml;charset=UTF-8');
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Basic ')) return reply.code(401).send('');
    const [user, password] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
    const body = node(node(node(parser.parse(raw)).Envelope).Body);
    if (user !== credentials.user || password !== credentials.password) {
      const words = 'Usuario o contraseña incorrectos';
      if (body.catalogoRequest) return ns3('catalogoResponse', `<resultado><codigo>10107</codigo><descripcion>${words}</descripcion></resultado><respuesta><resultado/></respuesta>`);
      return answer(10107, words);
    }

    if (body.catalogoRequest) {
      const table = str(node(node(body.catalogoRequest).peticion).catalogo);
      const tables: Record<string, [string, string][]> = {
        TIPO_DOCUMENTO: [
          ['NIF', 'NIF'],
          ['NIE', 'NIE'],
          ['PAS', 'Pasaporte'],
          ['OTRO', 'Otro'],
        ],
        SEXO: [
          ['H', 'Hombre'],
          ['M', 'Mujer'],
          ['O', 'Otro'],
        ],
      };
      const rows = tables[table];
      if (!rows) return ns3('catalogoResponse', `<resultado><codigo>10130</codigo><descripcion>Catálogo no encontrado: ${table}</descripcion></resultado><respuesta><resultado/></respuesta>`);
      const tuples = rows.map(([c, d]) => `<tupla><codigo>${c}</codigo><descripcion>${d}</descripcion></tupla>`).join('');
      return ns3('catalogoResponse', `<resultado><codigo>0</codigo><descripcion>Ok</descripcion></resultado><respuesta><resultado>${tuples}</resultado></respuesta>`);
    }

    const peticion = node(node(body.comunicacionRequest).peticion);
    const cabecera = node(peticion.cabecera);
    if (!body.comunicacionRequest) return reply.code(500).send(soap('<SOAP-ENV:Fault><faultcode>SOAP-ENV:Client</faultcode><faultstring>Operación desconocida</faultstring></SOAP-ENV:Fault>'));
    if (str(cabecera.codigoArrendador) !== credentials.arrendador) return answer(10103, `No existe un arrendador para ese código: ${str(cabecera.codigoArrendador)}`);
    const file = unpack(str(peticion.solicitud));
    if (file === null) return answer(10111, 'Formato de solicitud incorrecto. Ha de ir comprimido (zip) y codificado en Base64.');
    const operation = str(cabecera.tipoOperacion);

    if (operation === 'A') {
      if (str(cabecera.tipoComunicacion) !== 'PV') return answer(10131, 'Campo obligatorio no informado: tipoComunicacion');
      const errors = await schemaErrors(file, 'altaParteHospedaje.xsd');
      if (errors.length) return answer(10121, `Error de validación del esquema: ${errors[0]}`);
      parts.push(file);
      const comunicaciones = (node(node(node(parser.parse(file)).peticion).solicitud).comunicacion as Node[]) ?? [];
      if (comunicaciones.length > 100) return answer(10136, 'Se ha superado el número máximo de comunicaciones');
      const lot: Lot = {
        id: randomUUID(),
        operation: 'A',
        queried: 0,
        communications: comunicaciones.map((c, i) => {
          const broken = ministryRule(c);
          return {
            order: i + 1,
            code: broken ? null : randomUUID(),
            errorType: broken ? 'Error validación de datos' : null,
            error: broken ? `Error de validación en la comunicación [${i + 1}]: [${broken}]` : null,
            reference: str(node(c.contrato).referencia),
            people: (c.persona as Node[]) ?? [],
            cancelled: false,
          };
        }),
      };
      lots.set(lot.id, lot);
      return answer(0, 'Ok', lot.id);
    }
    if (operation === 'C') {
      const errors = await schemaErrors(file, 'consultarComunicacion.xsd');
      if (errors.length) return answer(10121, `Error de validación del esquema: ${errors[0]}`);
      const asked = ((node(node(parser.parse(file)).lotes).lote as unknown[]) ?? []).map(str);
      if (asked.length > 10) return answer(10136, 'Se ha superado el número máximo de lotes');
      const results = asked
        .map((id) => lots.get(id))
        .filter((l): l is Lot => l !== undefined)
        .map((l) => {
          l.queried++;
          const state = l.queried === 1 ? 5 : l.queried === 2 ? 4 : l.communications.some((c) => c.error) ? 6 : 1;
          const words = { 1: 'Procesado', 4: 'En proceso', 5: 'Pendiente', 6: 'Se ha ejecutado pero hay errores en algunas comunicaciones' }[state];
          const each =
            state === 1 || state === 6
              ? `<resultadoComunicaciones>${l.communications
                  .map(
                    (c) =>
                      `<resutadoComunicacion><orden>${c.order}</orden>${c.code ? `<codigoComunicacion>${c.code}</codigoComunicacion>` : `<tipoError>${c.errorType}</tipoError><error>${c.error}</error>`}</resutadoComunicacion>`,
                  )
                  .join('')}</resultadoComunicaciones>`
              : '';
          return `<resultado><lote>${l.id}</lote><tipoComuniacion>PV</tipoComuniacion><tipoOperacion>${l.operation}</tipoOperacion><fechaPeticion>2026-01-01T10:00:00.000+01:00</fechaPeticion><fechaProcesamiento>2026-01-01T10:00:20.000+01:00</fechaProcesamiento><codigoEstado>${state}</codigoEstado><descEstado>${words}</descEstado><identificadorUsuario>B00000000</identificadorUsuario><nombreUsuario>${credentials.user}</nombreUsuario><codigoArrendador>${credentials.arrendador}</codigoArrendador><aplicacion>${str(cabecera.aplicacion)}</aplicacion>${each}</resultado>`;
        });
      return ns3('comunicacionResponse', `<respuesta><codigo>0</codigo><descripcion>Ok</descripcion></respuesta>${results.join('')}`);
    }
    if (operation === 'B') {
      const errors = await schemaErrors(file, 'anularComunicacion.xsd');
      if (errors.length) return answer(10121, `Error de validación del esquema: ${errors[0]}`);
      const codes = ((node(node(parser.parse(file)).comunicaciones).codigoComunicacion as unknown[]) ?? []).map(str);
      const found = [...lots.values()].flatMap((l) => l.communications).filter((c) => c.code && codes.includes(c.code));
      if (found.length !== codes.length) return answer(10130, 'Comunicación no encontrada');
      for (const c of found) c.cancelled = true;
      const lot: Lot = { id: randomUUID(), operation: 'B', queried: 0, communications: [] };
      lots.set(lot.id, lot);
      return answer(0, 'Ok', lot.id);
    }
    return answer(10130, `Tipo de operación no válido: ${operation}`);
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/hospedajes-web/ws/v1/comunicacion`,
    parts,
    requests,
    lots,
    dropNext: (n) => void (drop = n),
    delayNext: (n, ms) => void ([delay, delayMs] = [n, ms]),
    close: () => app.close(),
  };
}

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SES_XSDS, startFakeSes, sesSchemaErrors, type FakeSes } from '../../../test/fake-ses.js';
import { cancelCommunications, catalogue, queryLots, SesRefusal, sendPart, type SesConnection } from './ses.js';
import { AuthorityUnreachable } from './soap.js';
import { partFile, readQueryResponse, type SesStay } from './ses-files.js';

const CREDENTIALS = { user: 'B12345678WS', password: 'secreta', arrendador: '0000000001' };

/** A family of three at a flat in Madrid, as the manual's own example: accents, a minor with her parent. */
const stay = (reference: string, overrides: Partial<SesStay> = {}): SesStay => ({
  referencia: reference,
  fechaContrato: '2026-11-20',
  fechaEntrada: '2026-12-01T16:00:00',
  fechaSalida: '2026-12-04T11:00:00',
  numHabitaciones: 2,
  internet: true,
  pago: { tipoPago: 'PLATF', fechaPago: '2026-11-20' },
  personas: [
    {
      nombre: 'Juan',
      apellido1: 'García',
      apellido2: 'Núñez',
      tipoDocumento: 'NIF',
      numeroDocumento: '12345678Z',
      soporteDocumento: 'ABC123456',
      fechaNacimiento: '1980-05-02',
      nacionalidad: 'ESP',
      sexo: 'H',
      direccion: { direccion: 'C/ Serrano 127', direccionComplementaria: 'Portal A, 2ºB', codigoMunicipio: '28079', codigoPostal: '28006', pais: 'ESP' },
      telefono: '+34600111222',
    },
    {
      nombre: 'Ingrid',
      apellido1: 'Ødegård',
      tipoDocumento: 'PAS',
      numeroDocumento: 'NO1234567',
      fechaNacimiento: '1982-08-30',
      nacionalidad: 'NOR',
      sexo: 'M',
      direccion: { direccion: 'Storgata 1', nombreMunicipio: 'Oslo', codigoPostal: '0155', pais: 'NOR' },
      correo: 'ingrid@example.no',
    },
    {
      nombre: 'Lucía',
      apellido1: 'García',
      apellido2: 'Ødegård',
      fechaNacimiento: '2016-03-14',
      nacionalidad: 'ESP',
      sexo: 'M',
      direccion: { direccion: 'C/ Serrano 127', codigoMunicipio: '28079', codigoPostal: '28006', pais: 'ESP' },
      telefono: '+34600111222',
      parentesco: 'HJ',
    },
  ],
  ...overrides,
});

describe("Spain's SES.HOSPEDAJES", () => {
  let ses: FakeSes;
  let conn: SesConnection;
  before(async () => {
    ses = await startFakeSes(CREDENTIALS);
    conn = { endpoint: ses.url, user: CREDENTIALS.user, password: CREDENTIALS.password, codigoArrendador: CREDENTIALS.arrendador, aplicacion: 'guestscreen', timeoutMs: 2_000, allowPrivate: true };
  });
  after(() => ses.close());

  /** The lot asked about until processed: its states on the way, and its result. */
  const processed = async (lot: string) => {
    const states: number[] = [];
    for (;;) {
      const [result] = await queryLots(conn, [lot]);
      assert.ok(result, `lot ${lot} not found`);
      states.push(result.state);
      if (result.results.length || states.length > 5) return { states, result };
    }
  };

  it("builds a guests' part the Ministry's XSD takes, accents kept", { skip: !SES_XSDS && "the Ministry's XSDs are not beside this checkout" }, async () => {
    const file = partFile('0000000042', [stay('res_1'), stay('res_2')]);
    assert.deepEqual(await sesSchemaErrors(file, 'altaParteHospedaje.xsd'), []);
    assert.match(file, /<apellido1>Ødegård<\/apellido1>/);
    assert.match(file, /<direccionComplementaria>Portal A, 2ºB<\/direccionComplementaria>/);
    assert.match(file, /<numPersonas>3<\/numPersonas>/);
  });

  it('sends a part, sees its lot pending, then in progress, then each communication filed with its code', async () => {
    const { lot } = await sendPart(conn, '0000000042', [stay('res_ok')]);
    const { states, result } = await processed(lot);
    assert.deepEqual(states, [5, 4, 1]);
    assert.equal(result.results.length, 1);
    assert.match(result.results[0]!.code ?? '', /^[0-9a-f-]{36}$/);
  });

  it("reads a communication's error when the Ministry's rules refuse it, the others of the lot filed", async () => {
    const noContact = stay('res_bad');
    noContact.personas[1] = { ...noContact.personas[1]!, correo: undefined };
    const { lot } = await sendPart(conn, '0000000042', [stay('res_good'), noContact]);
    const { result } = await processed(lot);
    assert.equal(result.state, 6);
    const [good, bad] = result.results;
    assert.ok(good!.code);
    assert.equal(bad!.code, null);
    assert.match(bad!.error ?? '', /teléfono o un correo/);
  });

  it('cancels filed communications by their codes', async () => {
    const { lot } = await sendPart(conn, '0000000042', [stay('res_cancel')]);
    const code = (await processed(lot)).result.results[0]!.code!;
    assert.ok(await cancelCommunications(conn, [code]));
    assert.equal([...ses.lots.values()].flatMap((l) => l.communications).find((c) => c.code === code)?.cancelled, true);
  });

  it('checks credentials with the catalogue, and names a refused user', async () => {
    assert.deepEqual(
      (await catalogue(conn, 'TIPO_DOCUMENTO')).map((e) => e.code),
      ['NIF', 'NIE', 'PAS', 'OTRO'],
    );
    await assert.rejects(catalogue({ ...conn, password: 'wrong' }, 'SEXO'), (err: unknown) => err instanceof SesRefusal && err.code === 10107);
  });

  it('tells a dropped connection and a time-out (worth sending again) from a refusal', async () => {
    ses.dropNext(1);
    await assert.rejects(sendPart(conn, '0000000042', [stay('res_drop')]), AuthorityUnreachable);
    ses.delayNext(1, 500);
    await assert.rejects(sendPart({ ...conn, timeoutMs: 100 }, '0000000042', [stay('res_slow')]), AuthorityUnreachable);
    await assert.rejects(sendPart({ ...conn, codigoArrendador: '9999999999' }, '0000000042', [stay('res_x')]), (err: unknown) => err instanceof SesRefusal && err.code === 10103);
    // What the service would refuse is not sent.
    await assert.rejects(
      sendPart(
        conn,
        '0000000042',
        Array.from({ length: 101 }, (_, i) => stay(`res_${i}`)),
      ),
      RangeError,
    );
    await assert.rejects(
      queryLots(
        conn,
        Array.from({ length: 11 }, (_, i) => `lot-${i}`),
      ),
      RangeError,
    );
  });

  it("reads the answers in both spellings: the schema's and the manual's own", () => {
    const answer = (tag: string, code: string) =>
      `<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><ns3:comunicacionResponse xmlns:ns3="x"><respuesta><${code}>0</${code}><descripcion>Ok</descripcion></respuesta><resultado><lote>L1</lote><codigoEstado>1</codigoEstado><descEstado>Procesado</descEstado><resultadoComunicaciones><${tag}><orden>1</orden><codigoComunicacion>C1</codigoComunicacion></${tag}></resultadoComunicaciones></resultado></ns3:comunicacionResponse></S:Body></S:Envelope>`;
    for (const [tag, code] of [
      ['resultadoComunicacion', 'codigo'],
      ['resutadoComunicacion', 'codigoRetorno'],
    ])
      assert.deepEqual(readQueryResponse(answer(tag!, code!)).lots[0]!.results, [{ order: 1, code: 'C1', errorType: null, error: null }]);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIBA_FILES_PRESENT, startFakeSiba, type FakeSiba } from '../../../test/fake-siba.js';
import { AuthorityUnreachable } from './soap.js';
import { deliverBulletins, SibaRefusal, type SibaConnection } from './siba.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import countries from 'i18n-iso-countries';
import { movimentoBal, readEntregaAnswer, sibaCountry, type SibaBulletin, type SibaUnit } from './siba-files.js';

/** The development service's public fictitious unit, as the recorded exchanges use it. */
const UNIT = { unit: '121212121', establishment: '00', key: '999999999' };
const unitBlock: SibaUnit = {
  Codigo_Unidade_Hoteleira: UNIT.unit,
  Estabelecimento: UNIT.establishment,
  Nome: 'Casa do Rio',
  Abreviatura: 'CasaRio',
  Morada: 'Rua da Alegria, 172',
  Localidade: 'Porto',
  Codigo_Postal: '4000',
  Zona_Postal: '123',
  Telefone: '223456789',
  Fax: '',
  Nome_Contacto: 'Ana Costa',
  Email_Contacto: 'ana@casadorio.pt',
};
const stay = { Data_Entrada: '2026-07-01', Data_Saida: '2026-07-05' };
/** A family: a German father, a Brazilian mother, their German child. */
const family: SibaBulletin[] = [
  {
    Apelido: 'Müller',
    Nome: 'Jonas',
    Nacionalidade: 'D',
    Data_Nascimento: '1985-03-02',
    Local_Nascimento: 'München',
    Documento_Identificacao: 'C01X00T47',
    Pais_Emissor_Documento: 'D',
    Tipo_Documento: 'P',
    Pais_Residencia_Origem: 'D',
    Local_Residencia_Origem: 'Berlin',
    ...stay,
  },
  {
    Apelido: 'Souza Müller',
    Nome: 'Mariana',
    Nacionalidade: 'BRA',
    Data_Nascimento: '1988-11-20',
    Documento_Identificacao: 'FZ123456',
    Pais_Emissor_Documento: 'BRA',
    Tipo_Documento: 'P',
    Pais_Residencia_Origem: 'D',
    Local_Residencia_Origem: 'Berlin',
    ...stay,
  },
  {
    Apelido: 'Müller',
    Nome: 'Lea',
    Nacionalidade: 'D',
    Data_Nascimento: '2019-06-15',
    Documento_Identificacao: 'L01X00T48',
    Pais_Emissor_Documento: 'D',
    Tipo_Documento: 'B',
    Pais_Residencia_Origem: 'D',
    Local_Residencia_Origem: 'Berlin',
    ...stay,
  },
];

describe('SIBA: the file and the service', { skip: !SIBA_FILES_PRESENT && 'the shared SIBA files (bal.xsd, countries.xml) are not beside this checkout' }, () => {
  let siba: FakeSiba;
  let number = 0;
  const conn = (over: Partial<SibaConnection> = {}): SibaConnection => ({ endpoint: siba.url, ...UNIT, timeoutMs: 2000, allowPrivate: true, ...over });
  const file = (bulletins = family) => movimentoBal(unitBlock, bulletins, { number: ++number, at: '2026-07-01T18:30:05.123Z' });
  before(async () => {
    siba = await startFakeSiba([UNIT]);
  });
  after(() => siba.close());

  it('builds a file bal.xsd takes, with ICAO countries, and SIBA answers 0', async () => {
    await deliverBulletins(conn(), file());
    assert.deepEqual(siba.invalid, []);
    const taken = siba.taken.at(-1)!;
    assert.equal(taken.bulletins.length, 3);
    // The surname in Apelido, the given names in Nome; dates as xs:dateTime.
    assert.equal(taken.bulletins[0]!.Apelido, 'Müller');
    assert.equal(taken.bulletins[0]!.Nome, 'Jonas');
    assert.equal(taken.bulletins[1]!.Nacionalidade, 'BRA');
    assert.equal(taken.bulletins[2]!.Data_Nascimento, '2019-06-15T00:00:00');
    assert.match(taken.xml, /<Numero_Ficheiro>\d+<\/Numero_Ficheiro><Data_Movimento>2026-07-01T18:30:05<\/Data_Movimento>/);
  });

  it('sends what a guest typed with control characters or line breaks as a file XML can carry, with its & and < escaped', async () => {
    await deliverBulletins(conn(), file([{ ...family[0]!, Apelido: 'Müller\u0001 & <Sohn>', Local_Residencia_Origem: 'Berlin\nMitte' }]));
    assert.deepEqual(siba.invalid, []);
    const [b] = siba.taken.at(-1)!.bulletins;
    assert.deepEqual([b!.Apelido, b!.Local_Residencia_Origem], ['Müller & <Sohn>', 'Berlin Mitte']);
  });

  it("refuses a country that is not SIBA's ICAO code (DEU for Germany)", async () => {
    await assert.rejects(deliverBulletins(conn(), file([{ ...family[0]!, Nacionalidade: 'DEU' }])), SibaRefusal);
    siba.invalid.length = 0;
  });

  it('reads a refusal line by line: the bulletin, its code and words', async () => {
    siba.refuseDocument('FZ123456', { code: '25', words: 'Documento de identificação inválido' });
    const err = await deliverBulletins(conn(), file()).catch((e: unknown) => e);
    assert.ok(err instanceof SibaRefusal);
    assert.deepEqual(err.errors, [{ line: 2, code: '25', description: 'Documento de identificação inválido' }]);
    siba.refuseDocument('FZ123456', null);
  });

  it('tells a refused unit or key (code 60) apart', async () => {
    const err = await deliverBulletins(conn({ key: 'wrong' }), file()).catch((e: unknown) => e);
    assert.ok(err instanceof SibaRefusal && err.unauthorised, String(err));
  });

  it('takes an HTML error page for the way, not an answer, and a dropped connection for an answer that may have been lost', async () => {
    siba.htmlNext(1);
    const html = await deliverBulletins(conn(), file()).catch((e: unknown) => e);
    assert.ok(html instanceof AuthorityUnreachable && !html.mayHaveArrived, String(html));
    siba.dropNext(1);
    const dropped = await deliverBulletins(conn(), file()).catch((e: unknown) => e);
    assert.ok(dropped instanceof AuthorityUnreachable && dropped.mayHaveArrived, String(dropped));
  });

  it('reads the answers as the recorded exchanges give them', () => {
    const recorded =
      '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><EntregaBoletinsAlojamentoResponse xmlns="http://sef.pt/"><EntregaBoletinsAlojamentoResult>0</EntregaBoletinsAlojamentoResult></EntregaBoletinsAlojamentoResponse></soap:Body></soap:Envelope>';
    assert.deepEqual(readEntregaAnswer(recorded), { taken: true });
    assert.equal(readEntregaAnswer('<html><body>Server Error</body></html>'), null);
  });
});

describe("SIBA's country codes", { skip: !SIBA_FILES_PRESENT && 'the shared SIBA files are not beside this checkout' }, () => {
  it('gives every country a code of SIBA’s ICAO table (Germany D, Kosovo RKS, a territory its state’s), Antarctica and Western Sahara aside', () => {
    const table = readFileSync(fileURLToPath(new URL('../../../../shared/authority/siba/countries.xml', import.meta.url)), 'utf8');
    const icao = new Set([...table.matchAll(/<Codigo_ICAO>([^<]+)<\/Codigo_ICAO>/g)].map((m) => m[1]!.trim()));
    assert.deepEqual([sibaCountry('DE'), sibaCountry('XK'), sibaCountry('GI'), sibaCountry('BR'), sibaCountry('PT')], ['D', 'RKS', 'GBR', 'BRA', 'PRT']);
    const unknown = Object.keys(countries.getAlpha2Codes()).filter((c) => !icao.has(sibaCountry(c)));
    assert.deepEqual(unknown.sort(), ['AQ', 'EH']);
  });
});

import { POLICE_ONLY_SCREENS, runReportJob, stayThroughPortal } from '../../../test/police.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIBA_FILES_PRESENT, startFakeSiba, type FakeSiba } from '../../../test/fake-siba.js';
import { call, createTestApp, dbKind, eventually, setPortalScreens, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { dayIn } from '../../lib/time.js';
import { purgeExpiredReports } from './reports.js';

const UNIT = { unit: '121212121', establishment: '00', key: '999999999' };
const ESTABLISHMENT = {
  system: 'siba',
  nipc: UNIT.unit,
  establishment_number: UNIT.establishment,
  access_key: UNIT.key,
  unit: { name: 'Casa do Rio', address: 'Rua Direita 12', town: 'Porto', postcode: '4050-123', phone: '223456789', contact_name: 'Rita Sousa', contact_email: 'rita@example.pt' },
};

/** Klaus, who booked: a German with an identity card, living in Berlin. */
const KLAUS = {
  first_name: 'Klaus',
  last_name: 'Becker',
  nationality: 'DE',
  birth_date: '1979-03-14',
  birth_place: 'Hamburg',
  document_type: 'id_card',
  document_number: 'L01X00T47',
  document_country: 'DE',
  residence_country: 'DE',
  city: 'Berlin',
};
/** His wife, Brazilian with a passport, and their son; and a Portuguese friend, who is not reported. */
const FAMILY = {
  guest_1_first_name: 'Ana',
  guest_1_last_name: 'Souza',
  guest_1_nationality: 'BR',
  guest_1_birth_date: '1984-07-01',
  guest_1_document_type: 'passport',
  guest_1_document_number: 'FZ123456',
  guest_1_document_country: 'BR',
  guest_1_residence_country: 'DE',
  guest_1_city: 'Berlin',
  guest_2_first_name: 'Leon',
  guest_2_last_name: 'Becker',
  guest_2_nationality: 'DE',
  guest_2_birth_date: '2016-05-20',
  guest_2_document_type: 'passport',
  guest_2_document_number: 'C4J7K2L9M',
  guest_2_document_country: 'DE',
  guest_2_residence_country: 'DE',
  guest_2_city: 'Berlin',
};
const FRIEND = { guest_3_first_name: 'João', guest_3_last_name: 'Silva', guest_3_nationality: 'PT' };

describe(`police reports to SIBA (${dbKind})`, { skip: !SIBA_FILES_PRESENT && 'the shared SIBA files are not beside this checkout' }, () => {
  let t: TestApp;
  let fake: FakeSiba;
  let me: Tenant;
  const today = () => dayIn(new Date().toISOString(), 'Europe/Lisbon');
  const inDays = (n: number) => new Date(Date.parse(today()) + n * 86_400_000).toISOString().slice(0, 10);
  before(async () => {
    fake = await startFakeSiba([UNIT]);
    t = await createTestApp({ GUESTSCREEN_SIBA_TEST_URL: fake.url, GUESTSCREEN_SIBA_URL: fake.url.replace('/bawsdev/', '/baws/'), GUESTSCREEN_AUTHORITY_TIMEOUT_SECONDS: '1' });
    me = await tenant(t);
    await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
    const est = await call(t, 'PUT', '/v1/accounts/authority-establishment', { key: me.key, body: ESTABLISHMENT });
    assert.equal(est.status, 200, est.body);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const reports = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/authority-reports`, { key: me.key })).json.reports as Record<string, unknown>[];
  const states = async (id: string) => (await reports(id)).map((x) => [x.guest_name, x.state]);
  const stay = (answers: Record<string, string>, guests: number, checkIn = today(), language: 'pt' | 'de' = 'pt') =>
    stayThroughPortal(t, me.key, { answers, guests, checkIn, nights: 4, timezone: 'Europe/Lisbon', guest: { first_name: 'Klaus', last_name: 'Becker' }, language });

  it('checks the establishment on saving with a file of no bulletins, and refuses a wrong key or a field past the XSD in words', async () => {
    assert.equal(fake.taken.length, 1, 'the check delivered one file');
    assert.equal(fake.taken[0]!.bulletins.length, 0);
    const est = await call(t, 'GET', '/v1/accounts/authority-establishment', { key: me.key });
    assert.equal(est.json.check, 'passed');
    assert.equal(est.json.unit.abbreviation, 'Casa do Rio');
    assert.equal(JSON.stringify(est.json).includes(UNIT.key), false, 'the key is never answered back');

    const wrong = await call(t, 'PUT', '/v1/listings/l-wrong/authority-establishment', { key: me.key, body: { ...ESTABLISHMENT, access_key: '000000000' } });
    assert.equal(wrong.status, 422);
    assert.match(wrong.json.error, /SIBA refused this NIPC, establishment number or access key \(test mode\): 60 Não foi possível autenticar/);
    const long = await call(t, 'PUT', '/v1/listings/l-wrong/authority-establishment', {
      key: me.key,
      body: { ...ESTABLISHMENT, unit: { ...ESTABLISHMENT.unit, town: 'Vila Nova de Famalicão e Calendário' } },
    });
    assert.equal(long.status, 400);
    assert.match(long.json.error, /body\.unit\.town: at most 30 characters \(SIBA's Localidade\)/);
    const phone = await call(t, 'PUT', '/v1/listings/l-phone/authority-establishment', { key: me.key, body: { ...ESTABLISHMENT, unit: { ...ESTABLISHMENT.unit, phone: '+351 223 456 789' } } });
    assert.equal(phone.status, 200, phone.body);
    assert.equal(phone.json.unit.phone, '223456789', 'the country code and spaces dropped, as Telefone holds 10');
    const postcode = await call(t, 'PUT', '/v1/listings/l-wrong/authority-establishment', { key: me.key, body: { ...ESTABLISHMENT, unit: { ...ESTABLISHMENT.unit, postcode: '4050' } } });
    assert.equal(postcode.status, 400);
    assert.match(postcode.json.error, /postcode/);
    const nul = await call(t, 'PUT', '/v1/listings/l-wrong/authority-establishment', { key: me.key, body: { ...ESTABLISHMENT, unit: { ...ESTABLISHMENT.unit, name: 'Casa\u0000Rio' } } });
    assert.equal(nul.status, 400, nul.body);
    assert.equal((await call(t, 'GET', '/v1/listings/l-wrong/authority-establishment', { key: me.key })).status, 404, 'nothing was saved');
  });

  it('asks a Portuguese guest nothing more, and a foreign guest everything SIBA needs, in the guest’s language', async () => {
    const missing = await stay({ ...KLAUS, document_number: '', ...FRIEND, guest_3_birth_date: '' }, 4, today(), 'de');
    assert.equal(missing.saved.ok, false);
    const said = missing.saved.ok ? [] : missing.saved.problems.map((p) => p.message);
    assert.ok(
      said.some((m) => /Dokumentnummer/.test(m) && /nicht portugiesische/.test(m)),
      said.join(' | '),
    );
    assert.ok(!said.some((m) => /Gast 4/.test(m)), 'the Portuguese guest is asked nothing more');
  });

  it('files the foreign guests of a family on the arrival day, one valid file, and says the Portuguese guest is not reported', async () => {
    const b = await stay({ ...KLAUS, ...FAMILY, ...FRIEND }, 4);
    assert.equal(b.saved.ok, true, JSON.stringify(b.saved));
    const before = fake.taken.length;
    await runReportJob(t.deps, b.id);
    assert.deepEqual(fake.invalid, []);
    assert.equal(fake.taken.length, before + 1);
    const file = fake.taken.at(-1)!;
    assert.deepEqual(
      file.bulletins.map((x) => [x.Apelido, x.Nome, x.Nacionalidade, x.Tipo_Documento, x.Pais_Residencia_Origem]),
      [
        ['Becker', 'Klaus', 'D', 'B', 'D'],
        ['Souza', 'Ana', 'BRA', 'P', 'D'],
        ['Becker', 'Leon', 'D', 'P', 'D'],
      ],
    );
    assert.ok(file.number > fake.taken[before - 1]!.number, 'the file number counts up');
    const rows = await reports(b.id);
    assert.deepEqual(
      rows.map((x) => [x.guest_name, x.state, x.mode, x.receipt]),
      [
        ['Klaus Becker', 'accepted', 'test', null],
        ['Ana Souza', 'accepted', 'test', null],
        ['Leon Becker', 'accepted', 'test', null],
        ['João Silva', 'not_required', 'test', null],
      ],
    );
    const proof = rows[0]!.proof as { sent: string; answer: string };
    assert.match(proof.sent, /<MovimentoBAL xmlns="http:\/\/sef.pt\/BAws">/);
    assert.deepEqual(JSON.parse(proof.answer), { Numero_Ficheiro: file.number, EntregaBoletinsAlojamentoResult: '0' });
    assert.equal(rows[3]!.late, false);
    // Due by the end of the third working day after arrival, in Lisbon.
    assert.ok(Date.parse(String(rows[0]!.due_at)) >= Date.parse(`${inDays(3)}T00:00:00Z`));

    // Sending again sends nothing: every guest SIBA takes is filed.
    const again = await call(t, 'POST', `/v1/reservations/${b.id}/authority-reports`, { key: me.key });
    assert.equal(again.json.sent, false);
    assert.equal(fake.taken.length, before + 1);
  });

  it('sends a changed departure again in a new file, as SIBA takes no correction', async () => {
    const b = await stay({ ...KLAUS }, 1);
    await runReportJob(t.deps, b.id);
    const first = fake.taken.at(-1)!;
    const moved = await call(t, 'PUT', `/v1/reservations/${b.id}`, { key: me.key, body: { check_out_date: inDays(9) } });
    assert.equal(moved.status, 200, moved.body);
    assert.deepEqual(await states(b.id), [['Klaus Becker', 'ready']]);
    await runReportJob(t.deps, b.id);
    const second = fake.taken.at(-1)!;
    assert.ok(second.number > first.number);
    assert.equal(second.bulletins[0]!.Data_Saida, `${inDays(9)}T00:00:00`);
    assert.deepEqual(await states(b.id), [['Klaus Becker', 'accepted']]);
  });

  it('shows a refused guest by name in SIBA’s words, the others of the file held back', async () => {
    fake.refuseDocument('FZ123456', { code: '22', words: 'Documento de identificação inválido' });
    const b = await stay({ ...KLAUS, ...FAMILY }, 3);
    await runReportJob(t.deps, b.id);
    const rows = await reports(b.id);
    assert.deepEqual(
      rows.map((x) => [x.guest_name, x.state, (x.error as { code: string } | null)?.code]),
      [
        ['Klaus Becker', 'rejected', 'held_back'],
        ['Ana Souza', 'rejected', '22'],
        ['Leon Becker', 'rejected', 'held_back'],
      ],
    );
    assert.match(String((rows[1]!.error as { message: string }).message), /Documento de identificação inválido/);
    fake.refuseDocument('FZ123456', null);
  });

  it('sends the same file again after a dropped connection or an error page, and leaves a lost answer for the host', async () => {
    const b = await stay({ ...KLAUS }, 1);
    fake.dropNext(1);
    await assert.rejects(runReportJob(t.deps, b.id));
    const [dropped] = await reports(b.id);
    assert.equal(dropped!.state, 'ready');
    assert.equal((dropped!.error as { code: string }).code, 'resend_same_file');
    fake.htmlNext(1);
    await assert.rejects(runReportJob(t.deps, b.id));
    const count = fake.taken.length;
    await runReportJob(t.deps, b.id);
    assert.equal(fake.taken.length, count + 1, 'taken once');
    assert.deepEqual(await states(b.id), [['Klaus Becker', 'accepted']]);

    // Taken, its answer lost with the connection: the same number again, which SIBA refuses as used, is left for the host, not taken for a refusal.
    const lostOnWay = await stay({ ...KLAUS, first_name: 'Kurt' }, 1);
    fake.dropAfterTaking(1);
    await assert.rejects(runReportJob(t.deps, lostOnWay.id));
    const once = fake.taken.length;
    await runReportJob(t.deps, lostOnWay.id);
    assert.equal(fake.taken.length, once, 'not filed twice');
    const [guarded] = await reports(lostOnWay.id);
    assert.deepEqual([guarded!.state, (guarded!.error as { code: string }).code], ['sent', 'unconfirmed']);
    fake.invalid.length = 0; // the fake noted the number sent twice, as SIBA would refuse it

    const slow = await stay({ ...KLAUS, first_name: 'Karl' }, 1);
    fake.answerAfter(1500);
    const delivered = fake.taken.length;
    await runReportJob(t.deps, slow.id).finally(() => fake.answerAfter(0));
    // SIBA took the file after all, its answer never heard: the lost answer the host is asked to look up.
    await eventually(async () => fake.taken.length === delivered + 1, 'the late file taken');
    const [lost] = await reports(slow.id);
    assert.equal(lost!.state, 'sent');
    assert.equal((lost!.error as { code: string }).code, 'unconfirmed');
    const taken = fake.taken.length;
    await runReportJob(t.deps, slow.id);
    assert.equal(fake.taken.length, taken, 'not sent again on its own');
  });

  it('sends nothing before the arrival day, two jobs at once file once, and keeps the reports a year after departure', async () => {
    const later = await stay({ ...KLAUS }, 1, inDays(5));
    const count = fake.taken.length;
    await runReportJob(t.deps, later.id);
    assert.equal(fake.taken.length, count);
    const now = await call(t, 'POST', `/v1/reservations/${later.id}/authority-reports`, { key: me.key });
    assert.equal(now.json.nothing_sent.code, 'not_arrived');

    const b = await stay({ ...KLAUS, ...FAMILY }, 3);
    fake.answerAfter(300);
    await Promise.all([runReportJob(t.deps, b.id), runReportJob(t.deps, b.id), call(t, 'POST', `/v1/reservations/${b.id}/authority-reports`, { key: me.key })]).finally(() => fake.answerAfter(0));
    // The job "send now" queued, as the worker runs it: whoever lost the race sends nothing.
    await runReportJob(t.deps, b.id);
    assert.equal(fake.taken.length, count + 1, 'a slow SIBA, two jobs and "send now" at once: one file');
    assert.deepEqual(fake.invalid, []);

    // A sender stopped after its call went: left for the host, never sent again on its own.
    const stopped = await stay({ ...KLAUS, first_name: 'Otto' }, 1);
    await t.deps.db
      .updateTable('authority_reports')
      .set({ state: 'sending', sent_at: new Date().toISOString(), claimed_until: new Date(Date.now() - 1000).toISOString() })
      .where('reservation_id', '=', stopped.id)
      .execute();
    const before = fake.taken.length;
    await runReportJob(t.deps, stopped.id);
    assert.equal(fake.taken.length, before);
    assert.deepEqual(
      (await reports(stopped.id)).map((x) => [x.state, (x.error as { code: string }).code]),
      [['sent', 'unconfirmed']],
    );

    const yearOn = new Date(Date.parse(`${inDays(4 + 367)}T12:00:00Z`));
    await purgeExpiredReports({ ...t.deps, clock: () => yearOn });
    assert.deepEqual(await reports(b.id), []);
  });

  it('once switched to production, files for real what was only tested, at the production service, under new numbers', async () => {
    const b = await stay({ ...KLAUS, ...FAMILY, ...FRIEND }, 4);
    await runReportJob(t.deps, b.id);
    assert.equal(fake.taken.at(-1)!.service, 'development');
    const switched = await call(t, 'PUT', '/v1/accounts/authority-establishment', { key: me.key, body: { system: 'siba', mode: 'production' } });
    assert.equal(switched.status, 200, switched.body);
    assert.equal(fake.taken.at(-1)!.service, 'production', 'the key checked by the production service');
    const before = fake.taken.length;
    for (let i = 0; i < 3; i++) await runReportJob(t.deps, b.id);
    assert.equal(fake.taken.length, before + 1);
    const file = fake.taken.at(-1)!;
    assert.equal(file.service, 'production');
    assert.equal(file.bulletins.length, 3, 'the Portuguese friend is not reported in production either');
    assert.deepEqual(
      (await reports(b.id)).map((x) => [x.state, x.mode]),
      [
        ['accepted', 'production'],
        ['accepted', 'production'],
        ['accepted', 'production'],
        ['not_required', 'production'],
      ],
    );
    assert.deepEqual(fake.invalid, []);
  });
});

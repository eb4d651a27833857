import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAlloggiati, type FakeAlloggiati } from '../../../test/fake-alloggiati.js';
import { AlloggiatiRefusal, checkCredentials, generateToken, receipt, submitRows, type AlloggiatiConnection } from './alloggiati.js';
import { AuthorityUnreachable } from './soap.js';
import { APARTMENT_ROW_LENGTH, guestRow, orderedRows, ROW_LENGTH, RowOverflow, type GuestRow } from './alloggiati-files.js';

const CREDENTIALS = { user: 'RM000123', password: 'Segreta1', wsKey: 'AAAA-BBBB-CCCC' };
const TODAY = '2026-12-01';

/** A family at a flat in Rome: a head of family born in Milan with an Italian identity card, a German wife and child. */
const head: GuestRow = {
  type: '17',
  arrival: TODAY,
  days: 3,
  surname: 'Rossi',
  givenNames: 'Mario',
  sex: '1',
  birthDate: '1979-04-12',
  birthComune: '415015146',
  birthProvince: 'MI',
  birthState: '100000100',
  citizenship: '100000100',
  documentType: 'IDENT',
  documentNumber: 'CA12345AB',
  documentPlace: '415058091',
};
const wife: GuestRow = { type: '19', arrival: TODAY, days: 3, surname: 'Müller', givenNames: 'Jürgen Anna', sex: '2', birthDate: '1981-02-03', birthState: '100000216', citizenship: '100000216' };
const child: GuestRow = { ...wife, givenNames: 'Lena', birthDate: '2015-09-09' };

describe("Italy's Alloggiati Web", () => {
  let fake: FakeAlloggiati;
  let conn: AlloggiatiConnection;
  before(async () => {
    fake = await startFakeAlloggiati(CREDENTIALS, () => TODAY);
    conn = { endpoint: fake.url, ...CREDENTIALS, timeoutMs: 2_000, allowPrivate: true };
  });
  after(() => fake.close());

  it("makes each guest's row its 168 characters, a member's document blank, accents counted as one", () => {
    const rows = orderedRows([[wife, head, child]]);
    assert.deepEqual(
      rows.map((r) => [...r].length),
      [ROW_LENGTH, ROW_LENGTH, ROW_LENGTH],
    );
    assert.ok(rows[0]!.startsWith('1701/12/202603ROSSI'), 'the head first');
    assert.equal([...rows[1]!].slice(134).join(''), ' '.repeat(34));
    assert.equal([...rows[1]!].slice(14, 64).join('').trim(), 'MÜLLER');
    assert.equal([...guestRow(head, '123456')].length, APARTMENT_ROW_LENGTH);
    assert.throws(() => guestRow({ ...head, surname: 'X'.repeat(51) }), RowOverflow);
    assert.throws(() => orderedRows([[wife]]), RowOverflow);
  });

  it('checks the credentials with a token and the service’s own test of it, and names a refusal', async () => {
    await checkCredentials(conn);
    await assert.rejects(checkCredentials({ ...conn, wsKey: 'old' }), (err: unknown) => err instanceof AlloggiatiRefusal && err.outcome.code === '1');
  });

  it("tests, then files a family's rows, each with its outcome, and fetches the day's receipt as a PDF", async () => {
    const token = await generateToken(conn);
    const rows = orderedRows([[head, wife, child]]);
    assert.deepEqual(
      (await submitRows(conn, token, rows, false)).map((o) => o.ok),
      [true, true, true],
    );
    assert.equal(fake.filed.get(TODAY), undefined, 'Test files nothing');
    await submitRows(conn, token, rows, true);
    assert.equal(fake.filed.get(TODAY)?.length, 3);
    const pdf = await receipt(conn, token, TODAY);
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  });

  it("reads a row's refusal in the service's words, the other rows still taken", async () => {
    const token = await generateToken(conn);
    const late = guestRow({ ...head, type: '16', arrival: '2026-11-20' });
    const [bad, good] = await submitRows(conn, token, [late, guestRow({ ...head, type: '16' })], false);
    assert.deepEqual(bad, { ok: false, code: '12', name: 'SCHEDINA_CAMPO_NON_CORRETTO', detail: 'Data di Arrivo Errata' });
    assert.equal(good!.ok, true);
  });

  it('refuses a call with a token it did not give, and tells a dropped connection apart', async () => {
    await assert.rejects(submitRows(conn, 'FORGED', [guestRow({ ...head, type: '16' })], true), (err: unknown) => err instanceof AlloggiatiRefusal && err.outcome.code === '2');
    fake.dropNext(1);
    await assert.rejects(generateToken(conn), AuthorityUnreachable);
    await assert.rejects(
      submitRows(
        conn,
        'any',
        Array.from({ length: 1001 }, () => guestRow({ ...head, type: '16' })),
        false,
      ),
      RangeError,
    );
  });
});

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, eventually, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { importSanctions } from '../../providers/sanctions/import.js';

const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const entry = (id: string, name: string, dob: string) => `${id},"${name}","individual","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB ${dob}."`;

describe(`re-screening when a sanctions list changes (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  const list = (name: string, rows: string[]) => {
    const file = path.join(t.deps.config.dataDir, name);
    writeFileSync(file, `${rows.join('\r\n')}\r\n\x1a`);
    return file;
  };
  before(async () => {
    t = await createTestAppWithWorker();
    me = await tenant(t);
    await importSanctions(t.deps, { primary: list('sdn_2024-05-03.csv', [entry('24315', 'FRADKOV, Mikhail Efimovich', '01 Sep 1950')]) });
  });
  after(() => t.close());

  it('screens again the stays not ended whose guest a new entry names, and no other', async () => {
    const book = async (first: string, last: string, checkOut: number) => {
      const r = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', {
        key: me.key,
        body: { check_in_date: day(checkOut - 3), check_out_date: day(checkOut), guest: { first_name: first, last_name: last } },
      });
      assert.equal(r.status, 200, r.body);
      return r.json.id as string;
    };
    const upcoming = await book('Petr', 'Fradkov', 10);
    const other = await book('Anna', 'Schmidt', 10);
    const ended = await book('Petr', 'Fradkov', -5);
    const summary = async (id: string) => (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
    assert.equal((await summary(upcoming)).details.sanctions.status, 'PASS');

    const imported = await importSanctions(t.deps, {
      primary: list('sdn_2024-05-10.csv', [entry('24315', 'FRADKOV, Mikhail Efimovich', '01 Sep 1950'), entry('34658', 'FRADKOV, Petr Mikhailovich', '07 Feb 1978')]),
    });
    assert.equal(imported.changed, 1, 'only the added entry counts as changed');
    const job = await t.deps.db.selectFrom('jobs').select('payload').where('kind', '=', 'sanctions.rescreen').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(job.payload), { source: 'OFAC SDN', entry_ids: ['34658'] });

    const decisions = (id: string) => call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key });
    const rescreened = await eventually(async () => {
      const d = (await decisions(upcoming)).json as { trigger: string; checks: Record<string, { status: string; value: string }> }[];
      return d[0]?.trigger === 'list_update' && d[0];
    }, 'the upcoming stay screened again');
    assert.equal(rescreened.checks.sanctions?.status, 'REVIEW');
    assert.match(rescreened.checks.sanctions?.value ?? '', /^1 match on OFAC SDN of 10 May 2024$/);
    for (const id of [other, ended]) {
      assert.ok(
        ((await decisions(id)).json as { trigger: string }[]).every((d) => d.trigger !== 'list_update'),
        'no other stay was screened again',
      );
    }
    const again = await importSanctions(t.deps, {
      primary: list('sdn_2024-05-10.csv', [entry('24315', 'FRADKOV, Mikhail Efimovich', '01 Sep 1950'), entry('34658', 'FRADKOV, Petr Mikhailovich', '07 Feb 1978')]),
    });
    assert.equal(again.changed, 0, 'the same list again changes nothing and queues nothing');

    // The host compares the guest's document with the entry and dismisses the hit.
    const dismissed = await call(t, 'POST', `/v1/reservations/${upcoming}/sanctions-dismissals`, { key: me.key, body: { list: 'OFAC SDN', entry_id: '34658', reason: 'born 1991 per passport' } });
    assert.equal(dismissed.status, 200, dismissed.body);
    const cleared = await eventually(async () => {
      const d = ((await decisions(upcoming)).json as { trigger: string; checks: Record<string, { status: string; value: string }> }[])[0];
      return d?.trigger === 'manual' && d;
    }, 'the stay screened again after the dismissal');
    assert.equal(cleared.checks.sanctions?.status, 'PASS');
    assert.match(cleared.checks.sanctions?.value ?? '', /“FRADKOV, Petr Mikhailovich” set aside by you as a different person/);
    const notes = (await call(t, 'GET', `/v1/reservations/${upcoming}/notes`, { key: me.key })).json as { text: string }[];
    assert.ok(notes.some((n) => /Dismissed the possible match with OFAC SDN entry 34658 as a different person: born 1991 per passport/.test(n.text)));
    // The same guest's next stay does not alert either.
    const next = await book('Petr', 'Fradkov', 40);
    assert.equal((await summary(next)).details.sanctions.status, 'PASS');
    // A list that changes the entry makes it alert again.
    await importSanctions(t.deps, {
      primary: list('sdn_2024-06-01.csv', [entry('24315', 'FRADKOV, Mikhail Efimovich', '01 Sep 1950'), entry('34658', 'FRADKOV, Petr Mikhailovich', '07 Feb 1978; nationality Russia')]),
    });
    await eventually(async () => (await summary(next)).details.sanctions.status === 'REVIEW', 'the changed entry alerting again');
  });

  it('answers 400 for an entry no imported list holds', async () => {
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Ann', last_name: 'Lee' } } });
    const d = await call(t, 'POST', `/v1/reservations/${r.json.id}/sanctions-dismissals`, { key: me.key, body: { list: 'OFAC SDN', entry_id: '999' } });
    assert.equal(d.status, 400);
    assert.match(d.json.error, /^body\.entry_id: no entry 999 on a list 'OFAC SDN' \(lists: 'OFAC SDN'\)$/);
  });
});

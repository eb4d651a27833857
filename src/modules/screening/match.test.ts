import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';
import { importSanctions } from '../../providers/sanctions/import.js';
import { createDeps } from '../../runtime.js';

// Entries as the OFAC SDN list of 2024-05-03 writes them (legacy CSV: ent_num, name, type, program, ... remarks).
const SDN = [
  '24315,"FRADKOV, Mikhail Efimovich","individual","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 01 Sep 1950; nationality Russia."',
  '12735,"AL-ASSAD, Bashar","individual","SYRIA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 11 Sep 1965."',
  '35096,"PUTIN, Vladimir Vladimirovich","individual","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 07 Oct 1952."',
  '90001,"OMAIRI, Farouk","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ',
].join('\r\n');

describe(`POST /v1/screening/match (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  const match = (body: unknown) => call(t, 'POST', '/v1/screening/match', { key: me.key, body });
  before(async () => {
    t = await createTestApp();
    me = await tenant(t);
    const file = path.join(t.deps.config.dataDir, 'sdn_2024-05-03.csv');
    writeFileSync(file, `${SDN}\r\n\x1a`);
    await importSanctions(t.deps, { primary: file });
    await call(t, 'POST', '/v1/blocklist', { key: me.key, body: { name: 'Jonathan Ashworth', reason: 'fraudulent chargeback' } });
  });
  after(() => t.close());

  it('finds a listed person given by first and last name in Cyrillic, says why, and names the lists and their dates', async () => {
    const r = await match({ name: 'Михаил Фрадков' });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.threshold, 0.9);
    assert.deepEqual(r.json.lists, [
      { list: 'blocklist', date: null, names: 1 },
      { list: 'OFAC SDN', date: '2024-05-03', names: 4 },
    ]);
    const [first] = r.json.candidates;
    assert.equal(first.primary_name, 'FRADKOV, Mikhail Efimovich');
    assert.equal(first.list, 'OFAC SDN');
    assert.equal(first.list_date, '2024-05-03');
    assert.deepEqual(first.birth_years, [1950]);
    assert.deepEqual(
      first.tokens.map((x: { listed: string; how: string }) => `${x.listed}:${x.how}`),
      ['fradkov:same', 'mikhail:same', 'efimovich:missing'],
    );
    assert.match(first.explanation, /patronymic name 'efimovich' not given/);
  });

  it('finds a name written in Arabic script, and one run together', async () => {
    assert.equal((await match({ name: 'بشار الأسد' })).json.candidates[0]?.primary_name, 'AL-ASSAD, Bashar');
    assert.equal((await match({ name: 'VladimirPutin' })).json.candidates[0]?.primary_name, 'PUTIN, Vladimir Vladimirovich');
  });

  it('raises no candidate on a shared given name alone', async () => {
    const r = await match({ first_name: 'Omar', last_name: 'Farouk' });
    assert.deepEqual(r.json.candidates, []);
  });

  it("finds a close name on the account's blocklist, with the entry's reason", async () => {
    const r = await match({ first_name: 'Jonathon', last_name: 'Ashworth', lists: ['blocklist'] });
    assert.equal(r.json.candidates.length, 1);
    assert.equal(r.json.candidates[0].list, 'blocklist');
    assert.equal(r.json.candidates[0].reason, 'fraudulent chargeback');
  });

  it('lets a country the list does not name take a close name below the threshold, and a year or a country that agree raise it, saying so', async () => {
    const close = { name: 'Mikhial Fradkow' };
    const alone = (await match(close)).json.candidates[0];
    assert.equal(alone?.primary_name, 'FRADKOV, Mikhail Efimovich', 'two slips: a close name');
    assert.deepEqual((await match({ ...close, country: 'DE' })).json.candidates, [], 'another country than the list names');
    const agreeing = (await match({ ...close, country: 'RU', birth_year: 1950 })).json.candidates[0];
    assert.match(agreeing.explanation, /year of birth 1950 listed \(\+0\.03\), country RU listed \(\+0\.02\): 0\.\d\d in all$/);
    // The same name stays a possible match whatever the country.
    assert.match((await match({ name: 'Mikhail Fradkov', country: 'DE' })).json.candidates[0].explanation, /country DE not among those listed, RU \(−0\.05\)/);
  });

  it('leaves out a listed person born more than a year apart', async () => {
    assert.equal((await match({ name: 'Vladimir Putin', birth_date: '1952-10-07' })).json.candidates.length, 1);
    assert.equal((await match({ name: 'Vladimir Putin', birth_year: 1990 })).json.candidates.length, 0);
  });

  it("uses the account's name match threshold from its screening settings", async () => {
    assert.equal((await match({ name: 'Vladimir Pulin' })).json.candidates.length, 1, 'one slip in the family name scores 0.96');
    const set = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: me.key, body: { name_match_threshold: 0.99 } });
    assert.equal(set.json.name_match_threshold, 0.99);
    const strict = await match({ name: 'Vladimir Pulin' });
    assert.equal(strict.json.threshold, 0.99);
    assert.equal(strict.json.candidates.length, 0);
    await call(t, 'PUT', '/v1/accounts/screening-settings', { key: me.key, body: { name_match_threshold: 0.9 } });
  });

  it('uses a list another process imported from the next search on', async () => {
    assert.equal((await match({ name: 'Petr Fradkov' })).json.candidates.length, 0);
    // Another process on the same database (its own connection and its own index of the lists).
    const other = createDeps(loadConfig(t.env));
    try {
      const file = path.join(t.deps.config.dataDir, 'sdn_2024-05-04.csv');
      writeFileSync(file, `${SDN}\r\n34658,"FRADKOV, Petr Mikhailovich","individual","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1a`);
      await importSanctions(other, { primary: file });
    } finally {
      await other.database.close();
    }
    const r = await match({ name: 'Petr Fradkov' });
    assert.equal(r.json.candidates[0]?.primary_name, 'FRADKOV, Petr Mikhailovich');
    assert.deepEqual(r.json.lists[1], { list: 'OFAC SDN', date: '2024-05-04', names: 5 });
  });

  it('answers 400 naming the problem for a missing or doubled name and an unknown field', async () => {
    assert.equal((await match({ country: 'RU' })).json.error, 'body: give name, or first_name and last_name');
    assert.equal((await match({ name: 'A B', first_name: 'A' })).json.error, 'body: give name, or first_name and last_name, not both');
    assert.equal((await match({ name: 'A B', nickname: 'x' })).json.error, "body: unknown field 'nickname'");
    assert.equal((await match({ name: 'A B', country: 'Russia' })).status, 400);
    assert.equal((await call(t, 'PUT', '/v1/accounts/screening-settings', { key: me.key, body: { name_match_threshold: 0.5 } })).status, 400);
  });
});

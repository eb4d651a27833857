import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { importSanctions } from './import.js';

const fixture = (name: string) => path.join(import.meta.dirname, '../../../test/fixtures/sanctions', name);

describe(`UN, EU and UK sanctions lists (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  const match = (body: unknown) => call(t, 'POST', '/v1/screening/match', { key: me.key, body });
  before(async () => {
    t = await createTestApp();
    me = await tenant(t);
  });
  after(() => t.close());

  it('imports each list from its published format, read from the file, with its own name and date', async () => {
    const un = await importSanctions(t.deps, { primary: fixture('un_consolidated_2026-02-27.xml') });
    assert.deepEqual([un.format, un.source, un.date, un.entries], ['un', 'UN Security Council Consolidated', '2026-02-27', 7]);
    const eu = await importSanctions(t.deps, { primary: fixture('eu_fsf_2026-08-05.xml') });
    assert.deepEqual([eu.format, eu.source, eu.date, eu.entries], ['eu', 'EU Financial Sanctions (consolidated)', '2026-08-05', 3]);
    const uk = await importSanctions(t.deps, { primary: fixture('uk_sanctions_list_2026-03-02.xml') });
    assert.deepEqual([uk.format, uk.source, uk.date, uk.entries], ['uk', 'UK Sanctions List', '2026-03-02', 3]);
    const lists = (await match({ name: 'Nobody Inparticular' })).json.lists as { list: string; date: string }[];
    for (const [list, date] of [
      ['UN Security Council Consolidated', '2026-02-27'],
      ['EU Financial Sanctions (consolidated)', '2026-08-05'],
      ['UK Sanctions List', '2026-03-02'],
    ]) {
      assert.ok(
        lists.some((l) => l.list === list && l.date === date),
        `${list} of ${date} in ${JSON.stringify(lists)}`,
      );
    }
  });

  it('finds listed people however a guest writes them, against each list', async () => {
    const first = async (name: string, list: string) => {
      const r = await match({ name, lists: ['sanctions'] });
      assert.equal(r.status, 200, r.body);
      return (r.json.candidates as { primary_name: string; list: string; birth_years: number[]; countries: string[] }[]).find((c) => c.list === list);
    };
    // UN: the name in its original (Arabic) script, and the short form without the middle names.
    assert.equal((await first('أيمن الظواهري', 'UN Security Council Consolidated'))?.primary_name, 'AYMAN MUHAMMED RABI AL-ZAWAHIRI');
    const makenga = await first('Emmanuel Makenga', 'UN Security Council Consolidated');
    assert.equal(makenga?.primary_name, 'SULTANI MAKENGA');
    assert.deepEqual(makenga?.birth_years, [1973]);
    assert.deepEqual(makenga?.countries, ['CD']);
    // EU: Cyrillic against the Latin primary name (and its Cyrillic alias), first and last name only.
    const putin = await first('Владимир Путин', 'EU Financial Sanctions (consolidated)');
    assert.equal(putin?.primary_name, 'Putin, Vladimir Vladimirovich');
    assert.deepEqual(putin?.countries, ['RU']);
    // UK: a one-letter slip in the family name, without the patronymic.
    const abramovich = await first('Roman Abramovitch', 'UK Sanctions List');
    assert.equal(abramovich?.primary_name, 'ABRAMOVICH, Roman Arkadyevich');
    assert.deepEqual(abramovich?.countries, ['IL', 'PT', 'RU']);
  });

  it('leaves out the aliases a list marks weak, which name too many people', async () => {
    // UN "Low" quality (Abu Mohammed for al-Zawahiri), EU strong="false" (Abou Ali), UK "Weak" (Abu Hussein).
    // (Abou Ali is Abu Ali, which the UN's list gives as a strong alias of another person.)
    for (const name of ['Abu Mohammed', 'Abou Ali', 'Abu Hussein']) {
      const listed = (await match({ name })).json.candidates.map((c: { listed_name: string }) => c.listed_name);
      assert.ok(!listed.some((l: string) => l.toLowerCase() === name.toLowerCase()), `${name}: ${listed.join('; ')}`);
    }
  });

  it('refuses a file that is none of the formats, naming what it expected', async () => {
    const file = path.join(t.deps.config.dataDir, 'other.xml');
    writeFileSync(file, '<?xml version="1.0"?><catalog><book/></catalog>');
    await assert.rejects(importSanctions(t.deps, { primary: file }), /not the UN, EU or UK consolidated list/);
    await assert.rejects(importSanctions(t.deps, { primary: fixture('eu_fsf_2026-08-05.xml'), aliases: file }), /files of OFAC's CSV lists/);
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, eventually, startReceiver, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';
import { enqueue } from '../../jobs/repo.js';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../../../test/fixtures/sanctions', name), 'utf8');

// OFAC's legacy CSV as published: sdn.csv with alt.csv beside it (add.csv and sdn_comments.csv missing here).
const SDN = '36002,"LAVROV, Sergey Viktorovich","individual","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 21 Mar 1950; nationality Russia."\r\n\x1a';
const ALT = '36002,99001,"aka","LAVROV, Sergei",-0- \r\n\x1a';

describe(`refreshing sanctions lists from configured URLs (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  let publisher: Awaited<ReturnType<typeof startReceiver>>;
  const files: Record<string, string> = { '/ofac/sdn.csv': SDN, '/ofac/alt.csv': ALT, '/uk/UK_Sanctions_List.xml': fixture('uk_sanctions_list_2026-03-02.xml') };
  before(async () => {
    publisher = await startReceiver((req) => (files[req.url] === undefined ? { status: 404 } : { status: 200, body: files[req.url] }));
    t = await createTestAppWithWorker({ GUESTSCREEN_SANCTIONS_REFRESH_URLS: `${publisher.url}/ofac/sdn.csv, ${publisher.url}/uk/UK_Sanctions_List.xml`, GUESTSCREEN_SANCTIONS_REFRESH_HOURS: '12' });
    me = await tenant(t);
  });
  after(async () => {
    await t.close();
    await publisher.close();
  });

  it('downloads each list with the files OFAC publishes beside it, imports it, and screens against it', async () => {
    await enqueue(t.deps.db, t.deps, 'sanctions.refresh', {}, { uniqueKey: 'sanctions-refresh' });
    t.deps.wakeWorker();
    const match = (name: string) => call(t, 'POST', '/v1/screening/match', { key: me.key, body: { name, lists: ['sanctions'] } });
    const lavrov = await eventually(async () => (await match('Sergei Lavrov')).json.candidates?.find((c: { list: string }) => c.list === 'OFAC SDN'), 'the OFAC list with its aliases');
    assert.equal(lavrov.primary_name, 'LAVROV, Sergey Viktorovich');
    await eventually(async () => (await match('Roman Abramovich')).json.candidates?.some((c: { list: string }) => c.list === 'UK Sanctions List'), 'the UK list');
    assert.deepEqual(publisher.received.map((r) => r.url).sort(), ['/ofac/add.csv', '/ofac/alt.csv', '/ofac/sdn.csv', '/ofac/sdn_comments.csv', '/uk/UK_Sanctions_List.xml']);
  });

  it('refuses a refresh URL that is not http(s), naming the variable', () => {
    assert.throws(() => loadConfig({ ...t.env, GUESTSCREEN_SANCTIONS_REFRESH_URLS: 'file:///etc/passwd' }), /GUESTSCREEN_SANCTIONS_REFRESH_URLS: 'file:\/\/\/etc\/passwd' must use http or https/);
    assert.throws(() => loadConfig({ ...t.env, GUESTSCREEN_SANCTIONS_REFRESH_URLS: 'https://x.test/sdn.csv', GUESTSCREEN_SANCTIONS_REFRESH_HOURS: '1000' }), /at most 576/);
  });
});

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, eventually, startReceiver, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { importNews } from '../../providers/adverse-media/import.js';
import { importThreatFeed } from '../../providers/ip-threats/import.js';
import { importSanctions } from '../../providers/sanctions/import.js';
import { importSexOffenders } from '../../providers/sex-offender/import.js';
import { purgeExpiredChecks } from './service.js';
import { loadConfig } from '../../config.js';
import type { Deps } from '../../deps.js';
import { createDeps } from '../../runtime.js';
import { operatorWords } from '../../../test/host-language.js';

// Rows of the OFAC SDN list of 2021-07-07 (public domain; shared/data/sanctions), as published.
const SDN = [
  '2674,"ABBAS, Abu","individual","SDGT","Director of PALESTINE LIBERATION FRONT - ABU ABBAS FACTION",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 10 Dec 1948; Director of PALESTINE LIBERATION FRONT - ABU ABBAS FACTION."',
  '6861,"GUZMAN LOERA, Joaquin","individual","SDNTK",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 25 Dec 1954; POB Mexico."',
  '22790,"MADURO MOROS, Nicolas","individual","VENEZUELA] [IRAN-CON-ARMS-EO","President of the Bolivarian Republic of Venezuela",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 23 Nov 1962; POB Caracas, Venezuela; citizen Venezuela; Gender Male."',
  '15667,"PAEK, Chang-Ho","individual","NPWMD",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 18 Jun 1964; POB Kaesong, DPRK; Secondary sanctions risk: North Korea Sanctions Regulations, sections 510.201 and 510.210; Transactions Prohibited For Persons Owned or Controlled By U.S. Financial Institutions: North Korea Sanctions Regulations section 510.214; Passport 381420754 issued 07 Dec 2011 expires 07 Dec 2016."',
  '\x1a',
].join('\r\n');
const ALT = ['2674,1795,"aka","ZAYDAN, Muhammad",-0- ', '6861,4618,"aka","GUZMAN, Chapo",-0- ', '6861,4629,"aka","GUZMAN, Joaquin Chapo",-0- '].join('\r\n');
const ADD = '22790,34442,-0- ,"Caracas, Capital District","Venezuela",-0- ';

// Synthetic articles about made-up people (no openly licensed news corpus was gathered).
const NEWS = [
  {
    url: 'https://news.example/a1',
    title: 'Landlord says Dana Whitlock ran a rental scam in Lisbon',
    snippet: 'Police said Dana Whitlock was arrested on Tuesday after tenants reported the fraud.',
    published_at: '2025-03-02T10:00:00Z',
  },
  { url: 'https://news.example/a2', title: 'Dana Whitlock wins the village bake-off', snippet: 'The lemon tart took first prize for the third year.', published_at: '2024-08-14T09:00:00Z' },
  { url: 'https://news.example/a3', title: 'Court fines company', snippet: 'A spokesperson, not named, said the fraud team worked with Whitlock Ltd.', published_at: '2023-01-01T00:00:00Z' },
  // Pak Chol Su (박철수) is the Korean stand-in name, as John Doe is in English; spelled the older way.
  {
    url: 'https://news.example/a4',
    title: 'Pak Chol Su charged over holiday rental fraud',
    snippet: 'Prosecutors say Pak Chol Su took deposits for flats he did not own.',
    published_at: '2025-05-20T08:00:00Z',
  },
  // The press writing a name family name first with a middle initial, and one about a relative.
  { url: 'https://news.example/a5', title: 'Tenants take Okafor, Chidi E. to court over unpaid deposits', snippet: 'The landlord denies the claims.', published_at: '2025-06-01T08:00:00Z' },
  { url: 'https://news.example/a6', title: 'Ngozi Okafor opens a bakery', snippet: 'Chidi, her cousin, helped with the shopfront.', published_at: '2025-06-02T08:00:00Z' },
  'not json',
].map((a) => (typeof a === 'string' ? a : JSON.stringify(a)));

const poppler = spawnSync('pdftoppm', ['-v']).status === 0;

/**
 * The report as a host gets it: its text (pdftotext) holds the lines expected, in words (no enum
 * word, ISO date, command or algorithm), every page has its footer, and every page renders to a
 * PNG (pdftoppm) that is not blank. Skipped where poppler is not installed (.ci/run installs it).
 */
async function readReport(pdf: Buffer, id: string, expected: string[]): Promise<void> {
  if (!poppler) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'report-'));
  try {
    writeFileSync(path.join(dir, 'report.pdf'), pdf);
    const text = execFileSync('pdftotext', ['-layout', path.join(dir, 'report.pdf'), '-'], { encoding: 'utf8' });
    const flat = text.replace(/[ \t]+/g, ' ');
    for (const line of expected) assert.ok(flat.includes(line), `${line} in:\n${text}`);
    const pages = text.split('\f').filter((p) => p.trim());
    pages.forEach((page, i) => assert.match(page.replace(/[ \t]+/g, ' '), new RegExp(`Background check report ${id} Page ${i + 1} of ${pages.length}`), `footer of page ${i + 1}`));
    assert.doesNotMatch(text, /\bNOT_RUN\b|\bCLEAR\b|\bREVIEW\b|\bCLEARED\b|\d{4}-\d{2}-\d{2}T|Jaro|score \d/);
    assert.doesNotMatch(text.replaceAll(id, 'the report'), operatorWords);
    execFileSync('pdftoppm', ['-r', '60', '-png', path.join(dir, 'report.pdf'), path.join(dir, 'page')]);
    const pngs = readdirSync(dir).filter((f) => f.endsWith('.png'));
    assert.equal(pngs.length, pages.length, 'one image per page');
    for (const png of pngs) assert.ok(statSync(path.join(dir, png)).size > 8_000, `${png} is not blank`);
    if (process.env.KEEP_REPORT) execFileSync('cp', ['-r', dir, process.env.KEEP_REPORT]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe(`background checks and adverse-media searches (${dbKind})`, () => {
  let t: TestApp;
  let host: Tenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** A second process on the same database, as `guestscreen data import` is: the service must see what it imports at once. */
  let importer: Deps;

  before(async () => {
    t = await createTestAppWithWorker({ GUESTSCREEN_CHECK_RETENTION_DAYS: '30' });
    importer = createDeps(loadConfig(t.env));
    host = await tenant(t);
    receiver = await startReceiver();
    const hook = await call(t, 'POST', '/v1/accounts/webhooks', { key: host.key, body: { webhook_key: 'background_check_webhook_url', webhook_url: `${receiver.url}/checks` } });
    assert.equal(hook.status, 200, hook.body);
  });
  after(async () => {
    await importer.database.close();
    await t.close();
    await receiver.close();
  });

  /** An adverse-media report once the worker has finished it. */
  const finishedReport = (id: string) =>
    eventually(async () => {
      const x = await call(t, 'GET', `/v1/lookup/adverse-media/results/${id}`, { key: host.key });
      return x.json.status === 'FINISHED' && x.json;
    }, 'the adverse-media report');

  const file = (name: string, text: string) => {
    const p = path.join(t.deps.config.dataDir, name);
    writeFileSync(p, text);
    return p;
  };

  it('says what to import when there is nothing to search, before recording anything', async () => {
    const r = await call(t, 'GET', '/v1/lookup/adverse-media/search?first_name=Dana&last_name=Whitlock&country=PT', { key: host.key });
    assert.equal(r.status, 500);
    assert.match(r.json.error, /data import news/);
    const b = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: host.key, body: { first_name: 'Dana', last_name: 'Whitlock' } });
    assert.equal(b.status, 500);
    assert.equal((await t.deps.db.selectFrom('background_checks').select('id').execute()).length, 0);
  });

  it('imports an OFAC list with its aliases and addresses, and a news corpus, skipping bad lines', async () => {
    const s = await importSanctions(t.deps, { primary: file('sdn_2021-07-07.csv', SDN), aliases: file('alt.csv', ALT), addresses: file('add.csv', ADD) });
    assert.deepEqual({ source: s.source, date: s.date, entries: s.entries, imported: s.imported }, { source: 'OFAC SDN', date: '2021-07-07', entries: 4, imported: 7 });
    const maduro = await t.deps.db.selectFrom('sanctions_names').select(['birth_years', 'countries', 'programs']).where('entry_id', '=', '22790').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(maduro.birth_years), [1962]);
    assert.deepEqual(JSON.parse(maduro.countries), ['VE']);
    assert.deepEqual(JSON.parse(maduro.programs), ['VENEZUELA', 'IRAN-CON-ARMS-EO']);
    const n = await importNews(importer, file('news.jsonl', NEWS.join('\n')), { source: 'synthetic news' });
    assert.equal(n.imported, 6);
    assert.deepEqual(n.rejected, [{ line: 7, problem: 'not a JSON object' }]);
  });

  it('answers an adverse-media search PENDING, then reports the articles by risk category with the evidence, and tells the webhook', async () => {
    const r = await call(t, 'GET', '/v1/lookup/adverse-media/search?first_name=Dana&last_name=Whitlock&country=pt&city=Lisbon', { key: host.key });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.status, 'PENDING');
    assert.match(r.json.id, /^chk_/);
    const report = await finishedReport(r.json.id);
    assert.deepEqual(report.riskCategories, ['Fraud or Financial Crime', 'Conflicts or Litigation', 'Other News']);
    assert.deepEqual(
      report.findings.map((f: { link: string }) => f.link),
      ['https://news.example/a1', 'https://news.example/a2'],
      'the article naming only "Whitlock Ltd" is left out',
    );
    const scam = report.findings[0];
    assert.deepEqual(scam.riskCategories, ['Fraud or Financial Crime', 'Conflicts or Litigation']);
    assert.match(scam.summary, /'scam' 4 words from the name \(fraud\)/);
    assert.match(scam.summary, /mentions Lisbon; published 2025-03-02 by news\.example/);
    assert.equal(scam.source.name, 'synthetic news');
    assert.deepEqual(report.findings[1].riskCategories, ['Other News']);
    const delivered = await eventually(async () => receiver.received.find((x) => x.body.includes(r.json.id)), 'the webhook');
    assert.equal(delivered.headers['webhook-event'] ?? JSON.parse(delivered.body).type, 'adverse_media.finished');
  });

  it('finds a sanctioned person in a background check by an alias, explains the match, and serves a PDF of it', async () => {
    const r = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: host.key, body: { first_name: 'Chapo', last_name: 'Guzman', year_of_birth: 1954, country: 'MX' } });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.status, 'PENDING');
    assert.equal(r.json.type, 'globalcheck');
    const done = await eventually(async () => {
      const x = await call(t, 'GET', `/v1/background-check/results/${r.json.id}`, { key: host.key });
      return x.json.status === 'FINISHED' && x.json;
    }, 'the background check');
    assert.equal(done.risk_status, 'REVIEW');
    const sanctions = done.report_items.find((s: { name: string }) => s.name === 'Sanctions and watchlists');
    assert.equal(sanctions.status, 'REVIEW');
    assert.equal(sanctions.items[0].title, 'GUZMAN LOERA, Joaquin');
    assert.equal(
      sanctions.items[0].description,
      'The name searched, Chapo Guzman, is the same as the listed name GUZMAN, Chapo, one of the names the list gives for this person. The list gives the year of birth 1954; the year searched was 1954.',
    );
    assert.deepEqual(
      done.report_items.map((s: { name: string; status: string }) => [s.name, s.status]),
      [
        ['Sanctions and watchlists', 'REVIEW'],
        ['Sex-offender registries', 'NOT_RUN'],
        ['Adverse media', 'CLEAR'],
        ['Criminal records', 'NOT_RUN'],
      ],
    );
    assert.equal(done.pdf, `http://guestscreen.test/v1/background-check/results/${r.json.id}/pdf`);
    const pdf = await t.app.inject({ url: `/v1/background-check/results/${r.json.id}/pdf`, headers: { 'x-api-key': host.key } });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.ok(pdf.rawPayload.length > 1000);
    await readReport(pdf.rawPayload, r.json.id, [
      'Background check report',
      'Person searched Chapo Guzman',
      'Year of birth 1954',
      'Country Mexico',
      `Requested by ${host.account.name}`,
      'Needs a look before you decide',
      'Possible matches in sanctions and watchlists.',
      'Sanctions and watchlists',
      'Possible match: needs a look',
      'Searched: OFAC SDN of 7 July 2021.',
      'GUZMAN LOERA, Joaquin',
      'Listed on OFAC SDN (list of 7 July 2021), entry 6861',
      'No registry records are installed',
      'Adverse media',
      'No record found for this person.',
    ]);
  });

  /** Runs a background check to its end and answers its sanctions section. */
  const sanctionsSection = async (body: Record<string, unknown>) => {
    const r = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: host.key, body });
    assert.equal(r.status, 200, r.body);
    const done = await eventually(async () => {
      const x = await call(t, 'GET', `/v1/background-check/results/${r.json.id}`, { key: host.key });
      return x.json.status === 'FINISHED' && x.json;
    }, 'the background check');
    return done.report_items.find((s: { name: string }) => s.name === 'Sanctions and watchlists');
  };

  it('finds news that spells a Korean name the older way when the name is given in Hangul', async () => {
    const r = await call(t, 'GET', `/v1/lookup/adverse-media/search?first_name=${encodeURIComponent('철수')}&last_name=${encodeURIComponent('박')}&country=kr`, { key: host.key });
    assert.equal(r.status, 200, r.body);
    const report = await finishedReport(r.json.id);
    assert.deepEqual(
      report.findings.map((f: { link: string }) => f.link),
      ['https://news.example/a4'],
    );
    assert.deepEqual(report.riskCategories, ['Fraud or Financial Crime', 'Conflicts or Litigation']);
  });

  it('finds news that writes the name its own way (family name first, an initial), and not news about a relative', async () => {
    const r = await call(t, 'GET', '/v1/lookup/adverse-media/search?first_name=Chidi&last_name=Okafor&country=ng', { key: host.key });
    assert.equal(r.status, 200, r.body);
    const report = await finishedReport(r.json.id);
    assert.deepEqual(
      report.findings.map((f: { link: string }) => f.link),
      ['https://news.example/a5'],
    );
    assert.match(report.findings[0].summary, /names the person as 'okafor chidi/);
    assert.deepEqual(report.riskCategories, ['Conflicts or Litigation']);
  });

  it('finds a listed person whose name is given in another script', async () => {
    const sanctions = await sanctionsSection({ first_name: 'Абу', last_name: 'Аббас', year_of_birth: 1948 });
    assert.equal(sanctions.status, 'REVIEW');
    assert.equal(sanctions.items[0].title, 'ABBAS, Abu');
    assert.equal(sanctions.items[0].description, 'The name searched, Абу Аббас, is the same as the listed name ABBAS, Abu. The list gives the year of birth 1948; the year searched was 1948.');
  });

  it('finds a listed North Korean by the spelling lists use, not only the Revised Romanization', async () => {
    // 백창호 is baek chang ho in the Revised Romanization; OFAC lists him as PAEK, Chang-Ho.
    const sanctions = await sanctionsSection({ first_name: '창호', last_name: '백', year_of_birth: 1964 });
    assert.equal(sanctions.status, 'REVIEW');
    assert.equal(sanctions.items[0].title, 'PAEK, Chang-Ho');
    assert.equal(sanctions.items[0].description, 'The name searched, 창호 백, is the same as the listed name PAEK, Chang-Ho. The list gives the year of birth 1964; the year searched was 1964.');
  });

  it('clears a person who is on no list, and leaves out a listed namesake born decades apart', async () => {
    await importSexOffenders(
      t.deps,
      file('registry.csv', 'id,first_name,last_name,dob,city,county,state,zip,charges,aliases,image_url,registered_at\nR9,Nicolas,Maduro,1990-05-05,Reno,Washoe,NV,,Synthetic charge,,,\n'),
      { source: 'synthetic registry', progress: false },
    );
    const r = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', {
      key: host.key,
      body: { first_name: 'Nicolas', last_name: 'Maduro', year_of_birth: 1999, country: 'ES', state: 'NV' },
    });
    const done = await eventually(async () => {
      const x = await call(t, 'GET', `/v1/background-check/results/${r.json.id}`, { key: host.key });
      return x.json.status === 'FINISHED' && x.json;
    }, 'the background check');
    assert.equal(done.risk_status, 'CLEARED');
    assert.deepEqual(
      done.report_items.slice(0, 2).map((s: { status: string }) => s.status),
      ['CLEAR', 'CLEAR'],
    );
    // The registry's namesake, born in 1990 in Nevada, is the one a search with that year finds.
    const again = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: host.key, body: { first_name: 'Nicolás', last_name: 'MADURO', year_of_birth: 1990, state: 'nv' } });
    const hit = await eventually(async () => {
      const x = await call(t, 'GET', `/v1/background-check/results/${again.json.id}`, { key: host.key });
      return x.json.status === 'FINISHED' && x.json;
    }, 'the second background check');
    const registry = hit.report_items.find((x: { name: string }) => x.name === 'Sex-offender registries');
    assert.equal(registry.status, 'REVIEW');
    assert.equal(registry.items[0].title, 'Nicolas Maduro');
    assert.equal(registry.items[0].description, 'The name searched, Nicolás MADURO, is close to the registered name Nicolas Maduro; the year of birth 1990 is the same. Charges: Synthetic charge.');
    assert.equal(hit.report_items[0].status, 'CLEAR', 'the sanctioned Maduro was born in 1962');
  });

  it('screens a booking against the imported lists: a listed guest with the listed year of birth is declined, with the match explained', async () => {
    const body = (first: string, last: string, birth: string) => ({
      guest: { first_name: first, last_name: last, email: `${first.toLowerCase()}@example.org` },
      identification: { first_name: first, last_name: last, birth_date: birth, document_number: `P${birth.replace(/-/g, '')}`, expiry_date: '2035-01-01' },
      check_in_date: '2027-03-01',
      check_out_date: '2027-03-04',
    });
    const listed = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: host.key, body: body('Joaquin', 'Guzman Loera', '1954-12-25') });
    assert.equal(listed.status, 200, listed.body);
    const status = await call(t, 'GET', `/v1/reservations/${listed.json.id}/status`, { key: host.key });
    assert.equal(status.json.status, 'declined', status.body);
    const summary = await call(t, 'GET', `/v1/reservations/${listed.json.id}/summary`, { key: host.key });
    assert.equal(summary.json.details.sanctions.status, 'FAIL', summary.body);
    assert.match(JSON.stringify(summary.json), /Probable match: the guest's name and date of birth match “GUZMAN LOERA, Joaquin” on OFAC SDN/);

    const newsworthy = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: host.key, body: body('Dana', 'Whitlock', '1985-06-01') });
    const dana = await call(t, 'GET', `/v1/reservations/${newsworthy.json.id}/summary`, { key: host.key });
    assert.equal(dana.json.details.adverse_media.status, 'REVIEW', dana.body);
    assert.equal(dana.json.details.sanctions.status, 'PASS');
    assert.match(
      JSON.stringify(dana.json),
      /News names the guest near words of fraud and litigation \(“scam”, “arrested”\): “Landlord says Dana Whitlock ran a rental scam in Lisbon” \(2 March 2025\)/,
    );
  });

  it('flags a payment made from an address an imported feed lists (a Tor exit of the TorDNSEL list), and one made far from its card', async () => {
    await importThreatFeed(importer, file('tor.ipset', '# tor_exits\n#\n# Category        : anonymizers\n#\n2.58.56.12\n'), {});
    const r = await call(t, 'POST', '/v1/reservations?skip_gp=1', {
      key: host.key,
      body: { guest: { first_name: 'Ines', last_name: 'Costa', email: 'ines.costa@example.org' }, check_in_date: '2027-05-01', check_out_date: '2027-05-03' },
    });
    const paid = await call(t, 'POST', `/v1/reservations/${r.json.id}/payment-event`, {
      key: host.key,
      body: { event_source: 'stripe', event_id: 'ch_1', event_type: 'charge', event_status: 'succeeded', amount: 300, currency: 'EUR', ip_address: '2.58.56.12', timestamp: '2027-04-01T10:00:00Z' },
    });
    // A second payment from London (DB-IP Lite places 81.2.69.142 there) with a Portuguese card.
    await call(t, 'POST', `/v1/reservations/${r.json.id}/payment-event`, {
      key: host.key,
      body: {
        event_source: 'stripe',
        event_id: 'ch_2',
        event_type: 'charge',
        event_status: 'succeeded',
        amount: 50,
        currency: 'EUR',
        card_country: 'PT',
        ip_address: '81.2.69.142',
        timestamp: '2027-04-01T10:05:00Z',
      },
    });
    assert.equal(paid.status, 200, paid.body);
    const summary = await eventually(async () => {
      const x = await call(t, 'GET', `/v1/reservations/${r.json.id}/summary`, { key: host.key });
      return JSON.stringify(x.json).includes('A payment came from 2.58.56.12') && JSON.stringify(x.json).includes('81.2.69.142') && x.json;
    }, 'the screening run after the payment event');
    assert.equal(summary.details.fraud_detection.status, 'REVIEW');
    assert.match(JSON.stringify(summary), /A payment came from 2\.58\.56\.12, an address on a public list of anonymising services/);
    assert.match(JSON.stringify(summary), /Payment made from 81\.2\.69\.142 in GB; card issued in PT, billing country unknown/);
  });

  it("refuses bad input with 400 naming the field, hides other accounts' checks, and deletes one with all it holds", async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ['GET', '/v1/lookup/adverse-media/search?first_name=Dana&country=PT', undefined, /^query\.last_name: is required/],
      ['GET', '/v1/lookup/adverse-media/search?first_name=Dana&last_name=W&country=XX', undefined, /^country: 'XX' is not an ISO 3166 country code/],
      ['GET', '/v1/lookup/adverse-media/search?first_name=Dana&last_name=W&country=PT&year_of_birth=85', undefined, /^year_of_birth: must be a four-digit year/],
      ['POST', '/v1/background-check/submit?type=localcheck', { first_name: 'A', last_name: 'B' }, /type/],
      ['POST', '/v1/background-check/submit?type=globalcheck', { first_name: 'A', last_name: 'B', ssn: '123' }, /ssn/],
      ['POST', '/v1/background-check/submit?type=globalcheck', undefined, /^body\.first_name: is required/],
    ];
    for (const [method, url, body, message] of cases) {
      const r = await call(t, method, url, { key: host.key, body });
      assert.equal(r.status, 400, `${url}: ${r.body}`);
      assert.match(r.json.error, message);
    }
    const mine = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: host.key, body: { first_name: 'A', last_name: 'B' } });
    const stranger = await tenant(t);
    assert.equal((await call(t, 'GET', `/v1/background-check/results/${mine.json.id}`, { key: stranger.key })).status, 404);
    assert.equal((await call(t, 'GET', `/v1/lookup/adverse-media/results/${mine.json.id}`, { key: host.key })).status, 404, 'a background check is not an adverse-media report');
    assert.equal((await call(t, 'DELETE', `/v1/background-check/results/${mine.json.id}`, { key: stranger.key })).status, 404);
    const gone = await call(t, 'DELETE', `/v1/background-check/results/${mine.json.id}`, { key: host.key });
    assert.equal(gone.status, 200, gone.body);
    assert.equal((await call(t, 'GET', `/v1/background-check/results/${mine.json.id}`, { key: host.key })).status, 404);
    assert.equal(await t.deps.db.selectFrom('background_checks').select('id').where('id', '=', mine.json.id).executeTakeFirst(), undefined);
  });

  it("lists an account's background checks newest first, by status, without their findings, and no one else's", async () => {
    const all = await call(t, 'GET', '/v1/background-check/results?size=100', { key: host.key });
    assert.equal(all.status, 200, all.body);
    const expected = await t.deps.db.selectFrom('background_checks').select(['id', 'start_date']).where('account_id', '=', host.account.id).where('type', '=', 'globalcheck').execute();
    assert.equal(all.json.total, expected.length);
    assert.ok(all.json.total >= 3);
    assert.deepEqual(
      all.json.items.map((i: { id: string }) => i.id),
      [...expected].sort((a, b) => (a.start_date === b.start_date ? (a.id < b.id ? 1 : -1) : a.start_date < b.start_date ? 1 : -1)).map((e) => e.id),
    );
    const item = all.json.items.find((i: { status: string; pdf: string | null }) => i.status === 'FINISHED' && i.pdf);
    assert.deepEqual(Object.keys(item).sort(), ['id', 'pdf', 'results', 'risk_status', 'start_date', 'status', 'stop_date', 'type']);
    assert.equal(item.results, `http://guestscreen.test/v1/background-check/results/${item.id}`);
    const finished = await call(t, 'GET', '/v1/background-check/results?status=FINISHED&size=1', { key: host.key });
    assert.equal(finished.json.items.length, 1);
    assert.equal(finished.json.items[0].status, 'FINISHED');
    assert.equal(finished.json.total, all.json.items.filter((i: { status: string }) => i.status === 'FINISHED').length);
    const stranger = await tenant(t);
    assert.deepEqual((await call(t, 'GET', '/v1/background-check/results', { key: stranger.key })).json, { from: 0, size: 20, total: 0, items: [] });
    const bad = await call(t, 'GET', '/v1/background-check/results?size=101', { key: host.key });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /size/);
  });

  it("lists an account's adverse-media reports newest first, without their findings, and not its background checks", async () => {
    const second = await call(t, 'GET', '/v1/lookup/adverse-media/search?first_name=Dana&last_name=Whitlock&country=pt', { key: host.key });
    assert.equal(second.status, 200, second.body);
    const expected = await t.deps.db.selectFrom('background_checks').select(['id', 'start_date']).where('account_id', '=', host.account.id).where('type', '=', 'adverse_media').execute();
    assert.ok(expected.length >= 2);
    const all = await call(t, 'GET', '/v1/lookup/adverse-media/results?size=100', { key: host.key });
    assert.equal(all.status, 200, all.body);
    assert.equal(all.json.total, expected.length);
    assert.deepEqual(
      all.json.items.map((i: { id: string }) => i.id),
      [...expected].sort((a, b) => (a.start_date === b.start_date ? (a.id < b.id ? 1 : -1) : a.start_date < b.start_date ? 1 : -1)).map((e) => e.id),
    );
    const item = all.json.items.find((i: { id: string }) => i.id === second.json.id);
    assert.deepEqual(Object.keys(item).sort(), ['id', 'results', 'startDate', 'status', 'stopDate']);
    assert.equal(item.results, `http://guestscreen.test/v1/lookup/adverse-media/results/${item.id}`);
    await eventually(async () => (await call(t, 'GET', '/v1/lookup/adverse-media/results?status=PENDING', { key: host.key })).json.total === 0, 'every report finished');
    const finished = await call(t, 'GET', '/v1/lookup/adverse-media/results?status=FINISHED&size=1', { key: host.key });
    assert.equal(finished.json.items.length, 1);
    assert.equal(finished.json.total, expected.length);
    const stranger = await tenant(t);
    assert.deepEqual((await call(t, 'GET', '/v1/lookup/adverse-media/results', { key: stranger.key })).json, { from: 0, size: 20, total: 0, items: [] });
    const bad = await call(t, 'GET', '/v1/lookup/adverse-media/results?status=DONE', { key: host.key });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /status/);
  });

  it('matches finished background checks against a list imported later: a new listed person turns the check REVIEW and tells the webhook', async () => {
    const r = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: host.key, body: { first_name: 'Roman', last_name: 'Abramovich', country: 'RU' } });
    assert.equal(r.status, 200, r.body);
    const result = () => call(t, 'GET', `/v1/background-check/results/${r.json.id}`, { key: host.key });
    const first = await eventually(async () => (await result()).json.status === 'FINISHED' && (await result()).json, 'the background check');
    assert.equal(first.report_items.find((s: { name: string }) => s.name === 'Sanctions and watchlists').status, 'CLEAR');
    const pdfBefore = (await t.app.inject({ url: `/v1/background-check/results/${r.json.id}/pdf`, headers: { 'x-api-key': host.key } })).rawPayload;

    await importSanctions(t.deps, { primary: path.join(import.meta.dirname, '../../../test/fixtures/sanctions/uk_sanctions_list_2026-03-02.xml') });
    const later = await eventually(async () => (await result()).json.risk_status === 'REVIEW' && (await result()).json, 'the check matched again');
    const sanctions = later.report_items.find((s: { name: string }) => s.name === 'Sanctions and watchlists');
    assert.equal(sanctions.status, 'REVIEW');
    const item = sanctions.items.find((i: { title: string }) => i.title === 'ABRAMOVICH, Roman Arkadyevich');
    assert.ok(item, JSON.stringify(sanctions.items));
    assert.match(item.subtitle, /^Listed on UK Sanctions List \(list of 2 March 2026\), entry RUS0276/);
    assert.match(item.description, /^Named by UK Sanctions List after this check ran \(list of 2 March 2026\)\. The name searched, Roman Abramovich, is the same as the listed name/);
    assert.ok(item.tags.includes('list update'));
    const pdfAfter = (await t.app.inject({ url: `/v1/background-check/results/${r.json.id}/pdf`, headers: { 'x-api-key': host.key } })).rawPayload;
    assert.notDeepEqual(pdfAfter, pdfBefore, 'the PDF is made again');
    const told = await eventually(async () => receiver.received.find((x) => x.body.includes(r.json.id) && x.headers['webhook-event'] === 'background_check.updated'), 'the webhook');
    assert.equal(JSON.parse(told.body).risk_status, 'REVIEW');
  });

  it('erases checks of both kinds past the retention days and keeps the newer ones', async () => {
    const older = await t.deps.db.selectFrom('background_checks').select('id').execute();
    assert.ok(older.length >= 3);
    const clock = t.deps.clock;
    const later = new Date(clock().getTime() + 31 * 86_400_000);
    t.deps.clock = () => later;
    try {
      const recent = await call(t, 'GET', '/v1/lookup/adverse-media/search?first_name=Dana&last_name=Whitlock&country=pt', { key: host.key });
      assert.equal(recent.status, 200, recent.body);
      assert.equal(await purgeExpiredChecks(t.deps), older.length);
      for (const { id } of older) {
        assert.equal((await call(t, 'GET', `/v1/background-check/results/${id}`, { key: host.key })).status, 404);
        assert.equal((await call(t, 'GET', `/v1/lookup/adverse-media/results/${id}`, { key: host.key })).status, 404);
      }
      const left = await call(t, 'GET', '/v1/lookup/adverse-media/results', { key: host.key });
      assert.deepEqual(
        left.json.items.map((i: { id: string }) => i.id),
        [recent.json.id],
      );
      assert.equal((await call(t, 'GET', '/v1/background-check/results', { key: host.key })).json.total, 0);
      assert.equal(await purgeExpiredChecks(t.deps), 0);
    } finally {
      t.deps.clock = clock;
    }
  });
});

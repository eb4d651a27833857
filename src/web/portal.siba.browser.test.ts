import { runReportJob } from '../../test/police.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SIBA_FILES_PRESENT, startFakeSiba, type FakeSiba } from '../../test/fake-siba.js';
import { haveChromium, launchBrowser, signIn, snap, withPassword } from '../../test/browser.js';
import { call, createTestApp, dbKind, setPortalScreens, tenant, type Tenant, type TestApp } from '../../test/harness.js';
import { dayIn } from '../lib/time.js';

const UNIT = { unit: '121212121', establishment: '00', key: '999999999' };
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/**
 * A Portuguese listing set up in the console, and a family completing the portal on a phone in
 * German: the father (German), the mother (Brazilian), their son, and a Portuguese friend who is
 * asked nothing more and not reported. The foreign guests are filed with SIBA (in test mode, its
 * development service: the fake validates every file against bal.xsd and SIBA's ICAO table); a
 * guest SIBA refuses is named to the host in SIBA's words.
 */
describe(
  `Portugal's SIBA: set up in the console, a family through the portal on a phone (${dbKind})`,
  {
    skip: !haveChromium ? 'Chromium not installed (.ci/run installs it)' : !SIBA_FILES_PRESENT ? 'the shared SIBA files are not beside this checkout' : false,
  },
  () => {
    let t: TestApp;
    let siba: FakeSiba;
    let browser: Browser;
    let base: string;
    let me: Tenant;
    let host: Page;
    const lisbon = () => dayIn(new Date().toISOString(), 'Europe/Lisbon');
    const later = (d: string, n: number) => new Date(Date.parse(d) + n * 86_400_000).toISOString().slice(0, 10);
    const submit = (page: Page, selector: string) => Promise.all([page.waitForLoadState(), page.click(selector)]);

    before(async () => {
      siba = await startFakeSiba([UNIT]);
      t = await createTestApp({ GUESTSCREEN_SIBA_TEST_URL: siba.url, GUESTSCREEN_SIBA_URL: siba.url.replace('/bawsdev/', '/baws/') });
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      browser = await launchBrowser();
      me = await tenant(t);
      await withPassword(t, me);
      await setPortalScreens(t, me.key, {
        AboutYou: 'disabled',
        IDVerification: 'disabled',
        IDCollection: 'disabled',
        HouseRules: 'disabled',
        UsageAgreement: 'disabled',
        AuthorityReporting: 'required',
      });
      host = await (await browser.newContext({ viewport: DESKTOP })).newPage();
      await signIn(host, base, me.account.email ?? '');
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await siba?.close();
    });

    async function family(first: string): Promise<{ id: string; guest: Page }> {
      const r = await call(t, 'POST', '/v1/reservations', {
        key: me.key,
        body: {
          listing_id: 'porto-1',
          number_of_guests: 4,
          check_in_date: lisbon(),
          check_out_date: later(lisbon(), 4),
          listing_timezone_name: 'Europe/Lisbon',
          guest: { first_name: first, last_name: 'Becker', email: 'klaus@example.de', language: 'de' },
        },
      });
      assert.equal(r.status, 200, r.body);
      const guest = await (await browser.newContext({ viewport: PHONE, locale: 'de' })).newPage();
      await guest.goto(base + new URL(r.json.guest_portal_url).pathname);
      return { id: r.json.id as string, guest };
    }

    /** Each guest's fields as a person types them on the phone. */
    async function fillGuest(page: Page, prefix: string, g: Record<string, string>) {
      for (const [name, value] of Object.entries(g)) {
        const id = `#f_${prefix}${name}`;
        if (name === 'document_type') await page.selectOption(id, value);
        else await page.fill(id, value);
      }
    }
    const klaus = (documentNumber: string) => ({
      first_name: 'Klaus',
      last_name: 'Becker',
      nationality: 'Deutschland',
      birth_date: '1979-03-14',
      birth_place: 'Hamburg',
      document_type: 'id_card',
      document_number: documentNumber,
      document_country: 'Deutschland',
      residence_country: 'Deutschland',
      city: 'Berlin',
    });
    const ana = {
      first_name: 'Ana',
      last_name: 'Souza',
      nationality: 'Brasilien',
      birth_date: '1984-07-01',
      document_type: 'passport',
      document_number: 'FZ123456',
      document_country: 'Brasilien',
      residence_country: 'Deutschland',
      city: 'Berlin',
    };
    const leon = {
      first_name: 'Leon',
      last_name: 'Becker',
      nationality: 'Deutschland',
      birth_date: '2016-05-20',
      document_type: 'passport',
      document_number: 'C4J7K2L9M',
      document_country: 'Deutschland',
      residence_country: 'Deutschland',
      city: 'Berlin',
    };

    async function completePortal(guest: Page, documentNumber: string) {
      await fillGuest(guest, '', klaus(documentNumber));
      await fillGuest(guest, 'guest_1_', ana);
      await fillGuest(guest, 'guest_2_', leon);
      await fillGuest(guest, 'guest_3_', { first_name: 'João', last_name: 'Silva', nationality: 'Portugal' });
    }

    it('sets up a Portuguese listing in the console, checked by SIBA, a wrong key refused in its words', async () => {
      await host.goto(`${base}/console/listings`);
      await host.fill('#new-listing-id', 'porto-1');
      await host.fill('#new-listing-name', 'Casa do Rio');
      await submit(host, '#add-listing button[type=submit]');
      await host.click('summary:has-text("SIBA (Portugal)")');
      const fillSiba = async (key: string) => {
        await host.fill('#siba-nipc', UNIT.unit);
        await host.fill('#siba-establishment', UNIT.establishment);
        await host.fill('#siba-name', 'Casa do Rio');
        await host.fill('#siba-address', 'Rua Direita 12');
        await host.fill('#siba-town', 'Porto');
        await host.fill('#siba-postcode', '4050-123');
        await host.fill('#siba-phone', '223456789');
        await host.fill('#siba-contact', 'Rita Sousa');
        await host.fill('#siba-email', 'rita@example.pt');
        await host.fill('#siba-key', key);
      };
      await fillSiba('000000000');
      await submit(host, '#police-siba button[type=submit]');
      assert.match(
        (await host.textContent('[role=alert]')) ?? '',
        /SIBA refused this NIPC, establishment number or access key \(test mode\): 60 Não foi possível autenticar a Unidade Hoteleira; nothing was saved/,
      );

      await host.goto(`${base}/console/listings/porto-1#police-h`);
      await host.click('summary:has-text("SIBA (Portugal)")');
      await fillSiba(UNIT.key);
      await host.locator('#police-siba').scrollIntoViewIfNeeded();
      await snap(host, 'console-listing-police-siba-form');
      await submit(host, '#police-siba button[type=submit]');
      assert.match((await host.textContent('[role=status]')) ?? '', /the authority took these credentials/);
      const current = (await host.textContent('#police-current')) ?? '';
      assert.match(current, /SIBA/);
      assert.match(current, /Test mode: each stay’s foreign guests go to SIBA’s development service/);
      assert.match(current, /121212121, establishment 00/);
      assert.match(current, /Casa do Rio \(Casa do Rio\), Rua Direita 12, 4050-123 Porto/);
      await host.locator('#police-h').scrollIntoViewIfNeeded();
      await snap(host, 'console-listing-police-siba');
      assert.deepEqual(siba.invalid, []);
    });

    it('a family fills in the police step on a phone in German: the Portuguese friend is asked nothing more, and the foreign guests are filed', async () => {
      const { id, guest } = await family('Klaus');
      assert.match((await guest.textContent('main')) ?? '', /SIBA/);
      await completePortal(guest, 'L01X00T47');
      // The Portuguese friend's other fields are hidden once his nationality reads Portugal.
      assert.equal(await guest.isVisible('#f_guest_3_document_number'), false, 'not asked of a Portuguese guest');
      assert.equal(await guest.isVisible('#f_guest_2_document_number'), true);
      assert.match((await guest.textContent('#f_guest_3_nationality ~ small.hint')) ?? '', /Wenn Sie Portugiese/);
      await guest.locator('#f_guest_3_nationality').scrollIntoViewIfNeeded();
      await snap(guest, 'portal-police-siba-de');
      await submit(guest, 'button[value=save]');
      assert.match((await guest.textContent('main')) ?? '', /Meldung bei den Behörden: erledigt/, `saved: ${await guest.textContent('main')}`);
      await submit(guest, 'form[action$="/submit"] button');

      const before = siba.taken.length;
      await runReportJob(t.deps, id);
      assert.deepEqual(siba.invalid, []);
      assert.equal(siba.taken.length, before + 1, `one file: ${JSON.stringify((await call(t, 'GET', `/v1/reservations/${id}/authority-reports`, { key: me.key })).json)}`);
      assert.deepEqual(
        siba.taken.at(-1)!.bulletins.map((b) => [b.Apelido, b.Nome, b.Nacionalidade, b.Pais_Emissor_Documento, b.Tipo_Documento]),
        [
          ['Becker', 'Klaus', 'D', 'D', 'B'],
          ['Souza', 'Ana', 'BRA', 'BRA', 'P'],
          ['Becker', 'Leon', 'D', 'D', 'P'],
        ],
      );

      await host.goto(`${base}/console/reservations/${id}#reports-h`);
      const reports = (await host.textContent('#reports')) ?? '';
      assert.match(reports, /Klaus Becker[\s\S]*Accepted/);
      assert.match(reports, /João Silva[\s\S]*Not reported/);
      await host.locator('#reports-h').scrollIntoViewIfNeeded();
      await snap(host, 'console-reports-siba');
    });

    it('names a guest SIBA refuses to the host, in SIBA’s words, with what to do', async () => {
      siba.refuseDocument('L01X00T48', { code: '22', words: 'Documento de identificação inválido' });
      const { id, guest } = await family('Klaus');
      await completePortal(guest, 'L01X00T48');
      await submit(guest, 'button[value=save]');
      await submit(guest, 'form[action$="/submit"] button');
      await runReportJob(t.deps, id);
      await host.goto(`${base}/console/reports`);
      const rejected = (await host.textContent('#rejected')) ?? '';
      assert.match(rejected, /Klaus Becker/);
      assert.match(rejected, /SIBA said \(22\): “?Documento de identificação inválido/);
      assert.match(rejected, /SIBA refused this guest’s bulletin \(its words above\): correct the guest’s details with them, then send again\./);
      assert.match(rejected, /Ana Souza[\s\S]*Not sent: SIBA refused another guest of this file/);
      await snap(host, 'console-reports-siba-refused');
    });
  },
);

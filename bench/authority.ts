/**
 * npm run bench:authority: the sending job's time a guest. Stays of two guests whose portal is
 * complete are filed with SES.HOSPEDAJES (the tests' fake on 127.0.0.1, its XSD check left out,
 * in this process), each with its send and the three looks at its lot that follow; beside them, as
 * the baseline, the same number of bare SOAP posts of the same size to the same fake. Prints the
 * job's wall and CPU time a guest, the ratio to the baseline, and writes bench/results/authority.json
 * (on SQLite, or on PostgreSQL with DATABASE_URL).
 *
 *   npm run bench:authority            (STAYS=200 by default)
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { request } from 'undici';
import { startFakeSes } from '../test/fake-ses.js';
import { POLICE_ONLY_SCREENS } from '../test/police.js';
import { call, createTestApp, dbKind, setPortalScreens, tenant } from '../test/harness.js';
import { translator } from '../src/i18n/index.js';
import type { JobRow } from '../src/jobs/repo.js';
import { runAuthoritySend } from '../src/modules/authority/reports.js';
import { openPortal, saveStep, submitPortal } from '../src/modules/portal/service.js';

const STAYS = Number(process.env.STAYS ?? 200);
const GUESTS = 2;
const SES = { user: 'B12345678WS', password: 'secreta', arrendador: '0000000001' };
const log = (m: string) => process.stderr.write(`[bench:authority] ${m}\n`);

const ses = await startFakeSes(SES, { validate: false });
const t = await createTestApp({ GUESTSCREEN_SES_TEST_URL: ses.url });
try {
  const me = await tenant(t);
  await setPortalScreens(t, me.key, POLICE_ONLY_SCREENS);
  const est = await call(t, 'PUT', '/v1/listings/bench/authority-establishment', {
    key: me.key,
    body: { system: 'ses', landlord_code: SES.arrendador, establishment_code: '0000000042', username: SES.user, password: SES.password },
  });
  if (est.status !== 200) throw new Error(est.body);
  const today = new Date().toISOString().slice(0, 10);
  const later = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const en = translator('en');
  const guest = (g: number, n: number) => {
    const p = g === 0 ? '' : `guest_${g}_`;
    return {
      [`${p}first_name`]: `Ana${n}`,
      [`${p}last_name`]: 'García',
      [`${p}second_last_name`]: 'López',
      [`${p}sex`]: 'female',
      [`${p}birth_date`]: '1980-04-02',
      [`${p}nationality`]: 'ES',
      [`${p}document_type`]: 'passport',
      [`${p}document_number`]: `P${String(n * 10 + g).padStart(8, '0')}`,
      [`${p}residence_country`]: 'ES',
      [`${p}address`]: 'Calle Mayor 1',
      [`${p}city`]: 'Madrid',
      [`${p}postal_code`]: '28013',
      [`${p}email`]: `ana${n}@example.es`,
    };
  };
  log(`${STAYS} stays of ${GUESTS} guests, their portals completed (${dbKind})`);
  const ids: string[] = [];
  for (let n = 0; n < STAYS; n++) {
    const r = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { listing_id: 'bench', number_of_guests: GUESTS, check_in_date: today, check_out_date: later, guest: { first_name: `Ana${n}`, last_name: 'García' } },
    });
    const token = new URL(r.json.guest_portal_url).pathname.split('/').pop()!;
    const saved = await saveStep(t.deps, await openPortal(t.deps, token), en, 'AuthorityReporting', { ...guest(0, n), ...guest(1, n) }, [], false);
    if (!saved.ok) throw new Error(JSON.stringify(saved.problems));
    await submitPortal(t.deps, await openPortal(t.deps, token));
    ids.push(r.json.id);
  }
  const ctx = { deps: t.deps, db: t.deps.db, job: { attempt: 1, max_attempts: 8 } as JobRow, signal: new AbortController().signal, breathe: async () => {} };

  // The baseline: a bare post of a part's size to the same fake, as many as the job makes.
  const body = ses.requests.length ? ses.requests[0]! : '';
  const sample = `<?xml version="1.0" encoding="UTF-8"?>${'x'.repeat(Math.max(2_000, body.length))}`;
  let started = performance.now();
  for (let i = 0; i < STAYS * 4; i++) {
    const res = await request(ses.url, { method: 'POST', body: sample, headers: { 'content-type': 'text/xml' } });
    await res.body.text();
  }
  const baselineMs = performance.now() - started;

  log('filing each stay: its send and three looks at its lot');
  const cpu = process.cpuUsage();
  started = performance.now();
  for (const id of ids) for (let i = 0; i < 4; i++) await runAuthoritySend({ reservation_id: id }, ctx);
  const jobMs = performance.now() - started;
  const cpuMs = (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1000;
  const accepted = await t.deps.db.selectFrom('authority_reports').select('id').where('state', '=', 'accepted').execute();
  if (accepted.length !== STAYS * GUESTS) throw new Error(`${accepted.length} of ${STAYS * GUESTS} reports accepted`);
  const perGuest = jobMs / (STAYS * GUESTS);
  const result = {
    date: new Date().toISOString().slice(0, 10),
    database: dbKind,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`,
    what: `the authority.send job filing ${STAYS} stays of ${GUESTS} guests with the SES fake on 127.0.0.1 (in this process, XSD check off): one send and three looks at the lot a stay. baseline: ${STAYS * 4} bare posts of a part's size to the same fake.`,
    stays: STAYS,
    guests: STAYS * GUESTS,
    job_ms_per_guest: Number(perGuest.toFixed(2)),
    cpu_ms_per_guest: Number((cpuMs / (STAYS * GUESTS)).toFixed(2)),
    baseline_ms_per_guest: Number((baselineMs / (STAYS * GUESTS)).toFixed(2)),
    ratio_to_baseline: Number((jobMs / baselineMs).toFixed(2)),
    target_ms_per_guest: 100,
  };
  process.stdout.write(
    `job ${result.job_ms_per_guest} ms a guest (CPU ${result.cpu_ms_per_guest} ms, the fake's included); baseline ${result.baseline_ms_per_guest} ms; ratio ${result.ratio_to_baseline}; target < 100 ms\n`,
  );
  writeFileSync(new URL(`results/authority${dbKind === 'postgres' ? '-postgres' : ''}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await t.close();
  await ses.close();
}

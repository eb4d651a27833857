/**
 * The tenants and objects the hardening runs work against, made through the API (and, for what
 * only a worker or a guest makes, through the services the worker and the portal call).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JobRow } from '../../src/jobs/repo.js';
import { importNews } from '../../src/providers/adverse-media/import.js';
import { importSanctions } from '../../src/providers/sanctions/import.js';
import { runCheck } from '../../src/modules/background-checks/service.js';
import { openPortal, saveStep } from '../../src/modules/portal/service.js';
import { call, multipartBody, tenant, type Answer, type Tenant, type TestApp } from '../../test/harness.js';
import { timeSlicer } from '../../src/lib/time-slice.js';
import { translator } from '../../src/i18n/index.js';
import { submitDocument } from '../../src/modules/identity/service.js';
import { storeReceipt } from '../../src/modules/authority/reports.js';
import sharp from 'sharp';

export interface Objects {
  reservation: string;
  rule: string;
  block: string;
  delivery: string;
  file: string;
  search: string;
  check: string;
  verification: string;
}

export interface World {
  t: TestApp;
  /** The eight principals: who calls, with which key (none for `missing`). */
  principals: Record<Principal, string | undefined>;
  /** The account and objects every request of the matrix names: the `owner`'s. */
  owner: Tenant;
  child: Tenant;
  objects: Objects;
}

export const PRINCIPALS = ['owner', 'child', 'other_reseller', 'other_child', 'disabled', 'suspended', 'malformed', 'missing'] as const;
export type Principal = (typeof PRINCIPALS)[number];

/** A small JPEG: what the routes that take photos get from the probes. */
export const probePhoto = () =>
  sharp({ create: { width: 400, height: 300, channels: 3, background: '#d8d4cc' } })
    .jpeg()
    .toBuffer();

/** The routes that take photos, and the form part each reads: the probes send them a multipart form. */
export const UPLOADS: Record<string, string[]> = {
  'POST /v1/reservations/{id}/identity-documents': ['front'],
  'POST /v1/identity/read': ['image'],
  'POST /v1/identity/compare': ['image_a', 'image_b'],
};

/** A multipart form with one file part: the probe photo. */
export const multipartForm = (parts: string[], data: Buffer) => multipartBody(parts.map((name) => ({ name, filename: 'probe.jpg', type: 'image/jpeg', data })));

/** The day of the police receipt each tenant's establishment keeps, for the route that serves it. */
const RECEIPT_DAY = '2026-01-02';

const PDF = Buffer.from(`%PDF-1.4\n% hardening probe\n${'0'.repeat(200)}\n%%EOF\n`);

async function objectsOf(t: TestApp, who: Tenant): Promise<Objects> {
  const ok = (r: Answer, what: string) => {
    if (r.status !== 200) throw new Error(`setting up ${what}: ${r.status} ${r.body}`);
    return r;
  };
  await call(t, 'POST', '/v1/accounts/webhooks', { key: who.key, body: { webhook_key: 'reservation_webhook_url', webhook_url: 'http://127.0.0.1:9/never' } });
  await call(t, 'PUT', '/v1/accounts/settings/guest-portal-screens/guest_portal_screens_default', {
    key: who.key,
    body: { config_key: 'guest_portal_screens_default', config_data: [{ guest_portal_screens: { FileUpload: 'required' } }] },
  });
  // A police system for the account and the listing the probes name, so their reads, edits and removals have one.
  const establishment = { system: 'ses', landlord_code: '0000000001', establishment_code: '0000000042', username: 'probe', password: 'probe' };
  for (const url of ['/v1/accounts/authority-establishment', '/v1/listings/hardening-listing/authority-establishment'])
    ok(await call(t, 'PUT', url, { key: who.key, body: establishment }), 'an authority establishment');
  const est = await t.deps.db.selectFrom('authority_establishments').select(['id', 'account_id']).where('account_id', '=', who.account.id).where('listing_id', '=', '').executeTakeFirstOrThrow();
  await storeReceipt(t.deps, est, RECEIPT_DAY, PDF);
  const r = ok(await call(t, 'POST', '/v1/reservations', { key: who.key, body: { guest: { first_name: 'Hard', last_name: 'Ening' } } }), 'a reservation');
  const portal = await openPortal(t.deps, new URL(r.json.guest_portal_url).pathname.split('/').pop() ?? '');
  await saveStep(t.deps, portal, translator('en'), 'FileUpload', {}, [{ field: 'document', filename: 'id.pdf', contentType: 'application/pdf', data: PDF }], false);
  const file = await t.deps.db.selectFrom('guest_portal_files').select('id').where('reservation_id', '=', r.json.id).executeTakeFirstOrThrow();
  const delivery = await t.deps.db.selectFrom('webhook_deliveries').select('id').where('account_id', '=', who.account.id).executeTakeFirstOrThrow();
  const rule = ok(await call(t, 'POST', '/v1/rules', { key: who.key, body: { name: 'long stays', expression: 'reservation.nights > 30', action: 'review' } }), 'a rule');
  const block = ok(await call(t, 'POST', '/v1/blocklist', { key: who.key, body: { email: 'blocked@example.test', reason: 'probe' } }), 'a block');
  const search = ok(await call(t, 'GET', '/v1/lookup/adverse-media/search?first_name=Hard&last_name=Ening&country=GB', { key: who.key }), 'a search');
  const check = ok(await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: who.key, body: { first_name: 'Hard', last_name: 'Ening' } }), 'a check');
  for (const id of [search.json.id, check.json.id]) {
    await runCheck({ check_id: id }, { deps: t.deps, db: t.deps.db, job: { attempt: 1, max_attempts: 5 } as JobRow, signal: new AbortController().signal, breathe: timeSlicer() });
  }
  // A reading of a document photo (no worker runs: it stays pending, which is enough to be named).
  const reading = await submitDocument(t.deps, who.account, r.json.id, 'api', [{ side: 'front', data: await probePhoto() }]);
  return { reservation: r.json.id, rule: rule.json.id, block: block.json.id, delivery: delivery.id, file: file.id, search: search.json.id, check: check.json.id, verification: reading.id };
}

export async function buildWorld(t: TestApp): Promise<World> {
  // A news corpus, so adverse-media searches run (from a file, as an operator imports one).
  const corpus = path.join(t.deps.config.dataDir, 'news.jsonl');
  writeFileSync(corpus, `${JSON.stringify({ url: 'https://news.example/1', title: 'Hard Ening opens a bakery' })}\n`);
  await importNews(t.deps, corpus, {});
  const sdn = path.join(t.deps.config.dataDir, 'sdn_2024-05-03.csv');
  writeFileSync(sdn, '1,"ENING, Hard","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1a');
  await importSanctions(t.deps, { primary: sdn });
  const owner = await tenant(t, { reseller: true });
  const child = await tenant(t, { parent: owner });
  const otherReseller = await tenant(t, { reseller: true });
  const otherChild = await tenant(t, { parent: otherReseller });
  const disabled = await tenant(t, { reseller: true });
  const suspended = await tenant(t, { reseller: true });
  const objects = await objectsOf(t, owner);
  for (const who of [child, otherReseller, otherChild]) await objectsOf(t, who);
  await call(t, 'PUT', `/v1/accounts/${disabled.account.id}?status=disabled`, { key: t.root.key });
  await call(t, 'PUT', `/v1/accounts/${suspended.account.id}?suspended=true`, { key: t.root.key });
  return {
    t,
    owner,
    child,
    objects,
    principals: {
      owner: owner.key,
      child: child.key,
      other_reseller: otherReseller.key,
      other_child: otherChild.key,
      disabled: disabled.key,
      suspended: suspended.key,
      malformed: 'gsk_thisisnotakey',
      missing: undefined,
    },
  };
}

/** A path of the OpenAPI document with its parameters naming the owner's objects (or its child account). */
export function pathFor(w: World, path: string): string {
  const lookup: Record<string, string> = { number: '%2B14155552671', email: 'probe%40example.com', domain: 'example.com', ip: '8.8.8.8', address: 'Paris%2C%20France' };
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (name === 'key') return 'guest_portal_screens_default';
    if (name === 'file_id') return w.objects.file;
    // The day of a police receipt: each tenant keeps one of this day.
    if (name === 'day') return RECEIPT_DAY;
    if (path.startsWith('/v1/lookup/') && lookup[name]) return lookup[name];
    if (path.startsWith('/v1/lookup/adverse-media/')) return w.objects.search;
    if (path.startsWith('/v1/background-check/')) return w.objects.check;
    if (path.startsWith('/v1/reservations/')) return w.objects.reservation;
    if (path.startsWith('/v1/identity-verifications/')) return w.objects.verification;
    if (path.startsWith('/v1/accounts/webhooks/deliveries/')) return w.objects.delivery;
    if (path.startsWith('/v1/rules/')) return w.objects.rule;
    if (path.startsWith('/v1/blocklist/')) return w.objects.block;
    // An account route: the owner's child, which only the owner (its reseller) may manage.
    if (path.startsWith('/v1/accounts/')) return w.child.account.id;
    // A listing's id is the account's own name for it; any well-formed one names a listing.
    if (name === 'listing_id') return 'hardening-listing';
    throw new Error(`hardening: no object for {${name}} in ${path}`);
  });
}

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { importBreaches } from '../../providers/breaches/import.js';
import { importThreatFeed } from '../../providers/ip-threats/import.js';
import { importSexOffenders } from '../../providers/sex-offender/import.js';

// The head and a few addresses of the FireHOL tor_exits ipset of 2025-02-16 (TorDNSEL, CC0).
const TOR_EXITS = `#
# tor_exits
#
# ipv4 hash:ip ipset
#
# [TorProject.org] (https://www.torproject.org) list of all
# current TOR exit points (TorDNSEL)
#
# Maintainer      : TorProject.org
# Maintainer URL  : https://www.torproject.org/
# List source URL : https://check.torproject.org/exit-addresses
# Source File Date: Sun Feb 16 04:38:53 UTC 2025
#
# Category        : anonymizers
#
2.56.10.36
2.58.56.12
185.220.101.0/24
not-an-address
`;

describe(`lookups answered offline (${dbKind})`, () => {
  let t: TestApp;
  let guest: Tenant;

  before(async () => {
    t = await createTestApp();
    guest = await tenant(t);
  });
  after(() => t.close());

  const get = (url: string) => call(t, 'GET', url, { key: guest.key });

  it('describes a valid mobile number with its original carrier and names the numbering-plan data as source', async () => {
    const r = await get(`/v1/lookup/phone/${encodeURIComponent('+4915112345678')}`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.countryCode, 'DE');
    assert.equal(r.json.phoneNumber, '+4915112345678');
    assert.equal(r.json.nationalFormat, '01511 2345678');
    assert.deepEqual(r.json.carrier, { name: 'T-Mobile', type: 'mobile' });
    assert.equal(r.json.valid, true);
    assert.equal(r.json.carrier_is_current, false);
    assert.match(r.json.source.name, /libphonenumber/);
    assert.match(r.headers['x-lookup-source'] as string, /libphonenumber/);
  });

  it('answers 400 naming the field for something that is not a phone number', async () => {
    const r = await get('/v1/lookup/phone/hello');
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^number: 'hello' is not a phone number in international format/);
  });

  it('places a public address with DB-IP Lite and a reserved one without any database', async () => {
    const r = await get('/v1/lookup/geoip/8.8.8.8');
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.country_code, 'US');
    assert.equal(r.json.country_name, 'United States of America');
    assert.equal(typeof r.json.latitude, 'number');
    assert.match(r.json.time_zone_name, /^America\//);
    assert.equal(r.json.source.name, 'DB-IP IP to City Lite');
    assert.equal(r.json.source.license, 'CC BY 4.0');
    assert.match(r.json.source.date, /^\d{4}-\d{2}-\d{2}$/);
    const v6 = await get(`/v1/lookup/geoip/${encodeURIComponent('2001:4860:4860::8888')}`);
    assert.equal(v6.status, 200, v6.body);
    assert.ok(v6.json.country_code);
    const priv = await get('/v1/lookup/geoip/192.168.1.20');
    assert.equal(priv.status, 200);
    assert.equal(priv.json.reserved, 'private');
    assert.equal(priv.json.country_code, null);
    assert.equal((await get('/v1/lookup/geoip/999.1.1.1')).status, 400);
  });

  it('geocodes an address to its city, with the time zone of the place', async () => {
    const r = await get(`/v1/lookup/geocode/${encodeURIComponent('1600 Amphitheatre Parkway, Mountain View, CA 94043, USA')}`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.city, 'Mountain View');
    assert.equal(r.json.state, 'CA');
    assert.equal(r.json.country_code, 'US');
    assert.equal(r.json.zipcode, '94043');
    assert.equal(r.json.street, '1600 Amphitheatre Parkway');
    assert.equal(r.json.timezone, 'America/Los_Angeles');
    assert.ok(Math.abs(r.json.geo.lat - 37.39) < 0.05 && Math.abs(r.json.geo.lon + 122.08) < 0.05);
    assert.equal(r.json.precision, 'city');
    const none = await get(`/v1/lookup/geocode/${encodeURIComponent('Qwxzz Plaza, Zzyzxville')}`);
    assert.equal(none.status, 200);
    assert.equal(none.json.precision, 'none');
    assert.equal(none.json.geo.lat, null);
  });

  it('lists an address found in an imported threat feed, and a reserved address as a bogon', async () => {
    const file = path.join(t.deps.config.dataDir, 'tor_exits.ipset');
    writeFileSync(file, TOR_EXITS);
    const imported = await importThreatFeed(t.deps, file, {});
    assert.equal(imported.source, 'tor_exits');
    assert.equal(imported.imported, 3);
    assert.deepEqual(imported.rejected, [{ line: 19, problem: 'not an IP address or CIDR block: not-an-address' }]);
    assert.equal(imported.date, '2025-02-16T04:38:53.000Z');
    const hit = await get('/v1/lookup/ip-threats/185.220.101.7');
    assert.equal(hit.status, 200, hit.body);
    assert.equal(hit.json.length, 1);
    assert.equal(hit.json[0].source, 'tor_exits');
    assert.equal(hit.json[0].source_date, '2025-02-16');
    assert.deepEqual(hit.json[0].tags, ['anonymizers']);
    assert.match(hit.json[0].title, /TOR exit points/);
    assert.deepEqual(hit.json[0].reasons, ['185.220.101.7 is in 185.220.101.0/24, listed by tor_exits']);
    assert.deepEqual((await get('/v1/lookup/ip-threats/8.8.8.8')).json, []);
    // A new snapshot of the same feed replaces the old one.
    writeFileSync(file, TOR_EXITS.replace('185.220.101.0/24\n', ''));
    assert.equal((await importThreatFeed(t.deps, file, {})).imported, 2);
    assert.deepEqual((await get('/v1/lookup/ip-threats/185.220.101.7')).json, []);
    const bogon = await get('/v1/lookup/ip-threats/10.1.2.3');
    assert.deepEqual(bogon.json[0].tags, ['bogon', 'private']);
  });

  it('says what to configure when a lookup has no provider, as a 500 with the one error shape', async () => {
    const social = await call(t, 'POST', '/v1/lookup/social', { key: guest.key, body: { email: 'ada@example.com' } });
    assert.equal(social.status, 500);
    assert.match(social.json.error, /social lookup is not available: .*GUESTSCREEN_SEON_API_KEY/);
    assert.equal(social.json.code, 'provider_error');
    const breaches = await get('/v1/lookup/breaches/ada%40example.com');
    assert.equal(breaches.status, 500);
    assert.match(breaches.json.error, /GUESTSCREEN_HIBP_API_KEY.*data import breaches/);
    const offenders = await get('/v1/lookup/sexoffender?fname=Ada&lname=Lovelace&dob=1990-01-31&state=CA');
    assert.equal(offenders.status, 500);
    assert.match(offenders.json.error, /data import sex-offenders/);
  });

  it('finds breaches in an imported corpus by e-mail without storing the address', async () => {
    const file = path.join(t.deps.config.dataDir, 'breaches.csv');
    writeFileSync(file, 'email,name,domain,breach_date\nAda@Example.com,Adobe,adobe.com,2013-10-04\nada@example.com,LinkedIn,linkedin.com,2012-05-05\nnot-an-email,X,x.com,2020-01-01\n');
    const result = await importBreaches(t.deps, file, { source: 'test corpus', progress: false });
    assert.equal(result.imported, 2);
    assert.equal(result.rejected.length, 1);
    const r = await get('/v1/lookup/breaches/ADA%40example.com');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(
      r.json.map((b: { Name: string; BreachDate: string }) => [b.Name, b.BreachDate]),
      [
        ['Adobe', '2013-10-04'],
        ['LinkedIn', '2012-05-05'],
      ],
    );
    assert.equal(r.json[0].source.name, 'test corpus');
    assert.deepEqual((await get('/v1/lookup/breaches/someone%40example.org')).json, []);
    const stored = await t.deps.db.selectFrom('breach_records').select('email_digest').execute();
    assert.ok(stored.every((s) => /^[0-9a-f]{64}$/.test(s.email_digest)));
    assert.equal((await get('/v1/lookup/breaches/nobody')).status, 400);
  });

  it('matches registry records by name or alias, date of birth and state, and explains each match', async () => {
    const file = path.join(t.deps.config.dataDir, 'registry.csv');
    // Synthetic records (no openly licensed registry sample exists; see SOURCES.md).
    writeFileSync(
      file,
      [
        'id,first_name,last_name,dob,city,county,state,zip,charges,aliases,image_url,registered_at',
        'R1,Jonathan,Quimby,1971-03-14,Fresno,Fresno,CA,93701,Charge A;Charge B,Jon Quimbey,https://registry.example/r1.jpg,2015-06-01',
        'R2,Jonathan,Quimby,1980-01-01,Fresno,Fresno,CA,93701,Charge A,,,',
        'R3,Maria,Sandoval,1971-03-14,Reno,Washoe,NV,89501,Charge C,,,',
        'R4,Bad,Date,14/03/1971,Reno,Washoe,NV,89501,,,,',
      ].join('\n'),
    );
    const result = await importSexOffenders(t.deps, file, { source: 'synthetic registry', progress: false });
    assert.equal(result.imported, 3);
    assert.equal(result.rejected[0]?.problem, 'dob: must be YYYY-MM-DD (got 14/03/1971)');
    const r = await get('/v1/lookup/sexoffender?fname=Jon&lname=Quimbey&dob=1971-03-14&state=ca');
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.items.length, 1);
    const m = r.json.items[0];
    assert.equal(m.id, 'synthetic registry:R1');
    assert.deepEqual(m.charge, ['Charge A', 'Charge B']);
    assert.deepEqual(m.aliases, ['Jon Quimbey']);
    assert.match(m.explanation, /alias 'Jon Quimbey'.*date of birth 1971-03-14 and state CA equal/);
    assert.deepEqual((await get('/v1/lookup/sexoffender?fname=Maria&lname=Sandoval&dob=1971-03-14&state=CA')).json.items, []);
    const bad = await get('/v1/lookup/sexoffender?fname=A&lname=B&dob=1971-02-30&state=CA');
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /^dob: '1971-02-30' is not a date/);
    assert.match((await get('/v1/lookup/sexoffender?fname=A&lname=B&dob=1971-02-03&state=ZZ')).json.error, /^state: 'ZZ' is not a US state code/);
    assert.equal((await get('/v1/lookup/sexoffender?fname=A&lname=B')).status, 400);
  });

  it('refuses a malformed domain and e-mail with 400 before any provider is asked', async () => {
    for (const url of ['/v1/lookup/whois/not_a_domain', '/v1/lookup/domain/127.0.0.1', '/v1/lookup/breaches/a%40b']) {
      const r = await get(url);
      assert.equal(r.status, 400, url);
    }
    const social = await call(t, 'POST', '/v1/lookup/social', { key: guest.key, body: {} });
    assert.equal(social.status, 400);
    assert.equal(social.json.error, 'body: give email, phoneNumber or both');
  });
});

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../test/harness.js';
import type { JobRow } from '../jobs/repo.js';
import { runCheck } from '../modules/background-checks/service.js';
import { searchAdverseMedia } from './adverse-media/index.js';
import { yenteMatch } from './sanctions/yente.js';
import { timeSlicer } from '../lib/time-slice.js';

/**
 * One local server that speaks each vendor's wire format (PROVIDERS.md): its paths, auth
 * headers, bodies, "not found" conventions and 429s. Every hit is counted by path.
 */
function fakeVendors() {
  const hits = new Map<string, number>();
  const gdeltAt: number[] = [];
  let base = '';
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = decodeURIComponent(url.pathname);
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const auth = req.headers.authorization ?? '';
    if (p.startsWith('/twilio/v2/PhoneNumbers/')) {
      if (auth !== `Basic ${Buffer.from('AC123:secret').toString('base64')}`) return json(res, 401, { code: 20003, message: 'Authenticate', status: 401 });
      const n = p.split('/').pop();
      if (n === '+14155550000') return json(res, 429, { code: 20429, message: 'Too Many Requests', status: 429 }, { 'retry-after': '7' });
      return json(res, 200, {
        calling_country_code: '1',
        country_code: 'US',
        phone_number: n,
        national_format: '(415) 555-2671',
        valid: true,
        validation_errors: [],
        line_type_intelligence: { carrier_name: 'Example Wireless', error_code: null, mobile_country_code: '310', mobile_network_code: '260', type: 'nonFixedVoip' },
      });
    }
    if (p.startsWith('/hibp/breachedaccount/')) {
      if (!req.headers['user-agent']) return json(res, 403, {});
      if (req.headers['hibp-api-key'] !== 'hibp-key') {
        res.writeHead(401);
        return res.end('Access denied due to invalid hibp-api-key.');
      }
      const account = p.split('/').pop();
      if (account === 'slow@example.com') return json(res, 429, { statusCode: 429, message: 'Rate limit is exceeded. Try again in 2 seconds.' }, { 'retry-after': '2' });
      if (account !== 'pwned@example.com') {
        res.writeHead(404);
        return res.end();
      }
      return json(res, 200, [{ Name: 'Adobe', Title: 'Adobe', Domain: 'adobe.com', BreachDate: '2013-10-04', PwnCount: 152445165, IsVerified: true }]);
    }
    if (p.startsWith('/seon/email-api/v3/')) {
      if (req.headers['x-api-key'] !== 'seon-key') return json(res, 401, { success: false, error: { code: '2001', message: 'Invalid license key' }, data: null });
      return json(res, 200, {
        success: true,
        error: {},
        data: { email: p.split('/').pop(), account_details: { facebook: { registered: true, url: 'https://facebook.com/x' }, google: { registered: true }, linkedin: { registered: null } } },
      });
    }
    if (p.startsWith('/seon/phone-api/v2/')) return json(res, 200, { success: true, error: {}, data: { account_details: { whatsapp: { registered: true }, telegram: { registered: false } } } });
    if (p === '/rdap/dns.json') return json(res, 200, { version: '1.0', publication: '2026-07-23T02:00:03Z', services: [[['com', 'net'], [`${base}/rdap/`]]] });
    if (p === '/rdap/domain/example.com') {
      return json(
        res,
        200,
        {
          objectClassName: 'domain',
          ldhName: 'EXAMPLE.COM',
          port43: 'whois.verisign-grs.com',
          events: [
            { eventAction: 'registration', eventDate: '1995-08-14T04:00:00Z' },
            { eventAction: 'expiration', eventDate: '2026-08-13T04:00:00Z' },
          ],
          entities: [
            {
              objectClassName: 'entity',
              roles: ['registrar'],
              vcardArray: [
                'vcard',
                [
                  ['version', {}, 'text', '4.0'],
                  ['fn', {}, 'text', 'Example Registrar, Inc.'],
                ],
              ],
            },
            {
              objectClassName: 'entity',
              roles: ['registrant'],
              vcardArray: [
                'vcard',
                [
                  ['version', {}, 'text', '4.0'],
                  ['fn', {}, 'text', ''],
                  ['org', {}, 'text', 'Internet Assigned Numbers Authority'],
                  ['adr', { cc: 'US' }, 'text', ['', '', '', '', '', '', '']],
                ],
              ],
            },
          ],
        },
        { 'content-type': 'application/rdap+json' },
      );
    }
    if (p.startsWith('/rdap/domain/')) return json(res, 404, { errorCode: 404, title: 'Not Found', description: ['no such domain'] });
    if (p === '/pdl/company/enrich') {
      if (url.searchParams.get('website') !== 'acme.example.com') return json(res, 404, { status: 404, error: { type: 'not_found', message: 'No records were found matching your request' } });
      return json(res, 200, {
        status: 200,
        likelihood: 6,
        name: 'acme corp',
        display_name: 'Acme Corp',
        size: '51-200',
        founded: 2015,
        industry: 'computer software',
        location: { country: 'united states' },
        linkedin_url: 'linkedin.com/company/acme',
      });
    }
    if (p.startsWith('/maxmind/geoip/v2.1/city/')) {
      if (p.endsWith('/81.2.69.99')) return json(res, 404, { code: 'IP_ADDRESS_NOT_FOUND', error: 'The address 81.2.69.99 is not in our database.' });
      return json(res, 200, {
        city: { geoname_id: 5368361, names: { en: 'Los Angeles' } },
        country: { iso_code: 'US', names: { en: 'United States' } },
        location: { accuracy_radius: 20, latitude: 34.05, longitude: -118.24, time_zone: 'America/Los_Angeles' },
        postal: { code: '90001' },
        subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }],
      });
    }
    if (p === '/abuseipdb/check') {
      if (req.headers.key !== 'abuse-key') return json(res, 401, { errors: [{ detail: 'Authentication failed.', status: 401 }] });
      return json(res, 200, {
        data: {
          ipAddress: url.searchParams.get('ipAddress'),
          isPublic: true,
          abuseConfidenceScore: 100,
          usageType: 'Data Center/Web Hosting/Transit',
          totalReports: 12,
          numDistinctUsers: 5,
          lastReportedAt: '2026-01-10T04:36:03+00:00',
          isTor: false,
          reports: [{ categories: [18, 22] }],
        },
      });
    }
    if (p === '/offenders/sexoffender') {
      return json(res, 200, {
        offenders: [
          {
            name: 'JONATHAN QUIMBY',
            firstName: 'JONATHAN',
            lastName: 'QUIMBY',
            dob: url.searchParams.get('dob'),
            city: 'FRESNO',
            state: 'CA',
            zipcode: '93701',
            crime: 'Synthetic charge',
            offenderUrl: 'https://registry.example/1',
            offenderImageUrl: 'https://registry.example/1.jpg',
          },
        ],
      });
    }
    if (p === '/gdelt') {
      gdeltAt.push(Date.now());
      const q = url.searchParams.get('query') ?? '';
      if (q.includes('busy person')) {
        res.writeHead(429, { 'content-type': 'text/plain' });
        return res.end('Please limit requests to one every 5 seconds.');
      }
      if (q.includes('odd')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('The specified phrase is too short.');
      }
      if (url.searchParams.get('mode') !== 'artlist' || url.searchParams.get('format') !== 'json') return json(res, 400, {});
      return json(res, 200, {
        articles: [
          {
            url: 'https://news.example/gdelt-1',
            url_mobile: '',
            title: 'Quinn Abara charged with assault after bar fight',
            seendate: '20260105T143000Z',
            socialimage: 'https://news.example/1.jpg',
            domain: 'news.example',
            language: 'English',
            sourcecountry: 'United States',
          },
          {
            url: 'https://news.example/gdelt-2',
            url_mobile: '',
            title: 'Abara family reunion',
            seendate: '20260101T090000Z',
            socialimage: '',
            domain: 'news.example',
            language: 'English',
            sourcecountry: 'United States',
          },
        ],
      });
    }
    if (p === '/yente/match/sanctions') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const query = JSON.parse(body).queries.q;
        if (query.schema !== 'Person' || url.searchParams.get('algorithm') !== 'best') return json(res, 422, { detail: [{ msg: 'bad query' }] });
        const name: string = query.properties.name[0];
        const results = name.toLowerCase().includes('maduro')
          ? [
              {
                id: 'NK-maduro',
                caption: 'Nicolás Maduro Moros',
                schema: 'Person',
                properties: { name: ['Nicolás Maduro Moros'], birthDate: ['1962-11-23'], nationality: ['ve'], topics: ['sanction', 'role.pep'] },
                datasets: ['us_ofac_sdn', 'eu_fsf'],
                score: 0.93,
                match: true,
                last_change: '2025-06-01T00:00:00',
                explanations: { name_match: { detail: 'Matched: Nicolás Maduro Moros', score: 0.95 }, dob_year_disjoint: { detail: null, score: 0 } },
              },
            ]
          : [];
        json(res, 200, { responses: { q: { status: 200, total: { value: results.length, relation: 'eq' }, results } }, limit: 10 });
      });
      return;
    }
    if (p.startsWith('/greynoise/v3/community/')) {
      if (req.headers.key !== 'gn-key') return json(res, 401, { message: 'Unauthorized' });
      const ip = p.split('/').pop();
      if (ip === '118.25.6.39')
        return json(res, 200, { ip, noise: true, riot: false, classification: 'malicious', name: 'unknown', link: `https://viz.greynoise.io/ip/${ip}`, last_seen: '2026-01-12', message: 'Success' });
      return json(res, 404, { ip, noise: false, riot: false, message: 'IP not observed scanning the internet or contained in RIOT data set.' });
    }
    if (p === '/newsapi/everything') {
      if (req.headers['x-api-key'] !== 'news-key') return json(res, 401, { status: 'error', code: 'apiKeyInvalid', message: 'Your API key is invalid or incorrect.' });
      const q = url.searchParams.get('q') ?? '';
      const articles =
        q.includes('Quinn Abara') || q.includes('quinn abara')
          ? [
              {
                source: { id: null, name: 'Example News' },
                author: null,
                title: 'Local court hears case',
                description: 'Quinn Abara was sentenced to community service on Monday.',
                url: 'https://www.example-news.test/court',
                urlToImage: null,
                publishedAt: '2026-01-07T08:00:00Z',
                content: '…',
              },
            ]
          : [];
      return json(res, 200, { status: 'ok', totalResults: articles.length, articles });
    }
    if (p === '/nominatim/search') {
      return json(res, 200, [
        {
          lat: '51.5073219',
          lon: '-0.1276474',
          place_rank: 30,
          display_name: '10, Downing Street, London, SW1A 2AA, United Kingdom',
          address: { house_number: '10', road: 'Downing Street', city: 'London', state: 'England', postcode: 'SW1A 2AA', country: 'United Kingdom', country_code: 'gb' },
        },
      ]);
    }
    if (p.startsWith('/ipinfo/') && p.endsWith('/json')) {
      if (auth !== 'Bearer ii-token') return json(res, 403, { status: 403, error: { title: 'Unknown token', message: "Please ensure you've entered your token correctly." } });
      const ip = p.split('/')[2];
      if (ip === '66.87.125.72')
        return json(res, 200, {
          ip,
          hostname: 'ip-66-87-125-72.example.net',
          city: 'Springfield',
          region: 'Massachusetts',
          country: 'US',
          loc: '42.0999,-72.5783',
          org: 'AS51501 Example Networks Ltd',
          postal: '01105',
          timezone: 'America/New_York',
        });
      return json(res, 200, { ip, anycast: true });
    }
    if (p === '/pelias/v1/search') {
      const text = url.searchParams.get('text') ?? '';
      if (url.searchParams.get('api_key') !== 'pelias-key') return json(res, 401, { geocoding: { errors: ['auth: api_key invalid'] } });
      if (text.startsWith('zz')) return json(res, 400, { geocoding: { version: '0.2', errors: ["invalid param 'text': could not be parsed"] }, type: 'FeatureCollection', features: [] });
      const features = text.includes('Innsbruck')
        ? [
            {
              type: 'Feature',
              geometry: { type: 'Point', coordinates: [11.4078, 47.2723] },
              properties: {
                gid: 'whosonfirst:locality:101748061',
                layer: 'locality',
                source: 'whosonfirst',
                name: 'Innsbruck',
                confidence: 1,
                match_type: 'exact',
                accuracy: 'centroid',
                country: 'Austria',
                country_a: 'AUT',
                region: 'Tirol',
                locality: 'Innsbruck',
                label: 'Innsbruck, TR, Austria',
              },
            },
          ]
        : [];
      return json(res, 200, { geocoding: { version: '0.2', query: { text }, engine: { name: 'Pelias' }, timestamp: 1767225600000 }, type: 'FeatureCollection', features });
    }
    if (p === '/clearbit/v2/companies/find') {
      if (auth !== 'Bearer cb-key') return json(res, 401, { error: { type: 'auth_required', message: 'API key required.' } });
      const domain = url.searchParams.get('domain');
      if (domain === 'queued.example.com') return json(res, 202, {});
      if (domain !== 'stripe.com') return json(res, 404, { error: { type: 'unknown_record', message: 'Unknown domain' } });
      return json(res, 200, {
        id: '3f5d',
        name: 'Stripe',
        legalName: 'Stripe, Inc.',
        domain: 'stripe.com',
        category: { sector: 'Information Technology', industryGroup: 'Software & Services', industry: 'Internet Software & Services', subIndustry: 'Internet Software & Services' },
        foundedYear: 2010,
        geo: { city: 'South San Francisco', state: 'California', country: 'United States', countryCode: 'US' },
        metrics: { employees: 8000, employeesRange: '5K-10K', raised: 2200000000 },
        linkedin: { handle: 'company/stripe' },
      });
    }
    if (p === '/watchman/v2/search') {
      if (url.searchParams.get('type') !== 'person') return json(res, 400, { error: 'type is required' });
      const name = (url.searchParams.get('name') ?? '').toLowerCase();
      const entities = name.includes('maduro')
        ? [
            {
              name: 'Nicolas MADURO MOROS',
              entityType: 'person',
              sourceList: 'us_ofac',
              sourceID: '22790',
              person: { name: 'Nicolas MADURO MOROS', altNames: [], gender: 'male', birthDate: '1962-11-23T00:00:00Z', governmentIDs: [{ type: 'cedula', country: 'VE', identifier: '5892464' }] },
              addresses: [],
              sanctionsInfo: { programs: ['VENEZUELA-EO13692'], secondary: false, description: '' },
              match: 0.97,
              details: { finalScore: 0.97, pieces: [{ pieceType: 'name', score: 1, weight: 30, matched: true, required: true, exact: true, fieldsCompared: 1 }] },
            },
            {
              name: 'Nicolas MADURO GUERRA',
              entityType: 'person',
              sourceList: 'us_ofac',
              sourceID: '22791',
              person: { name: 'Nicolas MADURO GUERRA', birthDate: '1990-06-21T00:00:00Z' },
              match: 0.93,
            },
          ]
        : [];
      return json(res, 200, { query: { name, entityType: 'person' }, entities });
    }
    json(res, 404, { error: `fake vendors: no route for ${p}` });
  };
  const server: Server = createServer(handle);
  return {
    hits,
    gdeltAt,
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => {
          base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          resolve(base);
        }),
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * IANA's WHOIS server on 127.0.0.1 referring .de to a registry server on 127.0.0.2 (the same
 * port: a referral names a host, and WHOIS is always port 43), answering as DENIC does.
 */
async function fakeWhois() {
  const queries: string[] = [];
  const serve = (answer: (q: string) => string) =>
    createTcpServer((socket) => {
      let q = '';
      socket.on('data', (c: Buffer) => {
        q += c.toString();
        if (q.endsWith('\r\n')) {
          queries.push(q.trim());
          socket.end(answer(q.trim()));
        }
      });
    });
  const iana = serve((q) => `% IANA WHOIS server\n\ndomain:       ${q.split('.').pop()?.toUpperCase()}\nrefer:        127.0.0.2\nwhois:        127.0.0.2\n`);
  const registry = serve((q) =>
    q === 'example.de'
      ? `Domain: example.de\nNserver: a.iana-servers.net\nStatus: connect\nChanged: 2018-03-12T21:44:25+01:00\n`
      : q === 'registrar.de'
        ? `Domain Name: registrar.de\nRegistrar: Example Registrar GmbH\nCreation Date: 2001-02-03T00:00:00Z\nRegistry Expiry Date: 2027-02-03T00:00:00Z\n`
        : `Domain: ${q}\nStatus: free\n`,
  );
  await new Promise<void>((resolve) => iana.listen(0, '127.0.0.1', resolve));
  const port = (iana.address() as AddressInfo).port;
  await new Promise<void>((resolve) => registry.listen(port, '127.0.0.2', resolve));
  return { port, queries, stop: () => Promise.all([new Promise((r) => iana.close(r)), new Promise((r) => registry.close(r))]) };
}

describe(`lookup providers over HTTP against local fakes of each vendor (${dbKind})`, () => {
  const vendors = fakeVendors();
  let whois: Awaited<ReturnType<typeof fakeWhois>>;
  let t: TestApp;
  let guest: Tenant;
  let base: string;

  before(async () => {
    base = await vendors.start();
    whois = await fakeWhois();
    t = await createTestApp({
      GUESTSCREEN_TWILIO_URL: `${base}/twilio`,
      GUESTSCREEN_TWILIO_ACCOUNT_SID: 'AC123',
      GUESTSCREEN_TWILIO_AUTH_TOKEN: 'secret',
      GUESTSCREEN_HIBP_URL: `${base}/hibp`,
      GUESTSCREEN_HIBP_API_KEY: 'hibp-key',
      GUESTSCREEN_SEON_URL: `${base}/seon`,
      GUESTSCREEN_SEON_API_KEY: 'seon-key',
      GUESTSCREEN_RDAP_ENABLED: 'true',
      GUESTSCREEN_RDAP_URL: `${base}/rdap/dns.json`,
      GUESTSCREEN_MAXMIND_URL: `${base}/maxmind`,
      GUESTSCREEN_MAXMIND_ACCOUNT_ID: '42',
      GUESTSCREEN_MAXMIND_LICENSE_KEY: 'mm',
      GUESTSCREEN_ABUSEIPDB_URL: `${base}/abuseipdb`,
      GUESTSCREEN_ABUSEIPDB_API_KEY: 'abuse-key',
      GUESTSCREEN_OFFENDERS_IO_URL: `${base}/offenders`,
      GUESTSCREEN_OFFENDERS_IO_API_KEY: 'off-key',
      GUESTSCREEN_NOMINATIM_URL: `${base}/nominatim`,
      GUESTSCREEN_PDL_URL: `${base}/pdl`,
      GUESTSCREEN_PDL_API_KEY: 'pdl-key',
      GUESTSCREEN_GDELT_URL: `${base}/gdelt`,
      GUESTSCREEN_GDELT_SPACING_SECONDS: '1',
      GUESTSCREEN_YENTE_URL: `${base}/yente`,
      GUESTSCREEN_GREYNOISE_URL: `${base}/greynoise`,
      GUESTSCREEN_GREYNOISE_API_KEY: 'gn-key',
      GUESTSCREEN_NEWSAPI_URL: `${base}/newsapi`,
      GUESTSCREEN_NEWSAPI_API_KEY: 'news-key',
      GUESTSCREEN_WHOIS_SERVER: '127.0.0.1',
      GUESTSCREEN_WHOIS_PORT: String(whois.port),
    });
    guest = await tenant(t);
  });
  after(async () => {
    await t.close();
    await vendors.stop();
    await whois.stop();
  });

  const get = (url: string, key = guest.key) => call(t, 'GET', url, { key });

  it("gives Twilio's current carrier and line type, and asks Twilio once for the same number within the cache time", async () => {
    const first = await get('/v1/lookup/phone/%2B14155552671');
    assert.equal(first.status, 200, first.body);
    assert.deepEqual(first.json.carrier, { name: 'Example Wireless', type: 'voip' });
    assert.equal(first.json.carrier_is_current, true);
    assert.equal(first.json.source.name, 'Twilio Lookup v2');
    const again = await get('/v1/lookup/phone/%2B14155552671');
    assert.deepEqual(again.json, first.json);
    assert.equal(vendors.hits.get('/twilio/v2/PhoneNumbers/+14155552671'), 1);
    const cached = await t.deps.db.selectFrom('lookup_cache').select(['kind', 'input_digest', 'result_enc']).execute();
    assert.ok(
      cached.every((c) => !c.result_enc.includes('Example Wireless') && !c.input_digest.includes('4155552671')),
      'the cache holds no plain input or answer',
    );
  });

  it("passes a vendor's rate limit on as a 500 with its Retry-After", async () => {
    const r = await get('/v1/lookup/phone/%2B14155550000');
    assert.equal(r.status, 500);
    assert.equal(r.json.code, 'provider_error');
    assert.equal(r.json.error, 'Twilio Lookup rate limit reached; try again later');
    assert.equal(r.headers['retry-after'], '7');
  });

  it('reads Have I Been Pwned: its breaches, and its 404 as "not pwned"', async () => {
    const pwned = await get('/v1/lookup/breaches/pwned%40example.com');
    assert.equal(pwned.status, 200, pwned.body);
    assert.deepEqual(
      pwned.json.map((b: Record<string, unknown>) => [b.Name, b.Domain, b.BreachDate]),
      [['Adobe', 'adobe.com', '2013-10-04']],
    );
    const clean = await get('/v1/lookup/breaches/clean%40example.com');
    assert.deepEqual(clean.json, []);
    assert.equal(clean.headers['x-lookup-source'], 'Have I Been Pwned');
    const slow = await get('/v1/lookup/breaches/slow%40example.com');
    assert.equal(slow.status, 500);
    assert.equal(slow.headers['retry-after'], '2');
  });

  it("reads SEON's account details for an e-mail and a phone", async () => {
    const r = await call(t, 'POST', '/v1/lookup/social', { key: guest.key, body: { email: 'ada@example.com', phoneNumber: '+14155552671' } });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json.email.accountDetails, { facebook: { registered: true }, google: { registered: true }, linkedin: { registered: null } });
    assert.deepEqual(r.json.phoneNumber.accountDetails, { whatsapp: { registered: true }, telegram: { registered: false } });
  });

  it("finds the registry's RDAP server through the bootstrap file, and reads an unregistered domain as none", async () => {
    const r = await get('/v1/lookup/whois/Example.COM');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json[0].data, { domainName: 'example.com', registrar: 'Example Registrar, Inc.', creationDate: '1995-08-14T04:00:00Z', expirationDate: '2026-08-13T04:00:00Z' });
    assert.equal(r.json[0].server, 'whois.verisign-grs.com');
    assert.deepEqual((await get('/v1/lookup/whois/unregistered.com')).json, []);
  });

  it('asks WHOIS over port 43 for a top-level domain without RDAP: IANA refers, the registry answers', async () => {
    const found = await get('/v1/lookup/whois/registrar.de');
    assert.equal(found.status, 200, found.body);
    assert.deepEqual(found.json[0].data, { domainName: 'registrar.de', registrar: 'Example Registrar GmbH', creationDate: '2001-02-03T00:00:00.000Z', expirationDate: '2027-02-03T00:00:00.000Z' });
    assert.equal(found.json[0].server, '127.0.0.2');
    const sparse = await get('/v1/lookup/whois/example.de');
    assert.equal(sparse.json[0].data.domainName, 'example.de');
    assert.equal(sparse.json[0].data.registrar, null);
    assert.deepEqual((await get('/v1/lookup/whois/free-domain.de')).json, []);
    assert.deepEqual(whois.queries.slice(0, 2), ['registrar.de', 'registrar.de']);
  });

  it('gives People Data Labs company records, and none for an unknown domain', async () => {
    const r = await get('/v1/lookup/domain/acme.example.com');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(
      { ...r.json[0], source: undefined },
      { name: 'Acme Corp', country: 'united states', industry: 'computer software', size: '51-200', linkedin_url: 'https://linkedin.com/company/acme', founded: '2015', source: undefined },
    );
    assert.deepEqual((await get('/v1/lookup/domain/nobody.example.net')).json, []);
  });

  it("reads MaxMind's city answer, and its IP_ADDRESS_NOT_FOUND as an empty place", async () => {
    const r = await get('/v1/lookup/geoip/81.2.69.142');
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.city, 'Los Angeles');
    assert.equal(r.json.region, 'California');
    assert.equal(r.json.postal_code, '90001');
    assert.equal(r.json.time_zone_name, 'America/Los_Angeles');
    const none = await get('/v1/lookup/geoip/81.2.69.99');
    assert.equal(none.status, 200);
    assert.equal(none.json.country_code, null);
  });

  it("adds AbuseIPDB's reports and GreyNoise's sightings to the imported feeds, and reads GreyNoise's 404 as clean", async () => {
    const r = await get('/v1/lookup/ip-threats/118.25.6.39');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(
      r.json.map((x: { source: string }) => x.source),
      ['AbuseIPDB', 'GreyNoise Community'],
    );
    assert.deepEqual(r.json[0].tags, ['brute-force', 'ssh']);
    assert.equal(r.json[0].reasons[0], 'abuse confidence score 100 of 100');
    assert.deepEqual(r.json[1].tags, ['scanner', 'malicious']);
    assert.equal(r.json[1].timestamp, '2026-01-12');
    const clean = await get('/v1/lookup/ip-threats/8.8.4.4');
    assert.deepEqual(
      clean.json.map((x: { source: string }) => x.source),
      ['AbuseIPDB'],
      'GreyNoise has not seen it',
    );
  });

  it('reads a registry aggregator and explains each possible match', async () => {
    const r = await get('/v1/lookup/sexoffender?fname=Jonathan&lname=Quimby&dob=1971-03-14&state=CA');
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.items[0].name, 'JONATHAN QUIMBY');
    assert.deepEqual(r.json.items[0].charge, ['Synthetic charge']);
    assert.match(r.json.items[0].explanation, /name match 1\.00/);
  });

  it("reads GDELT's article list and NewsAPI's, sorts each article by the terms near the name, and reads GDELT's plain-text refusals", async () => {
    const ctx = { deps: t.deps, accountId: guest.account.id };
    const r = await searchAdverseMedia(ctx, { firstName: 'Quinn', lastName: 'Abara', country: 'US' });
    assert.deepEqual(
      r.findings.map((f) => [f.link, f.riskCategories, f.publishedAt, f.source.name]),
      [
        ['https://www.example-news.test/court', ['Conflicts or Litigation'], '2026-01-07T08:00:00Z', 'NewsAPI'],
        ['https://news.example/gdelt-1', ['Violence', 'Conflicts or Litigation'], '2026-01-05T14:30:00Z', 'GDELT DOC 2.0'],
      ],
    );
    assert.equal(r.findings[0]?.displayLink, 'example-news.test');
    assert.equal(vendors.hits.get('/gdelt'), 1);
    await assert.rejects(searchAdverseMedia(ctx, { firstName: 'odd', lastName: 'name', country: 'US' }), /GDELT refused the query: The specified phrase is too short/);
    await assert.rejects(searchAdverseMedia(ctx, { firstName: 'busy', lastName: 'person', country: 'US' }), /GDELT rate limit reached/);
    // GDELT's one request in N s (1 here): the three searches reached it that far apart.
    const gaps = vendors.gdeltAt.slice(1).map((at, i) => at - vendors.gdeltAt[i]!);
    assert.equal(gaps.length, 2);
    assert.ok(
      gaps.every((g) => g >= 950),
      `GDELT calls ${gaps.join(', ')} ms apart`,
    );
  });

  it('asks OpenSanctions yente in a background check and keeps its explanation', async () => {
    const ctx = { deps: t.deps, accountId: guest.account.id };
    const hits = await yenteMatch(ctx, t.deps.config.lookups.vendors.yente!, { name: 'Nicolas Maduro', yearOfBirth: 1962, country: 'VE' });
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.source, 'OpenSanctions (us_ofac_sdn, eu_fsf)');
    assert.deepEqual(hits[0]?.birthYears, [1962]);
    assert.equal(hits[0]?.explanation, "'Nicolas Maduro' matched 'Nicolás Maduro Moros': yente score 0.93 (name_match 0.95 (Matched: Nicolás Maduro Moros))");
    const submitted = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: guest.key, body: { first_name: 'Nicolas', last_name: 'Maduro', year_of_birth: 1962 } });
    assert.equal(submitted.status, 200, submitted.body);
    await runCheck({ check_id: submitted.json.id }, { deps: t.deps, db: t.deps.db, job: { attempt: 1, max_attempts: 5 } as JobRow, signal: new AbortController().signal, breathe: timeSlicer() });
    const done = await get(`/v1/background-check/results/${submitted.json.id}`);
    assert.equal(done.json.risk_status, 'REVIEW');
    assert.equal(done.json.report_items[0].items[0].title, 'Nicolás Maduro Moros');
  });

  it('geocodes to the house with a Nominatim server', async () => {
    const r = await get(`/v1/lookup/geocode/${encodeURIComponent('10 Downing Street, London')}`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.street, '10 Downing Street');
    assert.equal(r.json.zipcode, 'SW1A 2AA');
    assert.equal(r.json.country_code, 'GB');
    assert.equal(r.json.precision, 'address');
    assert.equal(r.json.timezone, 'Europe/London');
  });

  it("stops an account's paid lookups at its daily quota with 429 and the time to midnight UTC, and leaves other accounts be", async () => {
    const small = await createTestApp({
      GUESTSCREEN_TWILIO_URL: `${base}/twilio`,
      GUESTSCREEN_TWILIO_ACCOUNT_SID: 'AC123',
      GUESTSCREEN_TWILIO_AUTH_TOKEN: 'secret',
      GUESTSCREEN_LOOKUP_QUOTA_PER_DAY: '3',
    });
    try {
      const [spender, other] = [await tenant(small), await tenant(small)];
      const phone = (n: number, key: string) => call(small, 'GET', `/v1/lookup/phone/%2B1415555${n}`, { key });
      for (let i = 0; i < 3; i++) assert.equal((await phone(3000 + i, spender.key)).status, 200);
      assert.equal((await phone(3000, spender.key)).status, 200, 'a cached answer costs no quota');
      const over = await phone(4000, spender.key);
      assert.equal(over.status, 429);
      assert.match(over.json.error, /used its 3 paid lookups for today/);
      assert.ok(Number(over.headers['retry-after']) > 0 && Number(over.headers['retry-after']) <= 86_400);
      assert.equal((await phone(4000, other.key)).status, 200);
    } finally {
      await small.close();
    }
  });

  it('says a vendor could not be reached when nothing listens', async () => {
    const down = await createTestApp({ GUESTSCREEN_HIBP_URL: 'http://127.0.0.1:9', GUESTSCREEN_HIBP_API_KEY: 'k' });
    try {
      const who = await tenant(down);
      const r = await call(down, 'GET', '/v1/lookup/breaches/ada%40example.com', { key: who.key });
      assert.equal(r.status, 500);
      assert.match(r.json.error, /^Have I Been Pwned could not be reached: /);
    } finally {
      await down.close();
    }
  });
});

describe(`the other adapters of each lookup, configured on their own (${dbKind})`, () => {
  const vendors = fakeVendors();
  let t: TestApp;
  let guest: Tenant;

  before(async () => {
    const base = await vendors.start();
    t = await createTestApp({
      GUESTSCREEN_IPINFO_URL: `${base}/ipinfo`,
      GUESTSCREEN_IPINFO_TOKEN: 'ii-token',
      GUESTSCREEN_PELIAS_URL: `${base}/pelias`,
      GUESTSCREEN_PELIAS_API_KEY: 'pelias-key',
      GUESTSCREEN_CLEARBIT_URL: `${base}/clearbit`,
      GUESTSCREEN_CLEARBIT_API_KEY: 'cb-key',
      GUESTSCREEN_WATCHMAN_URL: `${base}/watchman`,
    });
    guest = await tenant(t);
  });
  after(async () => {
    await t.close();
    await vendors.stop();
  });

  const get = (url: string) => call(t, 'GET', url, { key: guest.key });

  it('reads ipinfo\'s place, its "lat,lon" and its time zone, and an answer without a place as an empty one', async () => {
    const r = await get('/v1/lookup/geoip/66.87.125.72');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual([r.json.country_code, r.json.region, r.json.city, r.json.postal_code, r.json.time_zone_name], ['US', 'Massachusetts', 'Springfield', '01105', 'America/New_York']);
    assert.equal(r.json.source.name, 'ipinfo');
    const anycast = await get('/v1/lookup/geoip/1.1.1.1');
    assert.equal(anycast.status, 200);
    assert.equal(anycast.json.city, null);
    assert.equal(vendors.hits.get('/ipinfo/1.1.1.1/json'), 1);
  });

  it('geocodes with Pelias: [lon, lat], the alpha-3 country, the layer as the precision, and its errors array', async () => {
    const r = await get(`/v1/lookup/geocode/${encodeURIComponent('Innsbruck, Austria')}`);
    assert.equal(r.status, 200, r.body);
    assert.deepEqual([r.json.city, r.json.state, r.json.country_code, r.json.precision, r.json.timezone], ['Innsbruck', 'Tirol', 'AT', 'city', 'Europe/Vienna']);
    assert.deepEqual(r.json.geo, { lat: 47.2723, lon: 11.4078 });
    assert.equal((await get(`/v1/lookup/geocode/${encodeURIComponent('Qwxzz Plaza')}`)).json.precision, 'none');
    const refused = await get(`/v1/lookup/geocode/${encodeURIComponent('zz top street')}`);
    assert.equal(refused.status, 500);
    assert.match(refused.json.error, /Pelias refused the query: invalid param 'text'/);
  });

  it("reads Clearbit's company, its 404 as none, and its 202 (still looking) as a retry later", async () => {
    const r = await get('/v1/lookup/domain/stripe.com');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(
      { ...r.json[0], source: undefined },
      {
        name: 'Stripe',
        country: 'United States',
        industry: 'Internet Software & Services',
        size: '5K-10K',
        linkedin_url: 'https://www.linkedin.com/company/stripe',
        founded: '2010',
        source: undefined,
      },
    );
    assert.deepEqual((await get('/v1/lookup/domain/nobody.example.net')).json, []);
    const queued = await get('/v1/lookup/domain/queued.example.com');
    assert.equal(queued.status, 500);
    assert.match(queued.json.error, /Clearbit is still looking queued\.example\.com up/);
    assert.equal(queued.headers['retry-after'], '180');
  });

  it('asks moov watchman in a background check, keeps its scored pieces, and leaves out a namesake born decades apart', async () => {
    const submitted = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', {
      key: guest.key,
      body: { first_name: 'Nicolas', last_name: 'Maduro', year_of_birth: 1962, country: 'VE' },
    });
    assert.equal(submitted.status, 200, submitted.body);
    await runCheck({ check_id: submitted.json.id }, { deps: t.deps, db: t.deps.db, job: { attempt: 1, max_attempts: 5 } as JobRow, signal: new AbortController().signal, breathe: timeSlicer() });
    const done = await get(`/v1/background-check/results/${submitted.json.id}`);
    assert.equal(done.json.risk_status, 'REVIEW');
    const sanctions = done.json.report_items[0];
    assert.deepEqual(
      sanctions.items.map((i: { title: string }) => i.title),
      ['Nicolas MADURO MOROS'],
    );
    assert.equal(
      sanctions.items[0].description,
      'The name searched, Nicolas Maduro, is the same as the listed name Nicolas MADURO MOROS. The list gives the year of birth 1962; the year searched was 1962.',
    );
    assert.match(sanctions.items[0].subtitle, /^Listed on moov watchman \(us_ofac\) .*entry 22790; VENEZUELA-EO13692$/);
  });
});

import { Type, type TSchema, type TString } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { authErrors, emptyBodyIsObject } from '../../http/schemas.js';
import { Nullable } from '../../http/validation.js';
import * as lookups from './service.js';

const tags = ['Lookups'];
const S = Nullable(Type.String());
const N = Nullable(Type.Number());
const Source = Type.Object(
  { name: Type.String(), date: S, license: Type.Optional(Type.String()), url: Type.Optional(Type.String()) },
  { description: 'where the answer came from, and the date of its data' },
);
const Strings = Type.Array(Type.String());

const Phone = Type.Object(
  {
    countryCode: S,
    phoneNumber: Type.String(),
    nationalFormat: Type.String(),
    carrier: Type.Object({ name: S, type: S }),
    valid: Type.Boolean(),
    carrier_is_current: Type.Boolean({ description: "false: the range's original carrier (a ported number has moved since)" }),
    location: S,
    source: Source,
  },
  { title: 'PhoneLookup' },
);
const Presence = Type.Object({ accountDetails: Type.Optional(Type.Record(Type.String(), Type.Object({ registered: Nullable(Type.Boolean()) }))) });
const Social = Type.Object({ phoneNumber: Presence, email: Presence, source: Source }, { title: 'SocialLookup' });
const Breaches = Type.Array(Type.Object({ Name: Type.String(), Domain: S, BreachDate: S, source: Source }));
const Whois = Type.Array(Type.Object({ server: Type.String(), data: Type.Object({ domainName: Type.String(), registrar: S, creationDate: S, expirationDate: S }), source: Source }));
const Company = Type.Array(Type.Object({ name: Type.String(), country: S, industry: S, size: S, linkedin_url: S, founded: S, source: Source }));
const Geoip = Type.Object(
  {
    country_code: S,
    country_name: S,
    city: S,
    region: Type.Optional(S),
    postal_code: S,
    time_zone_name: S,
    latitude: N,
    longitude: N,
    reserved: Nullable(Type.String({ description: 'the special-purpose range of a reserved address (private, loopback, ...)' })),
    note: Type.Optional(Type.String()),
    source: Source,
  },
  { title: 'GeoipLookup' },
);
const SexOffender = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        fname: Type.String(),
        lname: Type.String(),
        city: S,
        county: S,
        state: Type.String(),
        zip: S,
        dob: S,
        timestamp: S,
        imageURL: S,
        charge: Strings,
        aliases: Strings,
        explanation: Type.String(),
        source: Source,
      }),
    ),
  },
  { title: 'SexOffenderLookup' },
);
const Address = Type.Object(
  {
    address: Type.String(),
    street: S,
    city: S,
    state: S,
    country: S,
    country_code: S,
    zipcode: S,
    timezone: S,
    geo: Type.Object({ lat: N, lon: N }),
    precision: Type.String({ description: 'address, city, country or none: how much of the address was placed' }),
    source: Source,
  },
  { title: 'GeocodeLookup' },
);
const IpThreats = Type.Array(Type.Object({ ip: Type.String(), title: Type.String(), link: S, source: Type.String(), source_date: S, timestamp: S, tags: Strings, reasons: Strings }));

const param = <K extends string>(name: K, description: string) => Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 500, description }) } as Record<K, TString>);
const schema = <E extends object>(operationId: string, summary: string, response: TSchema, extra: E) => ({
  schema: { tags, operationId, summary, ...extra, response: { 200: response, ...authErrors } },
});

/** Sends a lookup's answer with its sources in a header, which an empty array cannot carry. */
function send(reply: FastifyReply, a: lookups.Answer<unknown>): unknown {
  reply.header('x-lookup-source', a.sources.join('; '));
  return a.body;
}

/** The spec's /lookup family (DESIGN.md section 7): each answer names its source; failures are 500 with the reason. */
export const lookupRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const ctx = (accountId: string) => ({ deps, accountId });
    app.get(
      '/lookup/phone/:number',
      schema('lookupPhone', 'Phone number: validity, line type, carrier', Phone, { params: param('number', 'international format, URL-encoded') }),
      async (request, reply) => send(reply, await lookups.lookupPhone(ctx(request.account.id), request.params.number)),
    );
    app.post(
      '/lookup/social',
      {
        preValidation: emptyBodyIsObject,
        ...schema('lookupSocial', 'Which platforms an e-mail or a phone number is registered on', Social, {
          body: Type.Object({ email: Type.Optional(Type.String({ maxLength: 254 })), phoneNumber: Type.Optional(Type.String({ maxLength: 40 })) }, { additionalProperties: false }),
        }),
      },
      async (request, reply) => send(reply, await lookups.lookupSocial(ctx(request.account.id), request.body)),
    );
    app.get('/lookup/breaches/:email', schema('lookupBreaches', 'Data breaches an e-mail address appeared in', Breaches, { params: param('email', 'URL-encoded') }), async (request, reply) =>
      send(reply, await lookups.lookupBreaches(ctx(request.account.id), request.params.email)),
    );
    app.get('/lookup/whois/:domain', schema('lookupWhois', "A domain's registration (RDAP)", Whois, { params: param('domain', 'domain name') }), async (request, reply) =>
      send(reply, await lookups.lookupWhois(ctx(request.account.id), request.params.domain)),
    );
    app.get('/lookup/domain/:domain', schema('lookupDomain', 'The company behind a domain', Company, { params: param('domain', 'domain name') }), async (request, reply) =>
      send(reply, await lookups.lookupCompany(ctx(request.account.id), request.params.domain)),
    );
    app.get('/lookup/geoip/:ip', schema('lookupGeoip', 'Where an IP address is', Geoip, { params: param('ip', 'IPv4 or IPv6') }), async (request, reply) =>
      send(reply, await lookups.lookupGeoip(ctx(request.account.id), request.params.ip)),
    );
    app.get(
      '/lookup/sexoffender',
      schema('lookupSexOffender', 'Possible matches in sex-offender registries, for a person to review', SexOffender, {
        querystring: Type.Object(
          {
            fname: Type.String({ minLength: 1, maxLength: 100 }),
            lname: Type.String({ minLength: 1, maxLength: 100 }),
            dob: Type.String({ description: 'YYYY-MM-DD' }),
            state: Type.String({ description: 'US state code' }),
          },
          { additionalProperties: false },
        ),
      }),
      async (request, reply) => send(reply, await lookups.lookupSexOffender(ctx(request.account.id), request.query)),
    );
    app.get('/lookup/geocode/:address', schema('lookupGeocode', 'Where a street or mailing address is', Address, { params: param('address', 'URL-encoded') }), async (request, reply) =>
      send(reply, await lookups.lookupAddress(ctx(request.account.id), request.params.address)),
    );
    app.get('/lookup/ip-threats/:ip', schema('lookupIpThreats', 'Threat feeds and reports that list an IP address', IpThreats, { params: param('ip', 'IPv4 or IPv6') }), async (request, reply) =>
      send(reply, await lookups.lookupIpThreats(ctx(request.account.id), request.params.ip)),
    );
  };

import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { TSchema } from '@sinclair/typebox';
import type { Config } from './config.js';
import { VERSION } from './version.js';

/**
 * The API description (served at /docs/json and /v1/openapi.json, linted in the tests): what
 * the routes' schemas say, plus what no single route says. The headers every answer carries,
 * the Idempotency-Key of every POST, a description for every answer, the webhooks the service
 * sends, and the shared shapes as named components (docs/api.md).
 */

type Json = Record<string, unknown>;
type Operation = { operationId?: string; summary?: string; parameters?: Json[]; responses?: Record<string, Json> };

const TAGS = [
  ['Accounts', 'The calling account, child accounts (resellers), API keys, signup links'],
  ['Reservations', 'Bookings and their guests: create, update, search, erase; the verification summary and status, manual decisions, notes, payment events, guest messages'],
  ['Screening', 'Name matching against the blocklist and the sanctions lists'],
  ['Settings', "The account's guest-portal screens and screening settings"],
  ['Host profile', "What guests see of the host (name, logo, accent colour, house rules, rental agreement), per account and listing, and each listing's check-in instructions"],
  ['Identity documents', "Passports and ID cards read from their photos: the machine-readable zone's fields with their check digits, for a reservation (as a job) or one-off"],
  ['Business rules', 'CEL rules that add to the verdict, with a dry run'],
  ['Blocklist', "The account's blocked guests"],
  ['Lookups', 'Phone, social, breaches, whois, company, geo-IP, sex-offender registries, geocoding, IP threats'],
  ['Background checks', 'Background checks and adverse-media reports, run as jobs'],
  ['Webhooks', 'Where events go, the signing secret, the delivery log'],
  ['System', 'Liveness and readiness'],
].map(([name, description]) => ({ name: name as string, description: description as string }));

/** What each error status means on this API (DESIGN.md section 9 and docs/decisions/errors-and-limits.md). */
const ERROR_MEANINGS: Record<string, string> = {
  '400': 'The request is malformed or a value is out of range; `error` names the field and the problem',
  '401': 'No `x-api-key` header, or a key that is not valid or was revoked',
  '403': "The caller's account is suspended or disabled, or the operation is for resellers",
  '404': 'No such object among the accounts the caller manages (another account’s objects are never shown to exist)',
  '409': 'A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again',
  '413': 'The body is larger than the limit (1 MiB; uploads: their own limit)',
  '415': 'The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which)',
  '422': 'The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels)',
  '429': 'Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again',
  '500': 'An internal error; `request_id` names it in the service log',
  '503': 'Not ready: the database does not answer, or the process is shutting down',
};

const header = (description: string, type: 'string' | 'integer') => ({ description, schema: { type } });
const HEADERS = {
  RequestId: header('The id of this request in the service log (`req_…`); sent back as given in `x-request-id`', 'string'),
  RateLimitLimit: header('Requests allowed per minute for this API key (when GUESTSCREEN_RATE_LIMIT_PER_MINUTE is on, as by default)', 'integer'),
  RateLimitRemaining: header('Requests left in the current minute', 'integer'),
  RateLimitReset: header('Seconds until the minute ends and the count starts again', 'integer'),
  RetryAfter: header('Seconds to wait before trying again', 'integer'),
};

const WEBHOOK_HEADERS = [
  ['webhook-id', 'The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed; refuse one far from now'],
  [
    'webhook-signature',
    'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret',
  ],
  ['webhook-event', 'The event type, also in the body of most events'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/** Where each event goes, what it is, and the component its body is; `name` when one key carries two kinds of event. */
const WEBHOOKS: { key: string; name?: string; events: string; when: string; body: string }[] = [
  {
    key: 'reservation_webhook_url',
    events: 'reservation.created, reservation.updated',
    when: 'a reservation is created or changed (by the API, the console or the guest portal)',
    body: 'Reservation',
  },
  {
    key: 'reservation_webhook_url',
    name: 'authority_report',
    events: 'authority_report.updated',
    when: "a guest's police report changes state (missing, ready, sent, accepted, rejected) or gets the authority's answer",
    body: 'AuthorityReportEvent',
  },
  { key: 'screening_webhook_url', events: 'screening.changed', when: "a reservation's verification status or manual decision changes", body: 'ScreeningEvent' },
  { key: 'callback', events: 'screening.finished', when: 'the screening run a request asked for with `callback=` has finished; sent to that URL', body: 'ScreeningEvent' },
  { key: 'guest_portal_webhook_url', events: 'guest_portal.completed', when: 'a guest completes the guest portal', body: 'ReservationGuestPortalResponse' },
  {
    key: 'stargate_webhook_url',
    events: 'guest_message.sent, guest_message.canceled',
    when: 'a guest message (invitation, reminder, check-in details) has been sent; or check-in details were withheld because the booking was declined, cancelled or is no longer verified',
    body: 'GuestMessage',
  },
  { key: 'account_webhook_url', events: 'account.created, account.updated', when: "a child account is created or changed; sent to its parent's URL", body: 'Account' },
  {
    key: 'background_check_webhook_url',
    events: 'background_check.finished, background_check.failed, adverse_media.finished, adverse_media.failed, background_check.updated',
    when: 'a background check or adverse-media report finishes or fails, or a finished check changes because a list did',
    body: 'BackgroundCheck',
  },
  { key: 'listing_webhook_url', events: 'listing.created, listing.renamed', when: 'a reservation names a listing the account has not seen, or a new name for one it has', body: 'Listing' },
];

/** `webhookSchemas`: the bodies of webhooks no route answers with (ScreeningEvent), by name. */
export function apiDescription(config: Config, webhookSchemas: Record<string, TSchema>): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'guestscreen API',
        version: VERSION,
        summary: 'Guest screening for short-term rentals and hospitality',
        description:
          'Every /v1 operation takes the account key in `x-api-key` (or as `Authorization: Bearer`). Errors are `{"error": "..."}` naming every problem, with `code` and `request_id`. ' +
          'Every POST takes an `Idempotency-Key`: a retry with the same key and body within 24 hours is answered as the first was and never applied twice. ' +
          'Events are delivered as signed webhooks (see `webhooks`).',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: config.publicUrl }],
      tags: TAGS,
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key of the account (`gsk_…`)' },
          Bearer: { type: 'http', scheme: 'bearer', description: 'The same API key as `Authorization: Bearer gsk_…` (beyond the spec)' },
        },
        headers: HEADERS,
        parameters: {
          IdempotencyKey: {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        },
      },
      security: [{ ApiKey: [] }, { Bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documentObject) => describe((documentObject as { openapiObject: Json }).openapiObject, webhookSchemas),
  };
}

/** The generated document, completed (see the module comment). */
function describe(doc: Json, webhookSchemas: Record<string, TSchema>): Json {
  const components = doc.components as { schemas?: Record<string, Json> };
  components.schemas ??= {};
  for (const [name, schema] of Object.entries(webhookSchemas)) components.schemas[name] = JSON.parse(JSON.stringify(schema)) as Json;
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      op.responses ??= {};
      if (!Object.keys(op.responses).some((s) => s.startsWith('4'))) op.responses['408'] = { ...TIMEOUT_408 };
      for (const [status, response] of Object.entries(op.responses)) describeResponse(path, op, status, response);
      if (method === 'post' && path.startsWith('/v1/')) op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
    }
  }
  hoistNamedSchemas(doc, components.schemas);
  doc.webhooks = Object.fromEntries(
    WEBHOOKS.map((w) => [
      w.name ?? w.key,
      {
        post: {
          operationId: `on${(w.name ?? w.key).replace(/(^|_)([a-z])/g, (_, _u: string, c: string) => c.toUpperCase()).replace(/Url$/, '')}`,
          summary: w.events,
          description: `Sent ${w.key === 'callback' ? '' : `to the account's \`${w.key}\` `}when ${w.when}. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.`,
          tags: ['Webhooks'],
          parameters: WEBHOOK_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: webhookBody(w.body, components.schemas ?? {}) } } },
          responses: {
            '200': { description: 'Received. Any 2xx ends the delivery' },
            '410': { description: 'Gone: the service stops delivering to this URL and turns the webhook off' },
          },
          security: [],
        },
      },
    ]),
  );
  return doc;
}

/** The slow-client answer every route can give, for the operations that document no other client error. */
const TIMEOUT_408 = { description: 'The request did not arrive within GUESTSCREEN_HEADERS_TIMEOUT_SECONDS (headers) or GUESTSCREEN_REQUEST_TIMEOUT_SECONDS (all of it); the connection is closed' };

function describeResponse(path: string, op: Operation, status: string, response: Json) {
  if (response.description === 'Default Response' || response.description === undefined) {
    const schema = (response.content as Record<string, { schema?: Json }> | undefined)?.['application/json']?.schema;
    response.description = ERROR_MEANINGS[status] ?? (typeof schema?.description === 'string' ? schema.description : (op.summary ?? 'Success'));
  }
  const headers: Record<string, Json> = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
  if (path.startsWith('/v1/')) {
    headers['x-ratelimit-limit'] = { $ref: '#/components/headers/RateLimitLimit' };
    headers['x-ratelimit-remaining'] = { $ref: '#/components/headers/RateLimitRemaining' };
    headers['x-ratelimit-reset'] = { $ref: '#/components/headers/RateLimitReset' };
  }
  if (status === '429' || status === '409' || status === '503') headers['retry-after'] = { $ref: '#/components/headers/RetryAfter' };
  response.headers = { ...headers, ...(response.headers ?? {}) };
}

/**
 * Every schema with a `title` (the routes name their shared shapes so) becomes a component of
 * that name, referenced wherever it appeared. Two different shapes under one name are a mistake
 * in the routes, and fail the build of the document.
 */
function hoistNamedSchemas(doc: Json, schemas: Record<string, Json>) {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = visit(v);
    const title = out.title;
    if (typeof title !== 'string' || out.$ref !== undefined || !('type' in out || 'anyOf' in out || 'properties' in out)) return out;
    const known = schemas[title];
    if (known && JSON.stringify(known) !== JSON.stringify(out)) throw new Error(`two different schemas are titled ${title}; name one otherwise`);
    schemas[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  };
  doc.paths = visit(doc.paths);
  // Components by $id keep their names; their own titled parts are hoisted too.
  for (const [name, schema] of Object.entries(schemas)) {
    const { title: _title, ...rest } = schema;
    schemas[name] = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, visit(v)]));
  }
}

/** A webhook's body: a component the routes already name, or the listing event's own small shape. */
function webhookBody(name: string, schemas: Record<string, Json>): Json {
  if (name === 'GuestMessage') {
    const list = schemas.GuestMessages as { items?: Json } | undefined;
    if (list?.items) return list.items;
  }
  if (name === 'Listing') {
    const text = (description: string) => ({ type: ['string', 'null'], description });
    return {
      type: 'object',
      required: ['id', 'listing_id', 'listing_nickname', 'previous_nickname', 'listing_timezone_name', 'first_seen_reservation_id'],
      properties: {
        id: { type: 'string', description: 'the listing id the reservations give' },
        listing_id: { type: 'string', description: 'the same, under the reservation field name' },
        listing_nickname: text("the listing's name"),
        previous_nickname: text('listing.renamed: the name before'),
        listing_timezone_name: text("the listing's IANA time zone"),
        first_seen_reservation_id: text('listing.created: the reservation that named it first'),
      },
    };
  }
  if (!schemas[name]) throw new Error(`webhook body ${name} is not a component of the document`);
  return { $ref: `#/components/schemas/${name}` };
}

/** The product's wordmark for the reference page's bar, in place of the renderer's own logo. */
const WORDMARK = `<svg xmlns="http://www.w3.org/2000/svg" width="290" height="40" viewBox="0 0 290 40" role="img" aria-label="guestscreen API reference">
<rect x="2" y="6" width="28" height="28" rx="6" fill="#2049b5"/><path d="M9 20.5l5 5 9-11" stroke="#fff" stroke-width="3.2" fill="none" stroke-linecap="round" stroke-linejoin="round"/>
<text x="40" y="27" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="19" font-weight="700" fill="#fff">guestscreen</text>
<text x="182" y="27" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="15" fill="#c9d2e3">API ${VERSION}</text></svg>`;

/**
 * The API reference at /docs (@fastify/swagger-ui): the service's name, version and colours. The
 * renderer's box for exploring other documents' URLs is hidden: this page describes this API.
 */
export function referencePage(): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    theme: {
      title: `guestscreen ${VERSION} API reference`,
      css: [
        {
          filename: 'guestscreen.css',
          content: '.swagger-ui .topbar { background: #1d2330; } .swagger-ui .topbar a { max-width: 290px; } .swagger-ui .topbar .download-url-wrapper { display: none; }',
        },
      ],
    },
    logo: { type: 'image/svg+xml', content: Buffer.from(WORDMARK), href: '/docs' },
  };
}

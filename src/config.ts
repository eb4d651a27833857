import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import ipaddr from 'ipaddr.js';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { isWellFormedApiKey } from './lib/api-keys.js';
import { outboundUrlProblem } from './lib/urls.js';

const Bool = Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')]);

/**
 * The lookup providers reached over HTTP: what each needs to be switched on, and where it
 * answers by default. Every base URL can be changed (a self-hosted instance, a test server).
 */
export const VENDORS = {
  twilio: { secrets: ['ACCOUNT_SID', 'AUTH_TOKEN'], url: 'https://lookups.twilio.com' },
  hibp: { secrets: ['API_KEY'], url: 'https://haveibeenpwned.com/api/v3' },
  seon: { secrets: ['API_KEY'], url: 'https://api.seon.io/SeonRestService' },
  pdl: { secrets: ['API_KEY'], url: 'https://api.peopledatalabs.com/v5' },
  maxmind: { secrets: ['ACCOUNT_ID', 'LICENSE_KEY'], url: 'https://geoip.maxmind.com' },
  abuseipdb: { secrets: ['API_KEY'], url: 'https://api.abuseipdb.com/api/v2' },
  offenders_io: { secrets: ['API_KEY'], url: 'https://api.offenders.io' },
  greynoise: { secrets: ['API_KEY'], url: 'https://api.greynoise.io' },
  newsapi: { secrets: ['API_KEY'], url: 'https://newsapi.org/v2' },
  // No key: on when its URL is set (the public Nominatim's policy forbids bulk use, GDELT's
  // allows one request in 5 s, so neither is the default), and RDAP on by default through
  // IANA's bootstrap file.
  nominatim: { secrets: [], url: undefined },
  gdelt: { secrets: [], url: undefined },
  rdap: { secrets: [], url: 'https://data.iana.org/rdap/dns.json' },
  // OpenSanctions yente: self-hosted needs no key, the hosted API takes GUESTSCREEN_YENTE_API_KEY.
  yente: { secrets: [], optional: ['API_KEY'], url: undefined },
  // moov watchman, self-hosted (no key); Pelias, self-hosted or geocode.earth (with a key).
  watchman: { secrets: [], url: undefined },
  pelias: { secrets: [], optional: ['API_KEY'], url: undefined },
  ipinfo: { secrets: ['TOKEN'], url: 'https://ipinfo.io' },
  // Clearbit no longer issues keys: for accounts that hold a legacy one.
  clearbit: { secrets: ['API_KEY'], url: 'https://company.clearbit.com' },
  // Criminal records in background checks: the key and the account's package (Checkr's names vary by account).
  checkr: { secrets: ['API_KEY', 'PACKAGE'], url: 'https://api.checkr.com/v1' },
} as const satisfies Record<string, { secrets: readonly string[]; optional?: readonly string[]; url: string | undefined }>;

export type VendorName = keyof typeof VENDORS;

function vendorVariables() {
  const out: Record<string, TOptional<TSchema>> = {};
  for (const [name, v] of Object.entries(VENDORS)) {
    const prefix = `GUESTSCREEN_${name.toUpperCase()}`;
    out[`${prefix}_URL`] = Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' }));
    for (const secret of [...v.secrets, ...('optional' in v ? v.optional : [])]) out[`${prefix}_${secret}`] = Type.Optional(Type.String({ minLength: 1 }));
  }
  out.GUESTSCREEN_RDAP_ENABLED = Type.Optional(Bool);
  out.GUESTSCREEN_WHOIS_SERVER = Type.Optional(Type.String({ pattern: '^[A-Za-z0-9.:-]+$' }));
  out.GUESTSCREEN_WHOIS_PORT = Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' }));
  out.GUESTSCREEN_NOMINATIM_EMAIL = Type.Optional(Type.String({ minLength: 3 }));
  out.GUESTSCREEN_GDELT_SPACING_SECONDS = Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' }));
  out.GUESTSCREEN_YENTE_DATASET = Type.Optional(Type.String({ pattern: '^[a-z0-9_]+$' }));
  return out;
}

/** A configured vendor: its base URL without the trailing slash and its secrets by name. */
export interface VendorConfig {
  url: string;
  secrets: Record<string, string>;
}

// The one place that reads process.env. Every variable the service understands is listed here;
// the Config type is derived from the parsed result so the two cannot drift.
const EnvSchema = Type.Object({
  PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  GUESTSCREEN_DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  GUESTSCREEN_ROOT_KEY: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  GUESTSCREEN_ALLOW_PRIVATE_TARGETS: Type.Optional(Bool),
  GUESTSCREEN_PMS_NAMES: Type.Optional(Type.String({ pattern: '^[a-z0-9_-]+(,[a-z0-9_-]+)*$' })),
  GUESTSCREEN_WEBHOOK_RETRY_SCHEDULE: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?(,[0-9]+(\\.[0-9]+)?)*$' })),
  GUESTSCREEN_RATE_LIMIT_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GUESTSCREEN_AUTH_FAILURES_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GUESTSCREEN_HEADERS_TIMEOUT_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  GUESTSCREEN_REQUEST_TIMEOUT_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  GUESTSCREEN_SIGNUP_TTL_HOURS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GUESTSCREEN_CONSOLE_SESSION_HOURS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })),
  GUESTSCREEN_LAST_LOGIN_RESOLUTION_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GUESTSCREEN_KEY_CACHE_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  GUESTSCREEN_SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  GUESTSCREEN_MAIL_FROM: Type.Optional(Type.String({ minLength: 3 })),
  GUESTSCREEN_SMS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  GUESTSCREEN_SMS_ACCOUNT_SID: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SMS_AUTH_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SMS_FROM: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_REMINDER_DAYS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GUESTSCREEN_ALERT_DIGEST_HOUR: Type.Optional(Type.String({ pattern: '^([0-9]|1[0-9]|2[0-3])$' })),
  GUESTSCREEN_ALERT_SETTLE_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
  GUESTSCREEN_WORKER_CONCURRENCY: Type.Optional(Type.String({ pattern: '^[1-9][0-9]*$' })),
  GUESTSCREEN_WORKER_THREADS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]?$' })),
  GUESTSCREEN_SQLITE_READERS: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}$' })),
  GUESTSCREEN_CHECK_RETENTION_DAYS: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  GUESTSCREEN_SANCTIONS_REFRESH_URLS: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SANCTIONS_REFRESH_HOURS: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}(\\.[0-9]+)?$' })),
  GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
  GUESTSCREEN_SES_URL: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SES_TEST_URL: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_ALLOGGIATI_URL: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SIBA_URL: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SIBA_TEST_URL: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_IDEMPOTENCY_LOCK_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]*$' })),
  GUESTSCREEN_JOB_LEASE_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]*$' })),
  GUESTSCREEN_SYNC_TIMEOUT_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  GUESTSCREEN_AUTHORITY_TIMEOUT_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  GUESTSCREEN_IDENTITY_READ_WAIT_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  GUESTSCREEN_LOOKUP_CACHE_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GUESTSCREEN_LOOKUP_QUOTA_PER_DAY: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GUESTSCREEN_GEOIP_DATABASE: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, pattern: '^[\\x21-\\x7e]+$' })),
  GUESTSCREEN_METRICS_PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  GUESTSCREEN_METRICS_HOST: Type.Optional(Type.String({ minLength: 1 })),
  GUESTSCREEN_SHUTDOWN_DELAY_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}(\\.[0-9]+)?$' })),
  GUESTSCREEN_SHUTDOWN_GRACE_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
  GUESTSCREEN_TRUSTED_PROXIES: Type.Optional(Type.String({ minLength: 1 })),
  ...vendorVariables(),
});

type Env = Static<typeof EnvSchema> & Record<string, string | undefined>;

const DEFAULT_PMS_NAMES = [
  'airbnb',
  'guesty',
  'hostaway',
  'hostfully',
  'lodgify',
  'ownerrez',
  'smoobu',
  'streamline',
  'track',
  'escapia',
  'beds24',
  'cloudbeds',
  'mews',
  'rentalsunited',
  'uplisting',
  'hospitable',
];

export interface Config {
  port: number;
  host: string;
  logLevel: string;
  databaseUrl: string | undefined;
  dataDir: string;
  secret: string | undefined;
  rootKey: string | undefined;
  publicUrl: string;
  allowPrivateTargets: boolean;
  pmsNames: string[];
  webhookRetrySchedule: number[];
  rateLimitPerMinute: number;
  /** Failed authentications one client address may make in a minute before it must wait (0: no limit). */
  authFailuresPerMinute: number;
  /** A connection must send its request's headers within this time, and its whole request within requestTimeoutMs. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  signupTtlHours: number;
  /** How long a host console sign-in lasts. */
  consoleSessionHours: number;
  lastLoginResolutionSeconds: number;
  /** How long a process trusts what it read about an API key's account (0: never). */
  keyCacheMs: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  sms: { url: string; accountSid: string; authToken: string; from: string } | undefined;
  reminderDays: number;
  /** The hour (UTC) at which people who chose a daily digest get it. */
  alertDigestHour: number;
  /** How long a verdict's alert waits for the screening to settle (no newer verdict, no run queued) before it goes. */
  alertSettleMs: number;
  /** Unset: 64 in a dedicated `guestscreen worker`, 16 beside the API in `guestscreen start`. */
  workerConcurrency: number | undefined;
  /** Job loops of `guestscreen worker`, each in a thread of its own (the first is the main thread). */
  workerThreads: number;
  /** SQLite: threads answering the reservation searches beside the main thread (0: none). */
  sqliteReaders: number;
  /** Background checks and adverse-media reports are erased this many days after submission (0: kept until deleted). */
  checkRetentionDays: number;
  /** Sanctions lists the worker downloads and imports every `everyHours` (providers/sanctions/refresh.ts). */
  sanctionsRefresh: { urls: string[]; everyHours: number } | undefined;
  /** A sanctions list older than this many days is warned of: at start, in the console, in /metrics. */
  sanctionsMaxAgeDays: number;
  /** Where each police system answers: production and test (SES has a pre-production service; Alloggiati Web's test is an operation). */
  authorities: { ses: { production: string; test: string }; alloggiati: string; siba: { production: string; test: string }; timeoutMs: number };
  idempotencyLockSeconds: number;
  jobLeaseSeconds: number;
  syncTimeoutMs: number;
  /** How long POST /v1/identity/read waits for a worker to read the photo. */
  identityReadWaitMs: number;
  /**
   * /metrics: on the API's port behind `token` (a bearer token), and/or on a listener of its own
   * at host:port (for `worker`, which has no API; a token there is asked too). Unset: off.
   */
  metrics: { token: string | undefined; port: number | undefined; host: string } | undefined;
  /** After a stop signal, how long /readyz answers 503 before the listener closes (a load balancer's time to notice). */
  shutdownDelayMs: number;
  /** After the delay, how long a stop may take (requests drained, jobs finished) before the process exits anyway. */
  shutdownGraceMs: number;
  /** Proxies whose X-Forwarded-For the service believes: addresses, CIDR blocks, or loopback, linklocal, uniquelocal. */
  trustedProxies: string[];
  lookups: {
    cacheSeconds: number;
    quotaPerDay: number;
    /** An MMDB file that replaces the embedded DB-IP database (also set by `data import geoip`). */
    geoipDatabase: string | undefined;
    nominatimEmail: string | undefined;
    /** GDELT asks for one request in 5 s from an address: this process keeps its calls that far apart. */
    gdeltSpacingMs: number;
    /** WHOIS over port 43 where a TLD has no RDAP server: on with RDAP. */
    whois: { host: string; port: number } | undefined;
    /** The providers that are switched on, by name. */
    vendors: Partial<Record<VendorName, VendorConfig>>;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const flag = (v: string | undefined) => v === 'true' || v === '1';

/** The names of address ranges Fastify's trustProxy (proxy-addr) knows. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isAddressOrBlock = (text: string) => (text.includes('/') ? ipaddr.isValidCIDR(text) : ipaddr.isValid(text));

/**
 * One reader thread per core beyond the one the main thread needs, at least one, at most four:
 * on two cores a second reader did not lower the searches' tail latency and took the core the
 * main thread needs.
 */
/** One job loop per core, at most four: screening is CPU work, and a loop takes a core. */
export const defaultWorkerThreads = () => Math.max(1, Math.min(4, availableParallelism()));

export const defaultReaders = () => Math.max(1, Math.min(4, availableParallelism() - 1));

/**
 * Settings whose value is a credential: a configuration error names what is wrong with them and
 * never the value, which would land in a terminal's scrollback, a CI log or a unit's journal.
 */
const SECRET_SETTING = /(^GUESTSCREEN_SECRET$|_KEY$|_TOKEN$|_SID$|_PASSWORD$)/;
/** Settings holding URLs, which may carry a user and password or a token in their query. */
const URL_SETTING = /(_URL|_URLS)$/;

/** A URL as it may be shown: no user, password, query or fragment. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#\s]*@/i, '$1…@').replace(/[?#].*$/s, '');
}

/** What a configuration error may say of a value: the value itself, unless it is or may hold a secret. */
function shownValue(name: string, value: string): string {
  if (SECRET_SETTING.test(name)) return `a value of ${[...value].length} characters, not shown`;
  if (URL_SETTING.test(name)) return `got ${JSON.stringify(withoutCredentials(value))}`;
  return `got ${JSON.stringify(value)}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const problems = [...Value.Errors(EnvSchema, picked)].map((e) => {
    const name = e.path.replace(/^\//, '');
    return `${name}: ${e.message} (${shownValue(name, picked[name]!)})`;
  });
  const e = picked as Env;
  const port = e.PORT === undefined ? 8080 : Number(e.PORT);
  if (port > 65535) problems.push(`PORT: must be at most 65535 (got ${port})`);
  if (e.DATABASE_URL && !e.GUESTSCREEN_SECRET) {
    problems.push('GUESTSCREEN_SECRET: required when DATABASE_URL is set, so every node shares one encryption secret');
  }
  if (e.GUESTSCREEN_ROOT_KEY !== undefined && !isWellFormedApiKey(e.GUESTSCREEN_ROOT_KEY)) {
    // Only a key of the service's own shape and checksum ever authenticates (lib/api-keys.ts):
    // any other value would start the service and then turn away every request.
    problems.push('GUESTSCREEN_ROOT_KEY: not a guestscreen API key (gsk_ and 49 letters and digits ending in a checksum); make one with `guestscreen keys generate`');
  }
  const smsKeys = ['GUESTSCREEN_SMS_URL', 'GUESTSCREEN_SMS_ACCOUNT_SID', 'GUESTSCREEN_SMS_AUTH_TOKEN', 'GUESTSCREEN_SMS_FROM'] as const;
  const smsSet = smsKeys.filter((k) => e[k] !== undefined);
  if (smsSet.length > 0 && smsSet.length < smsKeys.length) {
    problems.push(`SMS needs all of ${smsKeys.join(', ')}; missing ${smsKeys.filter((k) => e[k] === undefined).join(', ')}`);
  }
  const vendors: Partial<Record<VendorName, VendorConfig>> = {};
  for (const [name, v] of Object.entries(VENDORS) as [VendorName, (typeof VENDORS)[VendorName]][]) {
    const prefix = `GUESTSCREEN_${name.toUpperCase()}`;
    const secrets: Record<string, string> = {};
    for (const s of v.secrets) if (e[`${prefix}_${s}`] !== undefined) secrets[s] = e[`${prefix}_${s}`] as string;
    const given = Object.keys(secrets);
    if (given.length > 0 && given.length < v.secrets.length) {
      problems.push(
        `${name} needs all of ${v.secrets.map((s) => `${prefix}_${s}`).join(', ')}; missing ${v.secrets
          .filter((s) => !(s in secrets))
          .map((s) => `${prefix}_${s}`)
          .join(', ')}`,
      );
    }
    const url = e[`${prefix}_URL`] ?? v.url;
    const on = v.secrets.length > 0 ? given.length === v.secrets.length : name === 'rdap' ? e.GUESTSCREEN_RDAP_ENABLED !== 'false' && e.GUESTSCREEN_RDAP_ENABLED !== '0' : url !== undefined;
    for (const s of 'optional' in v ? v.optional : []) if (e[`${prefix}_${s}`] !== undefined) secrets[s] = e[`${prefix}_${s}`] as string;
    if (name === 'yente') secrets.DATASET = e.GUESTSCREEN_YENTE_DATASET ?? 'sanctions';
    if (on && url) vendors[name] = { url: url.replace(/\/+$/, ''), secrets };
  }
  const headersTimeoutSeconds = e.GUESTSCREEN_HEADERS_TIMEOUT_SECONDS === undefined ? 10 : Number(e.GUESTSCREEN_HEADERS_TIMEOUT_SECONDS);
  const requestTimeoutSeconds = e.GUESTSCREEN_REQUEST_TIMEOUT_SECONDS === undefined ? 60 : Number(e.GUESTSCREEN_REQUEST_TIMEOUT_SECONDS);
  if (headersTimeoutSeconds <= 0 || requestTimeoutSeconds <= 0) problems.push('GUESTSCREEN_HEADERS_TIMEOUT_SECONDS and GUESTSCREEN_REQUEST_TIMEOUT_SECONDS: must be more than 0');
  else if (headersTimeoutSeconds > requestTimeoutSeconds) {
    problems.push(`GUESTSCREEN_HEADERS_TIMEOUT_SECONDS: must not be more than GUESTSCREEN_REQUEST_TIMEOUT_SECONDS (${requestTimeoutSeconds})`);
  }
  const refreshUrls = (e.GUESTSCREEN_SANCTIONS_REFRESH_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const u of refreshUrls) {
    const problem = outboundUrlProblem(u);
    if (problem) problems.push(`GUESTSCREEN_SANCTIONS_REFRESH_URLS: '${withoutCredentials(u)}' ${problem}`);
  }
  const authorities = {
    ses: {
      production: e.GUESTSCREEN_SES_URL ?? 'https://hospedajes.ses.mir.es/hospedajes-web/ws/v1/comunicacion',
      test: e.GUESTSCREEN_SES_TEST_URL ?? 'https://hospedajes.pre-ses.mir.es/hospedajes-web/ws/v1/comunicacion',
    },
    alloggiati: e.GUESTSCREEN_ALLOGGIATI_URL ?? 'https://alloggiatiweb.poliziadistato.it/service/service.asmx',
    siba: {
      production: e.GUESTSCREEN_SIBA_URL ?? 'https://siba.ssi.gov.pt/baws/boletinsalojamento.asmx',
      test: e.GUESTSCREEN_SIBA_TEST_URL ?? 'https://siba.ssi.gov.pt/bawsdev/boletinsalojamento.asmx',
    },
    timeoutMs: (e.GUESTSCREEN_AUTHORITY_TIMEOUT_SECONDS === undefined ? 20 : Number(e.GUESTSCREEN_AUTHORITY_TIMEOUT_SECONDS)) * 1000,
  };
  for (const [name, u] of [
    ['GUESTSCREEN_SES_URL', authorities.ses.production],
    ['GUESTSCREEN_SES_TEST_URL', authorities.ses.test],
    ['GUESTSCREEN_ALLOGGIATI_URL', authorities.alloggiati],
    ['GUESTSCREEN_SIBA_URL', authorities.siba.production],
    ['GUESTSCREEN_SIBA_TEST_URL', authorities.siba.test],
  ] as const) {
    const problem = outboundUrlProblem(u);
    if (problem) problems.push(`${name}: '${withoutCredentials(u)}' ${problem}`);
  }
  const refreshHours = e.GUESTSCREEN_SANCTIONS_REFRESH_HOURS === undefined ? 24 : Number(e.GUESTSCREEN_SANCTIONS_REFRESH_HOURS);
  // The worker's timer holds at most 2^31 ms (24.8 days).
  if (!(refreshHours > 0 && refreshHours <= 576)) problems.push('GUESTSCREEN_SANCTIONS_REFRESH_HOURS: must be more than 0 and at most 576 (24 days)');
  const sanctionsMaxAgeDays = e.GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS === undefined ? 30 : Number(e.GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS);
  if (!(sanctionsMaxAgeDays >= 1 && sanctionsMaxAgeDays <= 3650)) problems.push('GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS: must be a whole number of days from 1 to 3650');
  const metricsPort = e.GUESTSCREEN_METRICS_PORT === undefined ? undefined : Number(e.GUESTSCREEN_METRICS_PORT);
  if (metricsPort !== undefined && (metricsPort === 0 || metricsPort > 65535 || metricsPort === port)) problems.push(`GUESTSCREEN_METRICS_PORT: must be 1 to 65535 and not PORT (got ${metricsPort})`);
  if (e.GUESTSCREEN_METRICS_HOST !== undefined && metricsPort === undefined) problems.push('GUESTSCREEN_METRICS_HOST: set GUESTSCREEN_METRICS_PORT too');
  const trustedProxies = (e.GUESTSCREEN_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of trustedProxies) {
    if (!PROXY_NAMES.has(p) && !isAddressOrBlock(p)) problems.push(`GUESTSCREEN_TRUSTED_PROXIES: '${p}' is not an IP address, a CIDR block, or one of ${[...PROXY_NAMES].join(', ')}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const host = e.HOST ?? '0.0.0.0';
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const pmsNames = e.GUESTSCREEN_PMS_NAMES ? e.GUESTSCREEN_PMS_NAMES.split(',') : DEFAULT_PMS_NAMES;
  return {
    port,
    host,
    logLevel: e.LOG_LEVEL ?? 'info',
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.GUESTSCREEN_DATA_DIR ?? './data'),
    secret: e.GUESTSCREEN_SECRET,
    rootKey: e.GUESTSCREEN_ROOT_KEY,
    publicUrl: (e.GUESTSCREEN_PUBLIC_URL ?? `http://${shownHost}:${port}`).replace(/\/+$/, ''),
    allowPrivateTargets: flag(e.GUESTSCREEN_ALLOW_PRIVATE_TARGETS),
    pmsNames: ['api', ...pmsNames.filter((n) => n !== 'api')],
    webhookRetrySchedule: (e.GUESTSCREEN_WEBHOOK_RETRY_SCHEDULE ?? '5,300,1800,7200,18000,36000,36000').split(',').map(Number),
    rateLimitPerMinute: e.GUESTSCREEN_RATE_LIMIT_PER_MINUTE === undefined ? 6000 : Number(e.GUESTSCREEN_RATE_LIMIT_PER_MINUTE),
    authFailuresPerMinute: e.GUESTSCREEN_AUTH_FAILURES_PER_MINUTE === undefined ? 60 : Number(e.GUESTSCREEN_AUTH_FAILURES_PER_MINUTE),
    headersTimeoutMs: headersTimeoutSeconds * 1000,
    requestTimeoutMs: requestTimeoutSeconds * 1000,
    signupTtlHours: e.GUESTSCREEN_SIGNUP_TTL_HOURS === undefined ? 168 : Number(e.GUESTSCREEN_SIGNUP_TTL_HOURS),
    consoleSessionHours: e.GUESTSCREEN_CONSOLE_SESSION_HOURS === undefined ? 12 : Number(e.GUESTSCREEN_CONSOLE_SESSION_HOURS),
    lastLoginResolutionSeconds: e.GUESTSCREEN_LAST_LOGIN_RESOLUTION_SECONDS === undefined ? 60 : Number(e.GUESTSCREEN_LAST_LOGIN_RESOLUTION_SECONDS),
    keyCacheMs: (e.GUESTSCREEN_KEY_CACHE_SECONDS === undefined ? 5 : Number(e.GUESTSCREEN_KEY_CACHE_SECONDS)) * 1000,
    smtpUrl: e.GUESTSCREEN_SMTP_URL,
    mailFrom: e.GUESTSCREEN_MAIL_FROM ?? 'guestscreen <no-reply@localhost>',
    sms:
      e.GUESTSCREEN_SMS_URL && e.GUESTSCREEN_SMS_ACCOUNT_SID && e.GUESTSCREEN_SMS_AUTH_TOKEN && e.GUESTSCREEN_SMS_FROM
        ? { url: e.GUESTSCREEN_SMS_URL.replace(/\/+$/, ''), accountSid: e.GUESTSCREEN_SMS_ACCOUNT_SID, authToken: e.GUESTSCREEN_SMS_AUTH_TOKEN, from: e.GUESTSCREEN_SMS_FROM }
        : undefined,
    reminderDays: e.GUESTSCREEN_REMINDER_DAYS === undefined ? 3 : Number(e.GUESTSCREEN_REMINDER_DAYS),
    alertDigestHour: e.GUESTSCREEN_ALERT_DIGEST_HOUR === undefined ? 7 : Number(e.GUESTSCREEN_ALERT_DIGEST_HOUR),
    alertSettleMs: (e.GUESTSCREEN_ALERT_SETTLE_SECONDS === undefined ? 60 : Number(e.GUESTSCREEN_ALERT_SETTLE_SECONDS)) * 1000,
    workerConcurrency: e.GUESTSCREEN_WORKER_CONCURRENCY === undefined ? undefined : Number(e.GUESTSCREEN_WORKER_CONCURRENCY),
    workerThreads: e.GUESTSCREEN_WORKER_THREADS === undefined ? defaultWorkerThreads() : Number(e.GUESTSCREEN_WORKER_THREADS),
    sqliteReaders: e.GUESTSCREEN_SQLITE_READERS === undefined ? defaultReaders() : Number(e.GUESTSCREEN_SQLITE_READERS),
    checkRetentionDays: e.GUESTSCREEN_CHECK_RETENTION_DAYS === undefined ? 0 : Number(e.GUESTSCREEN_CHECK_RETENTION_DAYS),
    sanctionsRefresh: refreshUrls.length ? { urls: refreshUrls, everyHours: refreshHours } : undefined,
    sanctionsMaxAgeDays,
    authorities,
    idempotencyLockSeconds: e.GUESTSCREEN_IDEMPOTENCY_LOCK_SECONDS === undefined ? 60 : Number(e.GUESTSCREEN_IDEMPOTENCY_LOCK_SECONDS),
    jobLeaseSeconds: e.GUESTSCREEN_JOB_LEASE_SECONDS === undefined ? 30 : Number(e.GUESTSCREEN_JOB_LEASE_SECONDS),
    metrics:
      e.GUESTSCREEN_METRICS_TOKEN !== undefined || metricsPort !== undefined ? { token: e.GUESTSCREEN_METRICS_TOKEN, port: metricsPort, host: e.GUESTSCREEN_METRICS_HOST ?? '127.0.0.1' } : undefined,
    shutdownDelayMs: (e.GUESTSCREEN_SHUTDOWN_DELAY_SECONDS === undefined ? 0 : Number(e.GUESTSCREEN_SHUTDOWN_DELAY_SECONDS)) * 1000,
    shutdownGraceMs: (e.GUESTSCREEN_SHUTDOWN_GRACE_SECONDS === undefined ? 15 : Number(e.GUESTSCREEN_SHUTDOWN_GRACE_SECONDS)) * 1000,
    trustedProxies,
    syncTimeoutMs: (e.GUESTSCREEN_SYNC_TIMEOUT_SECONDS === undefined ? 10 : Number(e.GUESTSCREEN_SYNC_TIMEOUT_SECONDS)) * 1000,
    identityReadWaitMs: (e.GUESTSCREEN_IDENTITY_READ_WAIT_SECONDS === undefined ? 30 : Number(e.GUESTSCREEN_IDENTITY_READ_WAIT_SECONDS)) * 1000,
    lookups: {
      cacheSeconds: e.GUESTSCREEN_LOOKUP_CACHE_SECONDS === undefined ? 86_400 : Number(e.GUESTSCREEN_LOOKUP_CACHE_SECONDS),
      quotaPerDay: e.GUESTSCREEN_LOOKUP_QUOTA_PER_DAY === undefined ? 1_000 : Number(e.GUESTSCREEN_LOOKUP_QUOTA_PER_DAY),
      geoipDatabase: e.GUESTSCREEN_GEOIP_DATABASE,
      nominatimEmail: e.GUESTSCREEN_NOMINATIM_EMAIL,
      gdeltSpacingMs: (e.GUESTSCREEN_GDELT_SPACING_SECONDS === undefined ? 5 : Number(e.GUESTSCREEN_GDELT_SPACING_SECONDS)) * 1000,
      whois: vendors.rdap ? { host: e.GUESTSCREEN_WHOIS_SERVER ?? 'whois.iana.org', port: e.GUESTSCREEN_WHOIS_PORT === undefined ? 43 : Number(e.GUESTSCREEN_WHOIS_PORT) } : undefined,
      vendors,
    },
  };
}

export const ENV_VARIABLES = Object.keys(EnvSchema.properties);

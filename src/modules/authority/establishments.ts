/**
 * Establishments: how a listing (or, by default, its account) reports its guests to the police,
 * with which system, identifiers and credentials. Credentials are sealed like webhook secrets,
 * never answered back (only that they are set, and since when), and checked on saving by the
 * authority's own test call: SES.HOSPEDAJES's `catalogo`, Alloggiati Web's token and
 * `Authentication_Test`, SIBA's delivery of a file without bulletins. An establishment starts in
 * test mode (SES's pre-production service, Alloggiati's `Test`, which files nothing, SIBA's
 * development service) and reports for real only once switched to production.
 */
import { withTx } from '../../db/connection.js';
import type { System } from '../guests/index.js';
import type { Deps } from '../../deps.js';
import { enqueue } from '../../jobs/repo.js';
import { saveListingInfo } from '../bookings/index.js';
import { AppError, badRequest, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { iso, localTimeIn } from '../../lib/time.js';
import { VERSION } from '../../version.js';
import { alloggiatiTablesAsOf } from './tables.js';
import { AlloggiatiRefusal, checkCredentials, type AlloggiatiConnection } from './alloggiati.js';
import { fetchAlloggiatiTables, type TablesImported } from './import.js';
import * as repo from './repo.js';
import { catalogue, SesRefusal, type SesConnection } from './ses.js';
import { deliverBulletins, SibaRefusal, type SibaConnection } from './siba.js';
import { movimentoBal, UNIT_BOUNDS, type SibaUnit } from './siba-files.js';
import { AuthorityUnreachable } from './soap.js';

export const SYSTEM_NAMES: Record<System, string> = { ses: 'SES.HOSPEDAJES', alloggiati: 'Alloggiati Web', siba: 'SIBA' };
export type Mode = 'test' | 'production';

/** What a host sets: the system, its identifiers, and its credentials (left out: the ones set before stay). */
export interface EstablishmentInput {
  system: System;
  mode?: Mode | undefined;
  landlord_code?: string | undefined;
  establishment_code?: string | undefined;
  ca_bundle?: string | null | undefined;
  apartment_id?: string | null | undefined;
  username?: string | undefined;
  password?: string | undefined;
  ws_key?: string | undefined;
  /** SIBA: the host's NIPC, the establishment's number, its details for every file, and the access key. */
  nipc?: string | undefined;
  establishment_number?: string | undefined;
  unit?: Partial<SibaUnitInput> | undefined;
  access_key?: string | undefined;
}

/** The establishment's own details SIBA takes in every file's `Unidade_Hoteleira` block. */
export interface SibaUnitInput {
  name: string;
  abbreviation: string;
  address: string;
  town: string;
  /** Portugal's postcode, 4 + 3 digits (1000-001). */
  postcode: string;
  phone: string;
  contact_name: string;
  contact_email: string | null;
}

interface Settings {
  landlord_code?: string;
  establishment_code?: string;
  ca_bundle?: string;
  apartment_id?: string;
  nipc?: string;
  establishment_number?: string;
  unit?: SibaUnitInput;
}
interface Credentials {
  username?: string;
  password?: string;
  ws_key?: string;
  access_key?: string;
}

const sealedFor = (accountId: string, listingId: string) => `authority_credentials:${accountId}:${listingId}`;

/** What the API and the console show of an establishment: never its credentials. */
export function establishmentView(row: repo.EstablishmentRow) {
  const settings = JSON.parse(row.settings) as Settings;
  return {
    system: row.system as System,
    system_name: SYSTEM_NAMES[row.system as System],
    mode: row.mode as Mode,
    listing_id: row.listing_id || null,
    landlord_code: settings.landlord_code ?? null,
    establishment_code: settings.establishment_code ?? null,
    apartment_id: settings.apartment_id ?? null,
    nipc: settings.nipc ?? null,
    establishment_number: settings.establishment_number ?? null,
    unit: settings.unit ?? null,
    ca_bundle_set: Boolean(settings.ca_bundle),
    credentials_set_at: row.credentials_set_at,
    checked_at: row.checked_at,
    check: row.check_problem ? ('not_reached' as const) : ('passed' as const),
    check_problem: row.check_problem,
    tables_as_of: row.system === 'alloggiati' ? row.tables_as_of : null,
    tables_problem: row.system === 'alloggiati' ? row.tables_problem : null,
    updated_at: row.updated_at,
  };
}
export type EstablishmentView = ReturnType<typeof establishmentView>;

/** A field the system needs: given now, or kept from before. */
function needed(name: string, value: string | undefined, system: System): string {
  if (value === undefined || value.trim() === '') throw badRequest(`body.${name}: required for ${SYSTEM_NAMES[system]}`);
  return value.trim();
}

function settingsOf(input: EstablishmentInput, before: Settings): Settings {
  if (input.system === 'ses') {
    const ca = input.ca_bundle === undefined ? before.ca_bundle : (input.ca_bundle ?? undefined);
    if (ca !== undefined && !/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(ca))
      throw badRequest('body.ca_bundle: must hold one or more PEM certificates (-----BEGIN CERTIFICATE-----)');
    return {
      landlord_code: needed('landlord_code', input.landlord_code ?? before.landlord_code, 'ses'),
      establishment_code: needed('establishment_code', input.establishment_code ?? before.establishment_code, 'ses'),
      ...(ca ? { ca_bundle: ca } : {}),
    };
  }
  if (input.system === 'siba') return sibaSettings(input, before);
  const apartment = input.apartment_id === undefined ? before.apartment_id : (input.apartment_id ?? undefined);
  return apartment ? { apartment_id: apartment } : {};
}

/** The unit's fields as bal.xsd bounds them: each field's name on the API, its element, whether required. */
const UNIT_FIELDS = [
  ['name', 'Nome', true],
  ['abbreviation', 'Abreviatura', false],
  ['address', 'Morada', true],
  ['town', 'Localidade', true],
  ['phone', 'Telefone', true],
  ['contact_name', 'Nome_Contacto', true],
  ['contact_email', 'Email_Contacto', false],
] as const;

/** A SIBA establishment's settings, each checked against bal.xsd's bounds (what is not given now is kept from before). */
function sibaSettings(input: EstablishmentInput, before: Settings): Settings {
  const nipc = needed('nipc', input.nipc ?? before.nipc, 'siba');
  if (!/^\d{9}$/.test(nipc)) throw badRequest('body.nipc: the NIPC (número de identificação de pessoa coletiva, or the host’s NIF) is 9 digits');
  const number = needed('establishment_number', input.establishment_number ?? before.establishment_number, 'siba');
  if (!/^\d{1,2}$/.test(number)) throw badRequest('body.establishment_number: the establishment’s number in SIBA, 00 for the first, is at most 2 digits');
  const given = { ...before.unit, ...input.unit } as Record<string, string | null | undefined>;
  const unit: Record<string, string | null> = {};
  for (const [name, element, required] of UNIT_FIELDS) {
    const value = typeof given[name] === 'string' ? given[name].trim() : '';
    if (required && !value) throw badRequest(`body.unit.${name}: required for SIBA`);
    // The phone's bound is checked once its spaces and country code are gone (below).
    if (name !== 'phone' && value.length > UNIT_BOUNDS[element]) throw badRequest(`body.unit.${name}: at most ${UNIT_BOUNDS[element]} characters (SIBA's ${element})`);
    unit[name] = value || null;
  }
  if (unit.contact_email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(unit.contact_email)) throw badRequest('body.unit.contact_email: must be an e-mail address');
  // SIBA's Telefone holds 10 characters: a Portuguese number's 9 digits, without the country's +351.
  if (unit.phone) unit.phone = unit.phone.replace(/[\s.-]/g, '').replace(/^(\+|00)351(?=\d{9}$)/, '');
  if (unit.phone && !/^\+?\d{6,10}$/.test(unit.phone)) throw badRequest('body.unit.phone: a phone number of at most 10 digits (SIBA’s Telefone; a Portuguese number without +351)');
  const postcode = typeof given.postcode === 'string' ? given.postcode.trim() : '';
  if (!/^\d{4}-\d{3}$/.test(postcode)) throw badRequest('body.unit.postcode: a Portuguese postcode, 4 and 3 digits (1000-001)');
  return {
    nipc,
    establishment_number: number.padStart(2, '0'),
    unit: {
      name: unit.name!,
      // The abbreviation is required by the XSD: the name's start when none is given.
      abbreviation: unit.abbreviation ?? unit.name!.slice(0, UNIT_BOUNDS.Abreviatura).trim(),
      address: unit.address!,
      town: unit.town!,
      postcode,
      phone: unit.phone!,
      contact_name: unit.contact_name!,
      contact_email: unit.contact_email ?? null,
    },
  };
}

/** The establishment as every SIBA file's `Unidade_Hoteleira` gives it. */
export function sibaUnit(settings: Settings): SibaUnit {
  const u = settings.unit!;
  return {
    Codigo_Unidade_Hoteleira: settings.nipc ?? '',
    Estabelecimento: settings.establishment_number ?? '00',
    Nome: u.name,
    Abreviatura: u.abbreviation,
    Morada: u.address,
    Localidade: u.town,
    Codigo_Postal: u.postcode.slice(0, 4),
    Zona_Postal: u.postcode.slice(5),
    Telefone: u.phone,
    Fax: '',
    Nome_Contacto: u.contact_name,
    Email_Contacto: u.contact_email ?? undefined,
  };
}

function credentialsOf(input: EstablishmentInput, before: Credentials | undefined): { credentials: Credentials; changed: boolean } {
  if (input.system === 'siba') {
    const given = input.access_key !== undefined;
    return { credentials: { access_key: needed('access_key', input.access_key ?? before?.access_key, 'siba') }, changed: given };
  }
  const given = input.username !== undefined || input.password !== undefined || input.ws_key !== undefined;
  const base = given ? undefined : before;
  const credentials: Credentials = {
    username: needed('username', input.username ?? base?.username, input.system),
    password: needed('password', input.password ?? base?.password, input.system),
    ...(input.system === 'alloggiati' ? { ws_key: needed('ws_key', input.ws_key ?? base?.ws_key, 'alloggiati') } : {}),
  };
  return { credentials, changed: given };
}

/** The connection to SES.HOSPEDAJES of an establishment, in its mode. */
export function sesConnection(deps: Deps, settings: Settings, credentials: Credentials, mode: Mode): SesConnection {
  return {
    endpoint: deps.config.authorities.ses[mode],
    user: credentials.username ?? '',
    password: credentials.password ?? '',
    codigoArrendador: settings.landlord_code ?? '',
    aplicacion: `guestscreen ${VERSION}`,
    ca: settings.ca_bundle,
    timeoutMs: deps.config.authorities.timeoutMs,
    // The endpoint is the operator's setting, not a host's: a test rig may be on a private network.
    allowPrivate: true,
  };
}

/** The connection to Alloggiati Web of an establishment (one endpoint: its test mode is the `Test` operation). */
export function alloggiatiConnection(deps: Deps, settings: Settings, credentials: Credentials): AlloggiatiConnection {
  return {
    endpoint: deps.config.authorities.alloggiati,
    user: credentials.username ?? '',
    password: credentials.password ?? '',
    wsKey: credentials.ws_key ?? '',
    apartment: settings.apartment_id,
    timeoutMs: deps.config.authorities.timeoutMs,
    allowPrivate: true,
  };
}

/** The connection to SIBA of an establishment, in its mode (the development service in test mode). */
export function sibaConnection(deps: Deps, settings: Settings, credentials: Credentials, mode: Mode): SibaConnection {
  return {
    endpoint: deps.config.authorities.siba[mode],
    unit: settings.nipc ?? '',
    establishment: settings.establishment_number ?? '00',
    key: credentials.access_key ?? '',
    timeoutMs: deps.config.authorities.timeoutMs,
    allowPrivate: true,
  };
}

/**
 * SIBA's check: a file of the establishment's block and no bulletin, delivered with the host's
 * unit and key to the mode's service. SIBA has no call that files nothing and no test of a key
 * alone; a file without bulletins reports nobody, and proves the unit, the key and the block
 * (its refusal names what it refused). It takes a file number, which the counter keeps.
 */
async function checkSiba(deps: Deps, settings: Settings, credentials: Credentials, mode: Mode): Promise<void> {
  const conn = sibaConnection(deps, settings, credentials, mode);
  const number = await repo.nextFileNumber(deps.db, 'siba', conn.unit, conn.establishment);
  await deliverBulletins(conn, movimentoBal(sibaUnit(settings), [], { number, at: localTimeIn(deps.clock(), 'Europe/Lisbon') }));
}

/**
 * The authority's own check of the credentials: null when it took them, its words when it could
 * not be reached. A refusal throws a 422 with the authority's words: nothing is saved.
 */
async function checkWithAuthority(deps: Deps, system: System, settings: Settings, credentials: Credentials, mode: Mode): Promise<string | null> {
  try {
    if (system === 'ses') await catalogue(sesConnection(deps, settings, credentials, mode), 'TIPO_DOCUMENTO');
    else if (system === 'siba') await checkSiba(deps, settings, credentials, mode);
    else await checkCredentials(alloggiatiConnection(deps, settings, credentials));
    return null;
  } catch (err) {
    if (err instanceof AuthorityUnreachable) return err.message;
    if (err instanceof SibaRefusal)
      throw new AppError(
        'unprocessable',
        `SIBA refused ${err.unauthorised ? 'this NIPC, establishment number or access key' : 'this establishment'} (${mode} mode): ${err.errors.map((e) => `${e.code} ${e.description}`.trim()).join('; ')}; nothing was saved`,
      );
    if (err instanceof SesRefusal || err instanceof AlloggiatiRefusal)
      throw new AppError('unprocessable', `${SYSTEM_NAMES[system]} refused these credentials (${mode} mode): ${err.message}; nothing was saved`);
    throw err;
  }
}

/** Sets a listing's ('' for the account's default) establishment, once the authority has checked its credentials. */
export async function setEstablishment(deps: Deps, accountId: string, listingId: string, input: EstablishmentInput): Promise<EstablishmentView> {
  const existing = await repo.findEstablishment(deps.db, accountId, listingId);
  const same = existing?.system === input.system ? existing : undefined;
  const before = same ? (JSON.parse(same.settings) as Settings) : {};
  const beforeCredentials = same ? (JSON.parse(deps.secrets.open(same.credentials_enc, sealedFor(accountId, listingId))) as Credentials) : undefined;
  const settings = settingsOf(input, before);
  const { credentials, changed } = credentialsOf(input, beforeCredentials);
  const mode = input.mode ?? same?.mode ?? 'test';
  const problem = await checkWithAuthority(deps, input.system, settings, credentials, mode as Mode);
  const now = iso(deps.clock());
  const row: repo.EstablishmentRow = {
    id: existing?.id ?? newId('est'),
    account_id: accountId,
    listing_id: listingId,
    system: input.system,
    mode,
    settings: JSON.stringify(settings),
    credentials_enc: deps.secrets.seal(JSON.stringify(credentials), sealedFor(accountId, listingId)),
    credentials_set_at: changed || !same ? now : same.credentials_set_at,
    checked_at: problem ? (same?.checked_at ?? null) : now,
    check_problem: problem,
    tables_as_of: same?.tables_as_of ?? null,
    tables_problem: same?.tables_problem ?? null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await withTx(deps.db, async (tx) => {
    await repo.saveEstablishment(tx, row);
    // A listing set up before any booking names it is a listing the console lists.
    if (listingId) await saveListingInfo(tx, accountId, listingId, {}, now);
    // Bookings already made get their reports (and their guests the step); a switch of mode re-plans
    // them, so what was only tested goes for real.
    if (!same || same.mode !== row.mode) await enqueue(tx, deps, 'authority.plan', { account_id: accountId, listing_id: listingId }, { uniqueKey: `authority.plan:${accountId}:${listingId}` });
  });
  if (!same || same.mode !== row.mode) deps.wakeWorker();
  // Alloggiati Web's tables of places and documents, fetched with the credentials it just took:
  // every Italian report needs them, and no command line should stand between a host and filing.
  if (row.system === 'alloggiati' && !problem) Object.assign(row, await refreshTables(deps, row));
  return establishmentView(row);
}

/** Whether the service's tables could be fetched with an establishment's credentials, kept on it: their day, or why not. */
async function refreshTables(deps: Deps, row: repo.EstablishmentRow): Promise<Pick<repo.EstablishmentRow, 'tables_as_of' | 'tables_problem'>> {
  let outcome: Pick<repo.EstablishmentRow, 'tables_as_of' | 'tables_problem'>;
  try {
    const open = openEstablishment(deps, row);
    outcome = { tables_as_of: (await fetchAlloggiatiTables(deps, alloggiatiConnection(deps, open.settings, open.credentials))).as_of, tables_problem: null };
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    outcome = { tables_as_of: row.tables_as_of, tables_problem: `Alloggiati Web's tables could not be fetched: ${err.message}` };
  }
  await repo.setTablesOutcome(deps.db, row.id, outcome);
  return outcome;
}

/**
 * Alloggiati Web's tables fetched again with an establishment's credentials (the account's, or a
 * listing's; with neither, the one whose credentials the service took last): the operator's
 * command and the worker's weekly look, as comuni change.
 */
export async function refreshAlloggiatiTables(deps: Deps, which: { account?: string | undefined; listing?: string | undefined } = {}): Promise<TablesImported & { establishment: string }> {
  const row = which.account ? await repo.establishmentFor(deps.db, which.account, which.listing ?? null) : await repo.latestCheckedEstablishment(deps.db, 'alloggiati');
  if (!row || row.system !== 'alloggiati')
    throw notFound(
      which.account
        ? `an Alloggiati Web establishment for ${which.listing ? `listing ${which.listing} of ` : ''}account ${which.account}`
        : 'an Alloggiati Web establishment whose credentials the service took',
    );
  const open = openEstablishment(deps, row);
  const imported = await fetchAlloggiatiTables(deps, alloggiatiConnection(deps, open.settings, open.credentials));
  await repo.setTablesOutcome(deps.db, row.id, { tables_as_of: imported.as_of, tables_problem: null });
  return { ...imported, establishment: row.id };
}

/** How often the worker fetches Alloggiati Web's tables again. */
const TABLES_MAX_AGE_DAYS = 7;

/** The worker's look: Alloggiati Web's tables fetched again once a week, where an establishment can. */
export async function refreshStaleTables(deps: Deps): Promise<void> {
  const asOf = alloggiatiTablesAsOf(deps.config.dataDir);
  const weekAgo = iso(new Date(deps.clock().getTime() - TABLES_MAX_AGE_DAYS * 86_400_000)).slice(0, 10);
  if (asOf && asOf > weekAgo) return;
  const row = await repo.latestCheckedEstablishment(deps.db, 'alloggiati');
  if (row) await refreshTables(deps, row);
}

/** What the sending job needs of an establishment: its settings and its credentials, opened. */
export function openEstablishment(deps: Deps, row: repo.EstablishmentRow): { system: System; mode: Mode; settings: Settings; credentials: Credentials } {
  return {
    system: row.system as System,
    mode: row.mode as Mode,
    settings: JSON.parse(row.settings) as Settings,
    credentials: JSON.parse(deps.secrets.open(row.credentials_enc, sealedFor(row.account_id, row.listing_id))) as Credentials,
  };
}

/** A listing's ('' for the account's) establishment as shown, or null when none is set. */
export async function findEstablishmentView(deps: Deps, accountId: string, listingId: string): Promise<EstablishmentView | null> {
  const row = await repo.findEstablishment(deps.db, accountId, listingId);
  return row ? establishmentView(row) : null;
}

/**
 * Test mode or production, switched as a deliberate step: to production only when the host says
 * so (`confirmed`), with the credentials checked again by the production service.
 */
export async function switchMode(deps: Deps, accountId: string, listingId: string, mode: Mode, confirmed: boolean): Promise<EstablishmentView> {
  const row = await repo.findEstablishment(deps.db, accountId, listingId);
  if (!row) throw notFound(listingId ? `an authority establishment for listing ${listingId}` : 'an authority establishment for the account');
  if (mode === 'production' && !confirmed) throw badRequest('body.confirm: tick the box to report guests for real');
  return setEstablishment(deps, accountId, listingId, { system: row.system as System, mode });
}

export async function getEstablishment(deps: Deps, accountId: string, listingId: string): Promise<EstablishmentView> {
  const row = await repo.findEstablishment(deps.db, accountId, listingId);
  if (!row) throw notFound(listingId ? `an authority establishment for listing ${listingId}` : 'an authority establishment for the account');
  return establishmentView(row);
}

export async function removeEstablishment(deps: Deps, accountId: string, listingId: string): Promise<void> {
  if (!(await repo.deleteEstablishment(deps.db, accountId, listingId)))
    throw notFound(listingId ? `an authority establishment for listing ${listingId}` : 'an authority establishment for the account');
}

import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { momentInWords } from '../../lib/host-messages.js';
import { findEstablishmentView, removeEstablishment, setEstablishment, switchMode, SYSTEM_NAMES, type EstablishmentInput, type EstablishmentView } from '../../modules/authority/establishments.js';
import { translator } from '../../i18n/index.js';
import { knownListing } from '../../modules/listings/service.js';
import { answerText, SYSTEMS, type Field, type System } from '../../modules/guests/index.js';
import { policeDetails, reopenPoliceStep, writePoliceDetails } from '../../modules/portal/service.js';
import type { ReservationRow } from '../../modules/bookings/index.js';
import { getReservation } from '../../modules/reservations/service.js';
import { CsrfField, dropEmpty, PostButton, PostForm, seeOther, when, type Ctx } from './shell.js';

/**
 * A listing's police reporting (or the account's default) set up in the console as the API sets
 * it: the system, its identifiers, its credentials (write-only), checked by the authority on
 * saving, in test mode until the host deliberately switches it to production.
 */

const MODE_WORDS = {
  ses: {
    test: 'Test mode: each report goes to the Ministry’s pre-production service, which answers as the real one does. Nothing is filed: the guests are not reported yet.',
    production: 'Production: each guest is filed with SES.HOSPEDAJES for real, on the arrival day; its receipt (código de comunicación) is the proof.',
  },
  alloggiati: {
    test: 'Test mode: each stay is checked by Alloggiati Web’s Test, which answers row by row and files nothing: the guests are not reported yet.',
    production: 'Production: each stay is filed with Alloggiati Web for real, on the arrival day; the day’s receipt (Ricevuta) is kept as the proof.',
  },
  siba: {
    test: 'Test mode: each stay’s foreign guests go to SIBA’s development service, which answers as the real one does. Nothing is filed: the guests are not reported yet.',
    production:
      'Production: each stay’s foreign guests are filed with SIBA for real, on the arrival day (due within 3 working days); SIBA gives no receipt, so the file sent, its number and SIBA’s answer are kept as the proof.',
  },
} as const;

/** What is set, in words: system, mode, identifiers, when the credentials were set and checked, the tables' day. */
function Current({ e }: { e: EstablishmentView }) {
  return (
    <dl class="facts" id="police-current">
      <dt>System</dt>
      <dd>{e.system_name}</dd>
      <dt>Mode</dt>
      <dd>
        <strong>{e.mode === 'test' ? 'Test' : 'Production'}</strong>. {MODE_WORDS[e.system][e.mode]}
      </dd>
      {e.system === 'ses' ? (
        <>
          <dt>Landlord code</dt>
          <dd>{e.landlord_code}</dd>
          <dt>Establishment code</dt>
          <dd>{e.establishment_code}</dd>
        </>
      ) : e.system === 'siba' ? (
        <>
          <dt>NIPC and establishment</dt>
          <dd>
            {e.nipc}, establishment {e.establishment_number}
          </dd>
          <dt>Establishment details sent with each file</dt>
          <dd>
            {e.unit
              ? `${e.unit.name} (${e.unit.abbreviation}), ${e.unit.address}, ${e.unit.postcode} ${e.unit.town}; phone ${e.unit.phone}; contact ${e.unit.contact_name}${e.unit.contact_email ? `, ${e.unit.contact_email}` : ''}`
              : ''}
          </dd>
        </>
      ) : e.apartment_id ? (
        <>
          <dt>Apartment id</dt>
          <dd>{e.apartment_id}</dd>
        </>
      ) : null}
      <dt>Credentials</dt>
      <dd>
        Set on {when(e.credentials_set_at)}; never shown again.{' '}
        {e.check === 'passed' ? `The authority took them on ${when(e.checked_at)}.` : `The authority could not be reached to check them: ${e.check_problem ?? ''}`}
      </dd>
      {e.system === 'alloggiati' ? (
        <>
          <dt>Code tables</dt>
          <dd id="police-tables">
            {e.tables_as_of ? `Places and document types of ${e.tables_as_of}, fetched from Alloggiati Web with these credentials (again each week).` : 'Not fetched yet.'}
            {e.tables_problem ? ` ${e.tables_problem}` : ''}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

const field = (id: string, label: string, props: Record<string, unknown>, hint?: string) => (
  <div>
    <label for={id}>{label}</label>
    {hint ? (
      <p class="muted hint" id={`${id}-hint`}>
        {hint}
      </p>
    ) : null}
    <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...props} />
  </div>
);

/** The form of one system: its identifiers and credentials; what is left empty keeps what was set. */
function SystemForm({ ctx, action, system, e }: { ctx: Ctx; action: string; system: System; e: EstablishmentView | null }) {
  const same = e?.system === system ? e : null;
  const secret = same ? `set on ${when(same.credentials_set_at)}: leave empty to keep` : undefined;
  const p = system;
  return (
    <PostForm ctx={ctx} action={action} id={`police-${system}`}>
      <input type="hidden" name="system" value={system} />
      {system === 'siba' ? (
        <SibaFields same={same} secret={secret} />
      ) : system === 'ses' ? (
        <div class="grid2">
          {field(`${p}-landlord`, 'Landlord code (código de arrendador)', { name: 'landlord_code', maxLength: 10, required: !same, value: same?.landlord_code ?? '', autocomplete: 'off' })}
          {field(`${p}-establishment`, 'Establishment code (código de establecimiento)', {
            name: 'establishment_code',
            maxLength: 10,
            required: !same,
            value: same?.establishment_code ?? '',
            autocomplete: 'off',
          })}
          {field(
            `${p}-user`,
            'Web-service user',
            { name: 'username', maxLength: 50, required: !same, autocomplete: 'off', placeholder: secret },
            'The user for "Envío de comunicaciones por servicio web" in the SES portal, not the certificate login.',
          )}
          {field(`${p}-password`, 'Web-service password', { name: 'password', type: 'password', maxLength: 100, required: !same, autocomplete: 'new-password', placeholder: secret })}
        </div>
      ) : (
        <div class="grid2">
          {field(`${p}-user`, 'Alloggiati Web user', { name: 'username', maxLength: 50, required: !same, autocomplete: 'off', placeholder: secret })}
          {field(`${p}-password`, 'Password', { name: 'password', type: 'password', maxLength: 100, required: !same, autocomplete: 'new-password', placeholder: secret })}
          {field(
            `${p}-wskey`,
            'WSKEY',
            { name: 'ws_key', type: 'password', maxLength: 100, required: !same, autocomplete: 'off', placeholder: secret },
            'Made in the Alloggiati Web portal (at most one a day; again after a password change).',
          )}
          {field(
            `${p}-apartment`,
            'Apartment id (short-let accounts only)',
            { name: 'apartment_id', maxLength: 6, pattern: '[0-9]{1,6}', inputmode: 'numeric', value: same?.apartment_id ?? '' },
            'IdAppartamento, for an account that manages apartments; leave empty otherwise.',
          )}
        </div>
      )}
      <button type="submit">{same ? 'Save and check again' : `Check with ${SYSTEM_NAMES[system]} and save`}</button>
      <p class="muted">The authority checks the credentials before anything is saved; if it refuses them, you see its words and nothing changes.</p>
    </PostForm>
  );
}

/** SIBA's identifiers, the establishment's details every file carries (bal.xsd's bounds), and the access key. */
function SibaFields({ same, secret }: { same: EstablishmentView | null; secret: string | undefined }) {
  const u = same?.unit;
  const text = (name: string, maxLength: number, value: string | null | undefined, required = true) => ({ name, maxLength, required: required && !same, value: value ?? '', autocomplete: 'off' });
  return (
    <div class="grid2">
      {field('siba-nipc', 'NIPC (the host’s tax number)', { ...text('nipc', 9, same?.nipc), pattern: '[0-9]{9}', inputmode: 'numeric' }, 'The Código da Unidade Hoteleira in SIBA: your NIPC or NIF.')}
      {field(
        'siba-establishment',
        'Establishment number',
        { ...text('establishment_number', 2, same?.establishment_number ?? '00'), pattern: '[0-9]{1,2}', inputmode: 'numeric' },
        '00 for the first.',
      )}
      {field('siba-name', 'Establishment name', text('unit_name', 40, u?.name))}
      {field('siba-abbreviation', 'Abbreviation', text('unit_abbreviation', 15, u?.abbreviation, false), 'Up to 15 characters; the name’s start when left empty.')}
      {field('siba-address', 'Address', text('unit_address', 40, u?.address))}
      {field('siba-town', 'Town', text('unit_town', 30, u?.town))}
      {field('siba-postcode', 'Postcode', { ...text('unit_postcode', 8, u?.postcode), pattern: '[0-9]{4}-[0-9]{3}', placeholder: '1000-001' })}
      {field('siba-phone', 'Phone', { ...text('unit_phone', 13, u?.phone), type: 'tel' })}
      {field('siba-contact', 'Contact name', text('unit_contact_name', 40, u?.contact_name))}
      {field('siba-email', 'Contact e-mail', { ...text('unit_contact_email', 140, u?.contact_email, false), type: 'email' })}
      {field(
        'siba-key',
        'Access key (chave de acesso)',
        { name: 'access_key', type: 'password', maxLength: 100, required: !same, autocomplete: 'off', placeholder: secret },
        'Given by the SIBA portal once the establishment’s sending mode is set to web service.',
      )}
    </div>
  );
}

/** The police-reporting section of a listing's page (or of Settings, for the account's default). */
export function PoliceSettings({ ctx, base, e, fallback }: { ctx: Ctx; base: string; e: EstablishmentView | null; fallback?: EstablishmentView | null }) {
  return (
    <section class="panel" aria-labelledby="police-h" id="police">
      <h2 id="police-h">Police reports</h2>
      <p class="muted">
        In Spain and Italy every guest must be reported to the police within 24 hours of arrival; in Portugal every foreign guest within 3 working days. Once this is set, the guest portal asks each
        guest what the authority needs, and each report is filed on the arrival day; guests who never open the portal are followed too, and you are told before each deadline.
      </p>
      {e ? (
        <>
          <Current e={e} />
          {e.mode === 'test' ? (
            <PostForm ctx={ctx} action={`${base}/mode`} id="police-production">
              <input type="hidden" name="mode" value="production" />
              <label class="check">
                <input type="checkbox" name="confirm" value="yes" required /> I want this listing’s guests reported for real from now on: reports only tested so far are sent again, for real.
              </label>
              <button type="submit">Switch to production</button>
            </PostForm>
          ) : (
            <PostForm ctx={ctx} action={`${base}/mode`} id="police-test">
              <input type="hidden" name="mode" value="test" />
              <button type="submit" class="secondary">
                Back to test mode (nothing more is filed)
              </button>
            </PostForm>
          )}
        </>
      ) : fallback ? (
        <p id="police-fallback">
          This listing reports through the account’s default: {fallback.system_name}, {fallback.mode === 'test' ? 'test mode' : 'production'} (<a href="/console/settings#police-h">Settings</a>). Set
          one below for this listing alone.
        </p>
      ) : (
        <p id="police-none">Not set: guests are not reported.</p>
      )}
      <details open={!e}>
        <summary>{e?.system === 'ses' ? 'Change SES.HOSPEDAJES (Spain)' : 'SES.HOSPEDAJES (Spain)'}</summary>
        <SystemForm ctx={ctx} action={base} system="ses" e={e} />
      </details>
      <details>
        <summary>{e?.system === 'alloggiati' ? 'Change Alloggiati Web (Italy)' : 'Alloggiati Web (Italy)'}</summary>
        <SystemForm ctx={ctx} action={base} system="alloggiati" e={e} />
      </details>
      <details>
        <summary>{e?.system === 'siba' ? 'Change SIBA (Portugal)' : 'SIBA (Portugal)'}</summary>
        <SystemForm ctx={ctx} action={base} system="siba" e={e} />
      </details>
      {e ? <PostButton ctx={ctx} action={`${base}/remove`} label="Stop reporting here" kind="danger" id="police-remove" /> : null}
    </section>
  );
}

/** SIBA's establishment details, as the form's `unit_*` fields. */
const UNIT_KEYS = ['name', 'abbreviation', 'address', 'town', 'postcode', 'phone', 'contact_name', 'contact_email'] as const;

const SystemBody = Type.Object(
  {
    system: Type.Union(SYSTEMS.map((s) => Type.Literal(s))),
    landlord_code: Type.Optional(Type.String({ minLength: 1, maxLength: 10 })),
    establishment_code: Type.Optional(Type.String({ minLength: 1, maxLength: 10 })),
    apartment_id: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    ws_key: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    nipc: Type.Optional(Type.String({ maxLength: 9 })),
    establishment_number: Type.Optional(Type.String({ maxLength: 2 })),
    ...Object.fromEntries(UNIT_KEYS.map((k) => [`unit_${k}`, Type.Optional(Type.String({ maxLength: 140 }))])),
    access_key: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    ...CsrfField,
  },
  { additionalProperties: false },
);
const ModeBody = Type.Object({ mode: Type.Union([Type.Literal('test'), Type.Literal('production')]), confirm: Type.Optional(Type.Literal('yes')), ...CsrfField }, { additionalProperties: false });
const ListingParams = Type.Object({ listing_id: Type.String({ minLength: 1, maxLength: 200 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
/** The console speaks English. */
const ENGLISH = translator('en');
const DONE: Record<string, string> = {
  police: 'Saved: the authority took these credentials.',
  production: 'Switched to production: guests are reported for real from now on.',
  test: 'Back in test mode: nothing more is filed.',
  'police-removed': 'Police reporting stopped here.',
  'police-details': 'Police details saved: each guest’s report below is planned again from them.',
  'police-step-open': 'The guest has not finished the guest portal: its link already opens on the steps still to do, the police step among them.',
  'police-step': 'The guest’s portal link now opens on the police step, filled in as it was: send it to them (Messages, below). Their reports follow once they save it.',
};
export const POLICE_DONE = DONE;

/** The establishment as the form sends it (SIBA's details as `unit_*` fields): what is left empty keeps what was set. */
function input({ _csrf, ...b }: Static<typeof SystemBody>): EstablishmentInput {
  const flat = b as Record<string, string | undefined>;
  const unit = Object.fromEntries(UNIT_KEYS.filter((k) => flat[`unit_${k}`] !== undefined).map((k) => [k, flat[`unit_${k}`]]));
  const rest = Object.fromEntries(Object.entries(flat).filter(([k]) => !k.startsWith('unit_')));
  return { ...(rest as unknown as EstablishmentInput), ...(b.system === 'siba' ? { unit } : {}) };
}

/** Saving, switching and removing, for a listing and for the account's default. */
export const policePages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const listingBase = (id: string) => `/console/listings/${encodeURIComponent(id)}`;
    for (const [path, target] of [
      ['/console/listings/:listing_id/authority', (p: { listing_id?: string }) => ({ listing: p.listing_id ?? '', back: listingBase(p.listing_id ?? '') })],
      ['/console/settings/authority', () => ({ listing: '', back: '/console/settings' })],
    ] as const) {
      const params = path.includes(':listing_id') ? { params: ListingParams } : {};
      const known = async (accountId: string, listing: string) => void (listing ? await knownListing(deps, accountId, listing) : undefined);
      app.post(path, { preValidation: dropEmpty, config: { audit: 'authority.establishment.changed' }, schema: { hide: true, ...params, body: SystemBody } }, async (request, reply) => {
        const { listing, back } = target(request.params as { listing_id?: string });
        await known(request.account.id, listing);
        await setEstablishment(deps, request.account.id, listing, input(request.body));
        return seeOther(reply, `${back}?done=police#police-h`);
      });
      app.post(`${path}/mode`, { config: { audit: 'authority.establishment.mode_changed' }, schema: { hide: true, ...params, body: ModeBody } }, async (request, reply) => {
        const { listing, back } = target(request.params as { listing_id?: string });
        await known(request.account.id, listing);
        await switchMode(deps, request.account.id, listing, request.body.mode, request.body.confirm === 'yes');
        return seeOther(reply, `${back}?done=${request.body.mode}#police-h`);
      });
      app.post(`${path}/remove`, { config: { audit: 'authority.establishment.removed' }, schema: { hide: true, ...params, body: Type.Object({ ...CsrfField }) } }, async (request, reply) => {
        const { listing, back } = target(request.params as { listing_id?: string });
        await removeEstablishment(deps, request.account.id, listing);
        return seeOther(reply, `${back}?done=police-removed#police-h`);
      });
    }

    app.post(
      '/console/reservations/:id/police-details',
      {
        config: { role: 'reviewer', audit: 'authority.police_details.changed' },
        schema: { hide: true, params: IdParams, body: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 })) },
      },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const { _csrf, ...form } = request.body;
        await writePoliceDetails(deps, r, ENGLISH, form);
        return seeOther(reply, `/console/reservations/${r.id}?done=police-details#reports-h`);
      },
    );
    app.post(
      '/console/reservations/:id/police-step',
      { config: { role: 'reviewer', audit: 'authority.police_step.reopened' }, schema: { hide: true, params: IdParams, body: Type.Object({ ...CsrfField }) } },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const reopened = await reopenPoliceStep(deps, r);
        return seeOther(reply, `/console/reservations/${r.id}?done=${reopened ? 'police-step' : 'police-step-open'}#reports-h`);
      },
    );
  };

const inputAttrs = (id: string, f: Field, value: string): Record<string, unknown> => ({
  id,
  name: f.name,
  value,
  type: f.kind === 'date' ? 'date' : f.kind === 'email' ? 'email' : f.kind === 'tel' ? 'tel' : 'text',
  maxLength: f.maxLength,
  autocomplete: 'off',
});

/** One field of the police step as the host fills it in: the portal's own field, in English. */
function DetailField({ f, value }: { f: Field; value: string }) {
  const id = `pd-${f.name}`;
  const label = ENGLISH.t(f.label, f.labelValues);
  return (
    <div>
      <label for={id}>{label}</label>
      {f.kind === 'select' ? (
        <select id={id} name={f.name}>
          <option value="">—</option>
          {(f.options ?? []).map(([v, l]) => (
            <option value={v} selected={v === value}>
              {ENGLISH.t(l)}
            </option>
          ))}
        </select>
      ) : (
        <input {...inputAttrs(id, f, value)} />
      )}
    </div>
  );
}

/**
 * The guests' police details on the booking's page: the host corrects what the authority cannot
 * take, or gives the details of a guest who never opened the portal; or sends the guest back to
 * the police step of a finished portal.
 */
export function PoliceDetails({ ctx, r, details }: { ctx: Ctx; r: ReservationRow; details: NonNullable<Awaited<ReturnType<typeof policeDetails>>> }) {
  const groups = new Map<number, Field[]>();
  for (const f of details.fields) {
    const g = Number(/^guest_(\d+)_/.exec(f.name)?.[1] ?? 0);
    groups.set(g, [...(groups.get(g) ?? []), f]);
  }
  return (
    <>
      <details id="police-details">
        <summary>Police details of the guests: correct them, or fill them in for a guest who did not</summary>
        <PostForm ctx={ctx} action={`/console/reservations/${r.id}/police-details`} role="reviewer">
          <p class="muted">What each guest’s report sends. Your changes are recorded under your name, and the reports are planned again from them (one filed already is sent again).</p>
          {[...groups].map(([g, fields]) => (
            <fieldset>
              <legend>{g === 0 ? `Guest 1 (who booked)` : `Guest ${g + 1}`}</legend>
              <div class="grid2">
                {fields.map((f) => (
                  <DetailField f={f} value={answerText(details.answer, f.name) ?? ''} />
                ))}
              </div>
            </fieldset>
          ))}
          <button type="submit" id="save-police-details">
            Save police details
          </button>
        </PostForm>
      </details>
      {r.guestportal_completed ? (
        details.reopened ? (
          <p class="muted" id="police-step-reopened">
            The guest’s portal link opens on the police step until they save it again.
          </p>
        ) : (
          <PostButton ctx={ctx} action={`/console/reservations/${r.id}/police-step`} label="Send the guest back to the police step" kind="secondary" id="reopen-police-step" role="reviewer" />
        )
      ) : null}
    </>
  );
}

/** The establishment a listing (or, with '', the account) has, for its page. */
export const policeOf = (deps: Deps, accountId: string, listingId: string) => findEstablishmentView(deps, accountId, listingId);

/** A deadline in the listing's time zone, as the portal shows it. */
export const deadline = (at: string, timeZone: string | null | undefined) => momentInWords(at, timeZone);

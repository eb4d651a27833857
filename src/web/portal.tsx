import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import type { Deps } from '../deps.js';
import type { Translator } from '../i18n/index.js';
import { AppError, badRequest, GuestError } from '../lib/errors.js';
import { dayIn } from '../lib/time.js';
import { findTextProblem } from '../http/input-rules.js';
import { fieldName, MAX_FILE_BYTES, SCREEN_DEFS, SCREENS, type Answer, type Field, type Screen, type Upload } from '../modules/guests/index.js';
import {
  documentPhotoRefusal,
  documentPhotos,
  documentPrefill,
  documentReading,
  documentWarnings,
  fieldsOf,
  missingSteps,
  nextStep,
  reopenedStep,
  openPortal,
  compareSelfiePhotos,
  readDocumentPhotos,
  saveStep,
  selfiePhotoRefusal,
  selfiePhotos,
  selfieState,
  submitPortal,
  type Portal,
} from '../modules/portal/service.js';
import type { PortalSelfie } from '../modules/identity/faces.js';
import { MOST_FRAMES } from '../modules/identity/photos.js';
import { PORTAL_TRIES, type PortalReading } from '../modules/identity/service.js';
import type { Logo, Terms } from '../modules/listings/profile.js';
import { checkInOutlook } from '../modules/messages/check-in.js';
import type { DocumentProblem } from '../modules/screening/checks/identification.js';
import type { ReservationRow } from '../modules/bookings/index.js';
import { openIdentification } from '../modules/screening/identity.js';
import { guestTranslator, guestWords, rememberLanguage, Switcher } from './guest.js';
import { CardPage, pageErrorHandler, POLICE_SCRIPT, Problems, SELFIE_SCRIPT, sendPage } from './layout.js';

const Params = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
const StepParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }), screen: Type.String({ maxLength: 40 }) });
const StepQuery = Type.Object({ step: Type.Optional(Type.String({ maxLength: 40 })), after: Type.Optional(Type.String({ maxLength: 40 })) });

export const isScreen = (s: string | undefined): s is Screen => (SCREENS as readonly string[]).includes(s ?? '');

/** What a step's form shows before the guest has answered it: what the booking already says. */
function defaults(deps: Deps, screen: Screen, p: Portal, read: Record<string, string> | null): Record<string, string> {
  const r = p.reservation;
  if (screen === 'AboutYou') {
    return { first_name: r.guest_first_name ?? '', last_name: r.guest_last_name ?? '', email: r.guest_email ?? '', phone: r.guest_phone ?? '' };
  }
  if (screen === 'AuthorityReporting' && p.authority) return authorityDefaults(deps, p, read);
  if (screen === 'IDVerification' || screen === 'AuthorityReporting') {
    const id = openIdentification(deps, r);
    return {
      ...Object.fromEntries(Object.entries(id).filter(([k]) => k !== 'mrz')),
      first_name: id.first_name ?? r.guest_first_name ?? '',
      last_name: id.last_name ?? r.guest_last_name ?? '',
      // What was read from the photo of the document comes before what anyone typed.
      ...read,
    };
  }
  return {};
}

/**
 * The police report's form before the guest answers it: the one who booked, from the document
 * read, the typed identity screen and the booking; the others are asked from nothing.
 */
function authorityDefaults(deps: Deps, p: Portal, read: Record<string, string> | null): Record<string, string> {
  const r = p.reservation;
  const id = { ...openIdentification(deps, r), ...read } as Record<string, string | undefined>;
  const typed = p.answers.IDVerification?.answer ?? {};
  const about = p.answers.AboutYou?.answer ?? {};
  const given = (a: Answer, k: string) => (typeof a[k] === 'string' && a[k] !== '' ? a[k] : undefined);
  const pick = (k: string) => given(typed, k) ?? id[k] ?? given(about, k);
  const type = pick('document_type');
  const nationality = pick('nationality');
  // A national identity card is Spain's DNI for a Spaniard; SES takes other nations' cards as "another document".
  const sesType = type === 'passport' ? 'passport' : type === 'id_card' && nationality === 'ES' ? 'es_nif' : type ? 'other' : undefined;
  const lastName = pick('last_name') ?? r.guest_last_name ?? undefined;
  // SES asks a Spanish document's two surnames apart: the zone, the printed page or the booking
  // give them in one (a first guess the guest can correct).
  const [first, second] = p.authority?.system === 'ses' && twoSurnamed(nationality) ? splitSurnames(lastName) : [lastName, undefined];
  const out: Record<string, string | undefined> = {
    first_name: pick('first_name') ?? r.guest_first_name ?? undefined,
    last_name: first,
    second_last_name: pick('second_last_name') ?? second,
    birth_date: pick('birth_date'),
    nationality,
    document_type: p.authority?.system === 'ses' ? sesType : p.authority?.system === 'siba' ? sibaType(type) : type === 'residence_permit' ? undefined : type,
    document_number: pick('document_number'),
    // A passport or identity card is, as a first guess the guest can correct, their own country's.
    document_country: p.authority?.system === 'alloggiati' || p.authority?.system === 'siba' ? nationality : undefined,
    sex: id.sex,
    email: given(about, 'email') ?? r.guest_email ?? undefined,
    phone: given(about, 'phone') ?? r.guest_phone ?? undefined,
    address: pick('address'),
  };
  return Object.fromEntries(Object.entries(out).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
}

/** SIBA's document types: a passport, an identity card, or another document (a residence permit among them). */
const sibaType = (type: string | undefined) => (type === 'passport' || type === 'id_card' ? type : type ? 'other' : undefined);

/** Nations whose people carry two surnames, the father's then the mother's (Spain and Spanish-speaking America); unknown, a guess. */
const TWO_SURNAMES = new Set(['ES', 'MX', 'AR', 'CO', 'CL', 'PE', 'VE', 'EC', 'GT', 'CU', 'BO', 'DO', 'HN', 'PY', 'SV', 'NI', 'CR', 'PA', 'UY', 'PR', 'GQ']);
const twoSurnamed = (nationality: string | undefined) => nationality === undefined || TWO_SURNAMES.has(nationality);
/** Particles that belong to the surname after them: de la Fuente, del Río, y Gasset. */
const SURNAME_PARTICLES = new Set(['de', 'del', 'la', 'las', 'los', 'y', 'san', 'da', 'do', 'dos', 'das']);

/**
 * A Spanish double surname in its two: "López Fernández" is López and Fernández, "García de la
 * Fuente" García and de la Fuente. Anything but two surnames (one, or three) stays whole.
 */
export function splitSurnames(surname: string | undefined): [string | undefined, string | undefined] {
  const words = (surname ?? '').trim().split(/\s+/).filter(Boolean);
  const parts: string[] = [];
  let pending = '';
  for (const w of words) {
    if (SURNAME_PARTICLES.has(w.toLowerCase())) pending = pending ? `${pending} ${w}` : w;
    else {
      parts.push(pending ? `${pending} ${w}` : w);
      pending = '';
    }
  }
  if (pending || parts.length !== 2) return [surname, undefined];
  return [parts[0], parts[1]];
}

const asForm = (a: Answer | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(a ?? {}).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? 'yes' : '') : typeof v === 'string' ? v : '']));

/** What every page of a portal shares: its language, the host's brand and the switcher. */
export interface View {
  t: Translator;
  request: FastifyRequest;
  p?: Portal | undefined;
  /** The host's preview from the console: where its logo and colours are served, and the way back. */
  preview?: { base: string; back: string } | undefined;
}

const hostOf = (p: Portal | undefined) => ({ named: p?.profile.display_name ? 'yes' : 'no', host: p?.profile.display_name ?? '' });

function GuestPage({ v, title, refreshEvery, pageScript, children }: { v: View; title: string; refreshEvery?: number; pageScript?: string; children: ComponentChildren }) {
  const { p, t } = v;
  const base = v.preview?.base ?? `/gp/${p?.reservation.gp_token}`;
  const header = (
    <header class="host">
      {p?.profile.logo ? <img src={`${base}/logo`} alt={p.profile.display_name ?? ''} class="logo" /> : null}
      <span class="host-name">{p?.profile.display_name ?? t.t('page.brand')}</span>
    </header>
  );
  return (
    <CardPage
      title={title}
      lang={t.locale}
      brandCss={p?.profile.accent_color ? `${base}/brand.css` : undefined}
      refreshEvery={refreshEvery}
      pageScript={pageScript}
      header={
        <>
          {v.preview && p ? <PreviewBar v={v} p={p} /> : null}
          {header}
        </>
      }
      footer={
        <>
          {p ? (
            <p class="privacy" id="privacy">
              {t.t('portal.privacy', hostOf(p))}
            </p>
          ) : null}
          <Switcher request={v.request} t={t} />
        </>
      }
    >
      {children}
    </CardPage>
  );
}

/**
 * Above a preview, in the host's words (the console's language): what this is, each step to look
 * at, and the way back. The steps' names are the guest's, in the language previewed.
 */
function PreviewBar({ v, p }: { v: View; p: Portal }) {
  const here = new URL(v.request.url, 'http://page');
  const link = (step: Screen) => {
    here.searchParams.set('step', step);
    return `${here.pathname}${here.search}`;
  };
  return (
    <nav class="notice preview" lang="en" aria-label="Preview">
      <p>
        <strong>Preview:</strong> what a guest of this listing sees. Nothing here can be sent. <a href={v.preview!.back}>Back to the listing</a>
      </p>
      <ol class="preview-steps">
        {p.steps.map((step) => (
          <li>
            <a href={link(step)} lang={v.t.locale} data-step={step}>
              {v.t.t(SCREEN_DEFS[step].title)}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** A problem with what the guest sent, and the field it is about ('' for the step as a whole). */
export type FieldProblem = { field: string; message: string };

/**
 * The problems of a form sent back, as the GOV.UK error summary gives them: at the top, focused,
 * each a link to its field, which says the problem again beside it. A long form on a phone is
 * thousands of pixels: a list at its top alone leaves the guest looking for the field.
 */
function ErrorSummary({ t, problems, fields }: { t: Translator; problems: readonly FieldProblem[]; fields: readonly Field[] }) {
  if (!problems.length) return null;
  const known = new Set(fields.map((f) => f.name));
  return (
    <div class="error error-summary" role="alert" aria-labelledby="error-summary-title" tabindex={-1} autofocus>
      <h2 id="error-summary-title">{t.t('portal.problems.title')}</h2>
      <ul>
        {problems.map((x) => (
          <li>{known.has(x.field) ? <a href={`#f_${x.field}`}>{x.message}</a> : x.message}</li>
        ))}
      </ul>
    </div>
  );
}

/** A field's problem beside it, read with it (aria-describedby points here). */
function FieldError({ t, id, error }: { t: Translator; id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="field-error" id={`${id}-error`}>
      <span class="skip">{t.t('portal.problems.prefix')} </span>
      {error}
    </p>
  );
}

function FieldInput({ t, f, values, saved, error }: { t: Translator; f: Field; values: Record<string, string>; saved: Answer | undefined; error?: string | undefined }) {
  const id = `f_${f.name}`;
  const value = values[f.name] ?? '';
  const text = t.t(f.label, f.labelValues);
  // A field in error says so beside it, in words a screen reader reads with the field.
  const invalid = error ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {};
  const label = (
    <>
      <label for={id}>
        {text}
        {f.required || f.neededIfAsked ? null : <small> {t.t('portal.optional')}</small>}
      </label>
      <FieldError t={t} id={id} error={error} />
    </>
  );
  const help = f.help ? <small class="hint">{t.t(f.help)}</small> : null;
  switch (f.kind) {
    case 'checkbox':
      return (
        <>
          <FieldError t={t} id={id} error={error} />
          <label class="check">
            <input type="checkbox" id={id} name={f.name} value="yes" checked={Boolean(value)} required={f.required} {...invalid} /> <span>{text}</span>
          </label>
        </>
      );
    case 'select':
      return (
        <>
          {label}
          <select id={id} name={f.name} required={f.required} {...invalid}>
            <option value="">{t.t('portal.choose')}</option>
            {(f.options ?? []).map(([v, l]) => (
              <option value={v} selected={v === value}>
                {t.t(l)}
              </option>
            ))}
          </select>
          {help}
        </>
      );
    case 'country': {
      // A text box with the countries listed under it in the guest's language: typing filters
      // them, and the server takes a name in any of our languages or an ISO code.
      const shown = /^[A-Z]{2}$/.test(value) ? (t.countryName(value) ?? value) : value;
      return (
        <>
          {label}
          <input
            type="text"
            id={id}
            name={f.name}
            list="countries"
            value={shown}
            required={f.required}
            maxLength={f.maxLength}
            autocomplete="off"
            placeholder={t.t('portal.country.placeholder')}
            {...invalid}
          />
          {help}
        </>
      );
    }
    case 'textarea':
      return (
        <>
          {label}
          <textarea id={id} name={f.name} required={f.required} maxLength={f.maxLength ?? 2000} value={value} {...invalid} />
          {help}
        </>
      );
    case 'file': {
      const kept = saved?.[f.name];
      const has = kept && typeof kept === 'object';
      return (
        <>
          {label}
          {f.capture ? (
            // The phone's front camera for a selfie; a computer offers its files.
            <input type="file" id={id} name={f.name} accept="image/*" capture={f.capture} required={f.required && !has} {...invalid} />
          ) : (
            <input type="file" id={id} name={f.name} accept="image/jpeg,image/png,image/webp,image/heic,application/pdf" required={f.required && !has} {...invalid} />
          )}
          <small class="hint">
            {has ? `${t.t('portal.file.saved', { name: kept.filename })} ` : ''}
            {f.capture && f.help ? t.t(f.help) : t.t(f.photo ? 'portal.photo.types' : 'portal.file.types', { mb: MAX_FILE_BYTES / 1024 / 1024 })}
          </small>
        </>
      );
    }
    default:
      return (
        <>
          {label}
          <input type={f.kind as string as 'text'} id={id} name={f.name} value={value} required={f.required} maxLength={f.maxLength} {...invalid} />
          {help}
        </>
      );
  }
}

function StayLine({ t, r }: { t: Translator; r: ReservationRow }) {
  const dates = r.check_in_date ? (r.check_out_date ? t.range(r.check_in_date, r.check_out_date) : t.date(r.check_in_date)) : 'none';
  return <p class="steps">{t.t('portal.stay', { place: r.listing_nickname ?? 'none', dates })}</p>;
}

/** The host's house rules or rental agreement, in full, with the date of the version shown. */
function TermsText({ t, terms, p }: { t: Translator; terms: Terms | null; p: Portal }) {
  if (!terms) return <p class="terms-none">{t.t('portal.rules.none', hostOf(p))}</p>;
  return (
    <section class="terms" tabindex={0}>
      {terms.text.split(/\n{2,}/).map((para) => (
        <p>{para}</p>
      ))}
      <small>{t.t('portal.rules.version', { date: t.date(terms.updated_at.slice(0, 10)) })}</small>
    </section>
  );
}

/** What the guest is told at once about the document they gave, and what to do. */
function Warnings({ t, p, list }: { t: Translator; p: Portal; list: readonly DocumentProblem[] }) {
  if (!list.length) return null;
  const host = hostOf(p);
  const words = (w: DocumentProblem): [string, string] => {
    switch (w.code) {
      case 'expires_before_checkout':
        return [t.t('warn.expires_before_checkout', { expiry: t.date(w.expiry), checkout: t.date(w.checkout) }), t.t('warn.expires_before_checkout.do', host)];
      case 'under_minimum_age':
        return [t.t('warn.under_minimum_age', { age: w.age, minimum: w.minimum }), t.t('warn.under_minimum_age.do', { ...host, minimum: w.minimum })];
      case 'mrz_check_digits':
        return [t.t('warn.mrz_check_digits'), t.t('warn.mrz_check_digits.do')];
      default:
        return [t.t('warn.mrz_unreadable'), t.t('warn.mrz_unreadable.do')];
    }
  };
  return (
    <div class="warning" role="alert" id="warnings">
      <strong>{t.t('warn.heading')}</strong>
      {list.map((w) => {
        const [what, todo] = words(w);
        return (
          <p data-warning={w.code}>
            {what} {todo}
          </p>
        );
      })}
    </div>
  );
}

/** The warnings a form was shown with, as the form sends them back: saving again unchanged goes on. */
const warningsKey = (list: readonly DocumentProblem[]) => list.map((w) => w.code).join(' ');

/**
 * A step's form. `read`: what was read from the document's photo, shown on an identity screen the
 * guest has not answered (documentPrefill); a form sent back with problems shows what was sent.
 */
function stepPage(deps: Deps, v: View & { p: Portal }, screen: Screen, values: Record<string, string> | undefined, problems: FieldProblem[], read: Record<string, string> | null = null) {
  const { p, t } = v;
  const r = p.reservation;
  const def = SCREEN_DEFS[screen];
  const saved = p.answers[screen]?.answer;
  const shown = values ?? (saved ? asForm(saved) : defaults(deps, screen, p, read));
  const optional = p.screens[screen] === 'optional';
  const n = p.steps.indexOf(screen) + 1;
  // With no house rules written, the guest is told so and confirms only the number of guests.
  const noRules = screen === 'HouseRules' && !p.profile.house_rules;
  const asked = fieldsOf(screen, r, p.authority);
  const fields = noRules ? asked.map((f) => (f.name === 'accepted' ? { ...f, label: 'field.HouseRules.accepted_none' as const } : f)) : asked;
  // A police report asks each guest in turn: a heading where the next guest's fields begin.
  const guestOf = (name: string) => Number(/^guest_(\d+)_/.exec(name)?.[1] ?? 0);
  const headed = screen === 'AuthorityReporting' && p.authority !== null && asked.some((f) => guestOf(f.name) > 0);
  const warnings = values ? [] : documentWarnings(p, screen, saved, today(deps));
  const title = t.t(def.title);
  return (
    <GuestPage v={v} title={title} pageScript={v.preview ? undefined : screen === 'Selfie' ? SELFIE_SCRIPT : fields.some((f) => f.unlessNationality) ? POLICE_SCRIPT : undefined}>
      <StayLine t={t} r={r} />
      <p class="steps">{t.t('portal.step', { n, total: p.steps.length })}</p>
      <h1>{title}</h1>
      {noRules ? null : screen === 'AuthorityReporting' && p.authority ? (
        <p>{t.t('screen.AuthorityReporting.intro_system', { ...hostOf(p), authority: p.authority.name })}</p>
      ) : (
        <p>{t.t(def.intro, hostOf(p))}</p>
      )}
      {screen === 'HouseRules' ? <TermsText t={t} terms={p.profile.house_rules} p={p} /> : null}
      {screen === 'UsageAgreement' ? <TermsText t={t} terms={p.profile.usage_agreement} p={p} /> : null}
      <ErrorSummary t={t} problems={problems} fields={fields} />
      <Warnings t={t} p={p} list={warnings} />
      <form method="post" action={v.preview ? undefined : `/gp/${r.gp_token}/step/${screen}`} enctype="multipart/form-data" inert={v.preview ? true : undefined}>
        {screen === 'Selfie' ? <Camera t={t} /> : null}
        {fields.map((f, i) => {
          // Under its guest's heading, a field goes by its own name ("Nombre", not "Huésped 2: nombre").
          const input = <FieldInput t={t} f={headed ? { ...f, labelValues: { n: 1 } } : f} values={shown} saved={saved} error={problems.find((x) => x.field === f.name)?.message} />;
          return (
            <>
              {headed && (i === 0 || guestOf(f.name) !== guestOf(fields[i - 1]!.name)) ? <h2 class="guest-heading">{t.t('heading.Authority.guest', { n: guestOf(f.name) + 1 })}</h2> : null}
              {f.unlessNationality ? (
                // Not asked of a guest of that nationality: public/police.js hides it once the guest's nationality reads so.
                <div
                  class="field"
                  data-unless-field={`f_${fieldName(guestOf(f.name), 'nationality')}`}
                  data-unless-code={f.unlessNationality}
                  data-unless-name={t.countryName(f.unlessNationality) ?? f.unlessNationality}
                >
                  {input}
                </div>
              ) : (
                input
              )}
            </>
          );
        })}
        {fields.some((f) => f.kind === 'country') ? (
          <datalist id="countries">
            {t.countries().map((c) => (
              <option value={c.name} />
            ))}
          </datalist>
        ) : null}
        {warnings.length ? <input type="hidden" name="confirmed" value={warningsKey(warnings)} /> : null}
        <button type="submit" name="action" value="save">
          {warnings.length ? t.t('portal.confirm') : t.t('portal.save')}
        </button>
        {optional ? (
          <button type="submit" name="action" value="skip" class="secondary" formNoValidate>
            {t.t('portal.skip')}
          </button>
        ) : null}
      </form>
    </GuestPage>
  );
}

/**
 * The selfie's camera (public/selfie.js shows it; without JavaScript it stays hidden and the file
 * input takes a photo): a live preview of the front camera, the prompts the guest follows while
 * it takes a short series of frames, sent with the selfie in the form's own file inputs.
 */
function Camera({ t }: { t: Translator }) {
  return (
    <div
      id="camera"
      hidden
      data-look={t.t('selfie.camera.look')}
      data-left={t.t('selfie.camera.left')}
      data-right={t.t('selfie.camera.right')}
      data-blink={t.t('selfie.camera.blink')}
      data-refused={t.t('selfie.camera.refused')}
    >
      <video autoplay muted playsinline aria-hidden="true" />
      <p data-prompt aria-live="assertive" class="prompt" />
      <button type="button" data-start>
        {t.t('selfie.camera.start')}
      </button>
      <input type="file" name="selfie_frames" multiple hidden />
      <p class="hint">{t.t('selfie.camera.or')}</p>
    </div>
  );
}

/** Whether the guest is held at the reading of their document photo rather than sent on: while it is read, or unreadable with tries left. */
const holdsGuest = (reading: PortalReading | null) => reading !== null && (reading.state === 'reading' || (reading.state === 'unreadable' && reading.tries < PORTAL_TRIES));

/** The part of the reading page that changes as the reading goes on (htmx swaps it in place). */
function ReadingStatus({ t, p, reading }: { t: Translator; p: Portal; reading: PortalReading }) {
  const token = p.reservation.gp_token;
  if (reading.state === 'reading') {
    return (
      <div id="reading" aria-live="polite" hx-get={`/gp/${token}/reading`} hx-trigger="every 1s" hx-select="#reading" hx-swap="outerHTML">
        <p>{t.t('reading.wait')}</p>
        <progress aria-label={t.t('reading.title')} />
      </div>
    );
  }
  if (reading.state === 'read' || reading.state === 'late') {
    const d = reading.document;
    const name = d ? [d.given_names.value, d.surname.value].filter(Boolean).join(' ') : '';
    return (
      <div id="reading" aria-live="polite">
        {reading.state === 'read' ? (
          <p class="notice" data-reading="read">
            {t.t('reading.read', { name, expiry: d?.expiry_date.value ? t.date(d.expiry_date.value) : 'none' })}
          </p>
        ) : (
          <p data-reading="late">{t.t('reading.late', hostOf(p))}</p>
        )}
        {reading.back_only ? (
          <p class="warning" data-reading="back-only">
            {t.t('reading.card_front')} <a href={`/gp/${token}?step=IDCollection`}>{t.t('reading.send_both')}</a>
          </p>
        ) : null}
        <a class="button" href={`/gp/${token}`}>
          {t.t('reading.continue')}
        </a>
      </div>
    );
  }
  const left = Math.max(0, PORTAL_TRIES - reading.tries);
  return (
    <div id="reading" aria-live="polite">
      <div class="warning" role="alert" data-reading="unreadable">
        {/* A screen's photo reads, but is no photo of the document in hand. */}
        <strong>{t.t(reading.problems.includes('screen_photo') ? 'reading.not_usable' : 'reading.unreadable')}</strong>
        {reading.problems.map((code) => (
          <p data-problem={code}>{t.t(`reading.problem.${code}`)}</p>
        ))}
      </div>
      <a class="button" href={`/gp/${token}?step=IDCollection`}>
        {t.t('reading.retake')}
      </a>
      {left > 0 ? (
        <p class="hint">{t.t('reading.tries_left', { n: left })}</p>
      ) : (
        <>
          <p>{t.t('reading.go_on.why', hostOf(p))}</p>
          <a class="button secondary" href={`/gp/${token}?after=IDCollection`}>
            {t.t('reading.go_on')}
          </a>
        </>
      )}
    </div>
  );
}

/** The part of the selfie's page that changes as the comparison goes on (htmx swaps it in place). */
function SelfieStatus({ t, p, selfie }: { t: Translator; p: Portal; selfie: PortalSelfie }) {
  const token = p.reservation.gp_token;
  const onward = (
    <a class="button" href={`/gp/${token}?after=Selfie`}>
      {t.t('reading.continue')}
    </a>
  );
  if (selfie.state === 'checking') {
    return (
      <div id="selfie" aria-live="polite" hx-get={`/gp/${token}/selfie`} hx-trigger="every 1s" hx-select="#selfie" hx-swap="outerHTML">
        <p>{t.t('selfie.wait')}</p>
        <progress aria-label={t.t('selfie.title')} />
      </div>
    );
  }
  if (selfie.state === 'ok' || selfie.state === 'late') {
    return (
      <div id="selfie" aria-live="polite">
        <p class="notice" data-selfie={selfie.state}>
          {selfie.state === 'ok' ? t.t('selfie.ok') : t.t('selfie.late', hostOf(p))}
        </p>
        {onward}
      </div>
    );
  }
  return (
    <div id="selfie" aria-live="polite">
      <div class="warning" role="alert" data-selfie="retake">
        <strong>{t.t('selfie.unusable')}</strong>
        {selfie.problems.map((code) => (
          <p data-problem={code}>{t.t(`selfie.problem.${code}`)}</p>
        ))}
      </div>
      <a class="button" href={`/gp/${token}?step=Selfie`}>
        {t.t('selfie.retake')}
      </a>{' '}
      <a class="button secondary" href={`/gp/${token}?after=Selfie`}>
        {t.t('selfie.go_on')}
      </a>
    </div>
  );
}

function selfiePage(v: View & { p: Portal }, selfie: PortalSelfie) {
  const { p, t } = v;
  const title = t.t('selfie.title');
  return (
    <GuestPage v={v} title={title} refreshEvery={selfie.state === 'checking' ? 2 : undefined}>
      <StayLine t={t} r={p.reservation} />
      <h1>{title}</h1>
      <SelfieStatus t={t} p={p} selfie={selfie} />
    </GuestPage>
  );
}

function readingPage(v: View & { p: Portal }, reading: PortalReading) {
  const { p, t } = v;
  const title = t.t('reading.title');
  return (
    <GuestPage v={v} title={title} refreshEvery={reading.state === 'reading' ? 2 : undefined}>
      <StayLine t={t} r={p.reservation} />
      <h1>{title}</h1>
      <ReadingStatus t={t} p={p} reading={reading} />
    </GuestPage>
  );
}

const stepTitles = (t: Translator, steps: readonly Screen[]) => t.list(steps.map((s) => t.t(SCREEN_DEFS[s].title)));

function reviewPage(v: View & { p: Portal }, problem?: string) {
  const { p, t } = v;
  const r = p.reservation;
  const missing = missingSteps(p);
  const title = t.t('portal.review.title');
  return (
    <GuestPage v={v} title={title}>
      <StayLine t={t} r={r} />
      <h1>{title}</h1>
      <Problems list={problem ? [problem] : []} />
      {p.steps.length ? (
        <ol class="review">
          {p.steps.map((s) => {
            const rec = p.answers[s];
            const state = rec?.answer ? 'done' : rec?.skipped ? 'skipped' : p.screens[s] === 'required' ? 'todo' : 'empty';
            return (
              <li>
                <span data-step={s} data-state={state}>
                  {t.t(SCREEN_DEFS[s].title)}: {t.t(`portal.review.${state}`)}
                </span>
                {' · '}
                <a href={`/gp/${r.gp_token}?step=${s}`}>{t.t(rec ? 'portal.review.change' : 'portal.review.fill')}</a>
              </li>
            );
          })}
        </ol>
      ) : (
        <p>{t.t('portal.review.nothing', hostOf(p))}</p>
      )}
      <form method="post" action={`/gp/${r.gp_token}/submit`} enctype="multipart/form-data">
        <button type="submit" disabled={missing.length > 0}>
          {t.t('portal.submit', hostOf(p))}
        </button>
      </form>
    </GuestPage>
  );
}

async function donePage(deps: Deps, v: View & { p: Portal }) {
  const { p, t } = v;
  const outlook = await checkInOutlook(deps, p.reservation);
  const title = t.t('portal.done.title');
  const at = p.row?.completed_at ? t.dateTime(p.row.completed_at, p.reservation.listing_timezone_name ?? 'UTC') : '';
  return (
    <GuestPage v={v} title={title}>
      <StayLine t={t} r={p.reservation} />
      <h1 id="done">{title}</h1>
      <p>{t.t('portal.done.text', { ...hostOf(p), at })}</p>
      {outlook ? (
        <p id="check-in" class="notice">
          {outlook.sentAt
            ? t.t('portal.checkin.sent', { method: outlook.method, date: t.date(dayIn(outlook.sentAt, p.reservation.listing_timezone_name)) })
            : outlook.sendAt
              ? t.t('portal.checkin.later', { method: outlook.method, date: t.date(dayIn(outlook.sendAt, p.reservation.listing_timezone_name)) })
              : t.t('portal.checkin.soon', { method: outlook.method })}
        </p>
      ) : null}
    </GuestPage>
  );
}

function noSuchStep(v: View, name: string) {
  const { t } = v;
  return (
    <GuestPage v={v} title={t.t('portal.nostep.title')}>
      <h1>{t.t('portal.nostep.title')}</h1>
      <p class="error">{t.t('portal.nostep.text', { name })}</p>
    </GuestPage>
  );
}

const today = (deps: Deps) => deps.clock().toISOString().slice(0, 10);

/** The multipart form's fields and files, or an urlencoded form's fields. */
async function readBody(request: FastifyRequest, t: Translator): Promise<{ fields: Record<string, string>; uploads: Upload[]; tooLarge: boolean }> {
  const fields: Record<string, string> = {};
  const uploads: Upload[] = [];
  if (!request.isMultipart()) {
    for (const [k, v] of Object.entries((request.body ?? {}) as Record<string, unknown>)) if (typeof v === 'string') fields[k] = v;
    return { fields, uploads, tooLarge: false };
  }
  try {
    for await (const part of request.parts()) {
      const problem =
        findTextProblem(part.fieldname, 'form') ?? (part.type === 'file' ? findTextProblem(part.filename, `form.${part.fieldname}.filename`) : findTextProblem(part.value, `form.${part.fieldname}`));
      if (problem) throw badRequest(problem);
      if (part.type === 'file') {
        const data = await part.toBuffer();
        // A browser sends an empty part without a name for a file input left alone; an empty
        // file the guest chose has its name, and is refused by the form's rules.
        if (data.length || part.filename) uploads.push({ field: part.fieldname, filename: part.filename, contentType: part.mimetype, data });
      } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return { fields, uploads, tooLarge: true };
    if ((err as { statusCode?: number }).statusCode === 413) throw err;
    throw new GuestError('bad_request', 'error.form', t.t('error.form'));
  }
  return { fields, uploads, tooLarge: false };
}

/** A step of the portal as the guest of the booking would see it, for the host's preview (a console page). */
export function previewStepPage(deps: Deps, v: View & { p: Portal; preview: NonNullable<View['preview']> }, screen: Screen) {
  return stepPage(deps, v, screen, undefined, []);
}

/**
 * The guest portal at /gp/{token}: one page per screen the account's settings ask for, then a
 * review page that submits. Server-rendered forms that work without JavaScript; each save
 * redirects (303) so a reload never sends a form twice. Every page is in the guest's language
 * (web/guest.tsx) and carries the host's name, logo and accent colour.
 */
export const portalPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 64 * 1024 });
    await app.register(multipart, {
      // A document's two sides, or a selfie and the camera's frames.
      limits: { fileSize: MAX_FILE_BYTES, files: 4 + MOST_FRAMES, fields: 60, fieldSize: 16 * 1024, parts: 64 },
    });
    app.setErrorHandler(
      pageErrorHandler(
        'Guest portal',
        (request) => guestWords(guestTranslator(request)),
        (title, body, request) => (
          <GuestPage v={{ t: guestTranslator(request), request }} title={title}>
            {body}
          </GuestPage>
        ),
      ),
    );

    /** The portal behind the link, and the page's words in the guest's language. */
    const open = async (request: FastifyRequest, reply: FastifyReply) => {
      rememberLanguage(request, reply);
      const p = await openPortal(deps, (request.params as { token: string }).token);
      return { p, t: guestTranslator(request, p.reservation.guest_language), request };
    };

    app.get('/gp/:token', { config: { public: true }, schema: { hide: true, params: Params, querystring: StepQuery } }, async (request, reply) => {
      const v = await open(request, reply);
      const { p } = v;
      // A finished portal opens on the step the host sent the guest back to, until it is saved.
      const back = reopenedStep(p);
      if (back) return sendPage(reply, stepPage(deps, v, back, undefined, [], await documentPrefill(deps, p, back)));
      if (p.row?.completed_at) return sendPage(reply, await donePage(deps, v));
      const asked = request.query.step;
      if (asked !== undefined) {
        if (!isScreen(asked) || !p.steps.includes(asked)) return sendPage(reply, noSuchStep(v, asked), 404);
        return sendPage(reply, stepPage(deps, v, asked, undefined, [], await documentPrefill(deps, p, asked)));
      }
      const next = nextStep(p);
      // After the document photo, the guest hears whether it could be read before going on.
      if (next && p.answers.IDCollection?.answer && p.steps.indexOf(next) > p.steps.indexOf('IDCollection') && request.query.after !== 'IDCollection') {
        const reading = await documentReading(deps, p);
        if (reading && holdsGuest(reading)) return sendPage(reply, readingPage(v, reading));
      }
      return sendPage(reply, next ? stepPage(deps, v, next, undefined, [], await documentPrefill(deps, p, next)) : reviewPage(v));
    });

    // Where the comparison of the guest's selfie stands; htmx polls it for its #selfie part.
    app.get('/gp/:token/selfie', { config: { public: true }, schema: { hide: true, params: Params } }, async (request, reply) => {
      const v = await open(request, reply);
      const { p } = v;
      const selfie = p.row?.completed_at ? null : await selfieState(deps, p);
      if (!selfie) return reply.code(303).header('location', `/gp/${p.reservation.gp_token}`).send();
      return sendPage(reply, selfiePage(v, selfie));
    });

    // Where the reading of the guest's document photo stands; htmx polls it for its #reading part.
    app.get('/gp/:token/reading', { config: { public: true }, schema: { hide: true, params: Params } }, async (request, reply) => {
      const v = await open(request, reply);
      const { p } = v;
      const reading = p.row?.completed_at ? null : await documentReading(deps, p);
      if (!reading) return reply.code(303).header('location', `/gp/${p.reservation.gp_token}`).send();
      return sendPage(reply, readingPage(v, reading));
    });

    // The host's logo and accent colour, served from here because the pages' Content-Security-Policy
    // allows only this origin's images and stylesheets.
    app.get('/gp/:token/logo', { config: { public: true }, schema: { hide: true, params: Params } }, async (request, reply) => {
      const { p } = await open(request, reply);
      const logo = p.profile.logo;
      if (!logo) throw new GuestError('not_found', 'error.portal.not_found', 'This host has no logo.');
      return sendLogoImage(reply, logo, 'private, max-age=3600');
    });

    app.get('/gp/:token/brand.css', { config: { public: true }, schema: { hide: true, params: Params } }, async (request, reply) => {
      const { p } = await open(request, reply);
      return sendBrandCss(reply, p.profile.accent_color, 'private, max-age=300');
    });

    app.post('/gp/:token/step/:screen', { config: { public: true }, schema: { hide: true, params: StepParams } }, async (request, reply) => {
      const v = await open(request, reply);
      const { p, t } = v;
      const { screen } = request.params;
      if (!isScreen(screen) || !p.steps.includes(screen)) {
        return sendPage(reply, noSuchStep(v, screen), 404);
      }
      if (p.row?.completed_at && reopenedStep(p) !== screen) return sendPage(reply, await donePage(deps, v), 409);
      const { fields, uploads, tooLarge } = await readBody(request, t);
      if (tooLarge) {
        return sendPage(reply, stepPage(deps, v, screen, fields, [{ field: '', message: t.t('error.portal.too_large', { mb: MAX_FILE_BYTES / 1024 / 1024 }) }]), 413);
      }
      const skip = fields.action === 'skip';
      // New photos of the document are read, a new selfie compared with it; one the reader cannot
      // open is refused before anything is saved.
      const photos = skip ? [] : screen === 'IDCollection' ? documentPhotos(uploads) : screen === 'Selfie' ? selfiePhotos(uploads) : [];
      const refused = photos.length ? (screen === 'Selfie' ? selfiePhotoRefusal(photos) : documentPhotoRefusal(photos)) : null;
      if (refused) {
        // A photo too small to read is a photo: it is asked for again larger, not in another format.
        const small = refused.code === 'unprocessable';
        return sendPage(reply, stepPage(deps, v, screen, fields, [{ field: photos[0]?.part ?? '', message: t.t(small ? 'reading.too_small' : 'reading.refused') }]), small ? 422 : 415);
      }
      const result = await saveStep(deps, p, t, screen, fields, uploads, skip);
      if (!result.ok) return sendPage(reply, stepPage(deps, v, screen, result.form, result.problems), 400);
      // A document with a problem the guest can act on is shown again at once, saved, with what
      // to do; saving it again unchanged goes on (the host sees the finding either way).
      if (photos.some((x) => x.side === 'front')) {
        await readDocumentPhotos(deps, p, photos);
        return reply.code(303).header('location', `/gp/${p.reservation.gp_token}/reading`).send();
      }
      // A selfie the guest should take again (no face, too dark, eyes shut) is said at once.
      if (photos.some((x) => x.side === 'selfie') && (await compareSelfiePhotos(deps, p, photos))) {
        return reply.code(303).header('location', `/gp/${p.reservation.gp_token}/selfie`).send();
      }
      const warnings = skip ? [] : documentWarnings(p, screen, result.answer, today(deps));
      const stay = warnings.length > 0 && fields.confirmed !== warningsKey(warnings);
      return reply
        .code(303)
        .header('location', `/gp/${p.reservation.gp_token}${stay ? `?step=${screen}` : ''}`)
        .send();
    });

    app.post('/gp/:token/submit', { config: { public: true }, schema: { hide: true, params: Params } }, async (request, reply) => {
      const v = await open(request, reply);
      const { p, t } = v;
      await readBody(request, t); // the form has no fields; drain it
      if (!p.row?.completed_at) {
        const missing = missingSteps(p);
        if (missing.length) {
          return sendPage(reply, reviewPage(v, t.t('error.portal.missing', { steps: stepTitles(t, missing) })), 400);
        }
        await submitPortal(deps, p);
      }
      return reply.code(303).header('location', `/gp/${p.reservation.gp_token}`).send();
    });
  };

/** The host's logo as an image of its own type, never sniffed as anything else (the portal's, and the console's preview). */
export const sendLogoImage = (reply: FastifyReply, logo: Logo, cache: string) =>
  reply.type(logo.content_type).header('cache-control', cache).header('x-content-type-options', 'nosniff').send(Buffer.from(logo.data, 'base64'));

/** The host's accent colour as a stylesheet (the portal's, and the console's preview). */
export const sendBrandCss = (reply: FastifyReply, accent: string | null, cache: string) => reply.type('text/css; charset=utf-8').header('cache-control', cache).send(brandCss(accent));

/** The host's accent colour over the stylesheet's, with text on it dark or light as reads best. */
function brandCss(accent: string | null): string {
  if (!accent) return '';
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(accent.slice(i, i + 2), 16) / 255);
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const luminance = 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
  return `:root { --accent: ${accent}; --accent-ink: ${luminance > 0.4 ? '#111' : '#fff'}; }\n`;
}

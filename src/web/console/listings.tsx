import multipart from '@fastify/multipart';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { LOCALES, CATALOGUES } from '../../i18n/index.js';
import { findTextProblem } from '../../http/input-rules.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { CheckInUpdate, ProfileUpdate } from '../../modules/listings/routes.js';
import { MAX_LOGO_BYTES, storedProfile, type HostProfile, type HostProfileInput, writeListingProfile } from '../../modules/listings/profile.js';
import { addListing, guestsSee, knownListing, listingDetail, listListings, previewBooking } from '../../modules/listings/service.js';
import { changeCheckIn } from '../../modules/listings/check-in.js';
import { previewPortal } from '../../modules/portal/service.js';
import type { EstablishmentView } from '../../modules/authority/establishments.js';
import { guestTranslator } from '../guest.js';
import { PoliceSettings, policeOf, POLICE_DONE } from './police.js';
import { sendPage } from '../layout.js';
import { isScreen, previewStepPage, sendBrandCss, sendLogoImage } from '../portal.js';
import { ColorBadge, ConsolePage, CsrfField, type Ctx, dropEmpty, guestName, Head, Pager, seeOther, show, STATUS_WORDS, stay, when, PostForm } from './shell.js';

const PAGE = 50;
const STAYS = 20;
const ListingParams = Type.Object({ listing_id: Type.String({ minLength: 1, maxLength: 200 }) });
const DONE: Record<string, string> = {
  profile: 'Saved. Guests of this listing see it from their next page.',
  'check-in': 'Check-in instructions saved. Verified guests of upcoming stays get them in time.',
};

/**
 * The host-profile form's fields: the API's, but for the logo, a file sent with the form, and two
 * boxes, as a colour picker cannot be empty and a file input cannot say "remove".
 */
export const ProfileForm = Type.Composite([
  Type.Omit(ProfileUpdate, ['accent_color']),
  Type.Object({
    accent_color: Type.Optional(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' })),
    own_color: Type.Optional(Type.Literal('yes')),
    remove_logo: Type.Optional(Type.Literal('yes')),
    ...CsrfField,
  }),
]);
type ProfileForm = Static<typeof ProfileForm>;

/** The form as the API's change: a colour only when ticked, a new logo when a file came, none when asked. */
export function profileChange(b: ProfileForm): HostProfileInput {
  return {
    display_name: b.display_name ?? null,
    house_rules: b.house_rules ?? null,
    usage_agreement: b.usage_agreement ?? null,
    accent_color: b.own_color ? (b.accent_color ?? null) : null,
    logo: b.remove_logo ? null : b.logo || undefined,
  };
}

/**
 * Lets a scope's forms send a logo (multipart/form-data): the file arrives in the body as the
 * data URL the API takes, so both check it alike; a form sent with no file has none.
 */
export async function acceptLogos(app: FastifyInstance) {
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: MAX_LOGO_BYTES, files: 1, fields: 20, parts: 21, fieldSize: 256 * 1024 },
    async onFile(part) {
      let data: Buffer;
      try {
        data = await part.toBuffer();
      } catch {
        throw badRequest(`logo: at most ${MAX_LOGO_BYTES / 1024} KB`);
      }
      (part as unknown as { value: string }).value = data.length ? `data:${part.mimetype};base64,${data.toString('base64')}` : '';
    },
  });
  // The global input rule ran before these fields were read: the same rule, now that they are.
  app.addHook('preValidation', (request, _reply, done) => {
    const problem = request.isMultipart() ? findTextProblem(request.body, 'body') : null;
    done(problem ? badRequest(problem) : undefined);
  });
}

/** Serves a profile's logo and colours to a console page that shows them (the pages allow only this origin's images). */
export function sendLogo(reply: FastifyReply, profile: HostProfile) {
  if (!profile.logo) throw notFound('logo');
  return sendLogoImage(reply, profile.logo, 'private, no-cache');
}

/**
 * What guests see of the host: the same form for the account and for a listing. `fallback`, on a
 * listing, is the account's profile, shown as what stands where the listing leaves a field empty.
 */
export function ProfileFields({ ctx, action, profile, fallback, logoUrl, button }: { ctx: Ctx; action: string; profile: HostProfile; fallback?: HostProfile; logoUrl: string; button: string }) {
  const from = fallback ? ' Left empty, the account’s is used.' : '';
  return (
    <PostForm ctx={ctx} action={action} enctype="multipart/form-data" class="profile">
      <label for="pr_name">Name guests see{fallback?.display_name ? <small> (the account’s: {fallback.display_name})</small> : null}</label>
      <input id="pr_name" name="display_name" maxLength={100} value={profile.display_name ?? ''} placeholder={fallback?.display_name ?? ''} />
      <div class="grid2">
        <div>
          <label class="check">
            <input type="checkbox" name="own_color" value="yes" checked={profile.accent_color !== null} />{' '}
            <span>{fallback ? 'A colour of its own for buttons and links' : 'A colour of your own for buttons and links'}</span>
          </label>
          <label for="pr_color">Colour</label>
          <input id="pr_color" name="accent_color" type="color" value={profile.accent_color ?? fallback?.accent_color ?? '#0b5cad'} />
        </div>
        <div>
          <label for="pr_logo">Logo (PNG, JPEG or WebP, at most {MAX_LOGO_BYTES / 1024} KB)</label>
          {profile.logo ? <img src={logoUrl} alt="The logo guests see" class="logo-preview" /> : <p class="muted">No logo.{fallback?.logo ? ' The account’s is used.' : ''}</p>}
          <input id="pr_logo" name="logo" type="file" accept="image/png,image/jpeg,image/webp" />
          {profile.logo ? (
            <label class="check">
              <input type="checkbox" name="remove_logo" value="yes" /> <span>Remove the logo</span>
            </label>
          ) : null}
        </div>
      </div>
      <label for="pr_rules">House rules{profile.house_rules ? <small> (version of {when(profile.house_rules.updated_at)})</small> : null}</label>
      <p class="muted">Shown in full to every guest, who accepts them; each acceptance keeps the version accepted.{from}</p>
      <textarea id="pr_rules" name="house_rules" rows={6} maxLength={20_000}>
        {profile.house_rules?.text ?? ''}
      </textarea>
      <label for="pr_agreement">Rental agreement{profile.usage_agreement ? <small> (version of {when(profile.usage_agreement.updated_at)})</small> : null}</label>
      <p class="muted">Shown in full before the guest accepts it.{from}</p>
      <textarea id="pr_agreement" name="usage_agreement" rows={6} maxLength={50_000}>
        {profile.usage_agreement?.text ?? ''}
      </textarea>
      <button type="submit">{button}</button>
    </PostForm>
  );
}

const CheckInForm = Type.Object({ ...CheckInUpdate.properties, ...CsrfField });
const CHECK_IN_LABELS = [
  ['address', 'Address', 500],
  ['door_code', 'Door or key-box code', 100],
  ['wifi_name', 'Wi-Fi network', 100],
  ['wifi_password', 'Wi-Fi password', 100],
] as const;

type Detail = Awaited<ReturnType<typeof listingDetail>>;

function ListingPage({ ctx, d, notice, police, fallback }: { ctx: Ctx; d: Detail; notice?: string | undefined; police: EstablishmentView | null; fallback: EstablishmentView | null }) {
  const { listing, upcoming, checkIn } = d;
  const id = encodeURIComponent(listing.listing_id);
  const name = listing.nickname ?? listing.listing_id;
  return (
    <ConsolePage ctx={ctx} title={name} section="listings" notice={notice}>
      <p>
        <a href="/console/listings">← Listings</a>
      </p>
      <h1>{name}</h1>
      <p class="muted">
        Listing <code>{listing.listing_id}</code>, first seen {when(listing.created_at)}.
      </p>
      <section class="panel" aria-labelledby="stays-h">
        <h2 id="stays-h">Upcoming stays</h2>
        {upcoming.length ? (
          <table class="list cards">
            <Head columns={['Guest', 'Stay', 'Screening']} />
            <tbody>
              {upcoming.map((r) => (
                <tr>
                  <td data-label="Guest">
                    <a href={`/console/reservations/${r.id}`}>{guestName(r)}</a>
                  </td>
                  <td data-label="Stay">{stay(r.check_in_date, r.check_out_date)}</td>
                  <td data-label="Screening">
                    {r.risk_color ? <ColorBadge color={r.risk_color} /> : null} {STATUS_WORDS[r.verification_status ?? ''] ?? 'Not screened yet'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>No confirmed stay is to come.</p>
        )}
        {upcoming.length === STAYS ? (
          <p>
            <a href={`/console/reservations?listings=${id}`}>Every booking at this listing</a>
          </p>
        ) : null}
      </section>
      <PoliceSettings ctx={ctx} base={`/console/listings/${id}/authority`} e={police} fallback={fallback} />
      <section class="panel" aria-labelledby="checkin-h">
        <h2 id="checkin-h">Check-in instructions</h2>
        <p class="muted">
          Sent to each guest by e-mail, or else text message, only once the booking is verified, at the time set below. The code and password are never kept in the copy of the message.
        </p>
        <PostForm ctx={ctx} action={`/console/listings/${id}/check-in`}>
          <div class="grid2">
            {CHECK_IN_LABELS.map(([field, label, max]) => (
              <div>
                <label for={`ci_${field}`}>{label}</label>
                <input id={`ci_${field}`} name={field} maxLength={max} value={checkIn[field] ?? ''} autocomplete="off" />
              </div>
            ))}
          </div>
          <label for="ci_directions">Directions: how to find the home and get in</label>
          <textarea id="ci_directions" name="directions" rows={4} maxLength={4000}>
            {checkIn.directions ?? ''}
          </textarea>
          <label for="ci_hours">Hours before the check-in day to send them</label>
          <input id="ci_hours" name="send_hours_before" type="number" min={0} max={720} step={1} required value={String(checkIn.send_hours_before)} />
          <button type="submit">Save check-in instructions</button>
        </PostForm>
      </section>
      <section class="panel" aria-labelledby="profile-h">
        <h2 id="profile-h">What guests of this listing see</h2>
        <p class="muted">
          The name, colour, logo, house rules and rental agreement on the guest portal and in messages. A field left empty takes the account’s, from <a href="/console/settings#profile-h">Settings</a>.
        </p>
        <ProfileFields ctx={ctx} action={`/console/listings/${id}/host-profile`} profile={d.own} fallback={d.account} logoUrl={`/console/listings/${id}/logo`} button="Save what guests see" />
        <h3>Preview the guest portal</h3>
        {d.previewable ? null : <p class="muted">The preview shows the portal of this listing's latest booking: it opens once a booking names the listing.</p>}
        <ul class="inline-list" id="previews" hidden={!d.previewable}>
          {LOCALES.map((lang) => (
            <li>
              <a href={`/console/listings/${id}/preview?lang=${lang}`} lang={lang}>
                {CATALOGUES[lang]['lang.self'] ?? lang}
              </a>
            </li>
          ))}
        </ul>
      </section>
    </ConsolePage>
  );
}

/**
 * The listings (beyond the spec, as the API's host-profile and check-in routes are): each listing
 * bookings have named, its stays to come, what its guests see and its check-in instructions, with
 * a preview of the guest portal in each language. The forms call the API's services, so the same
 * checks and the same audit lines follow.
 */
export const listingPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await acceptLogos(app);

    app.get('/console/listings', { schema: { hide: true, querystring: Type.Object({ from: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })) }) } }, async (request, reply) => {
      const from = request.query.from ?? 0;
      const page = await listListings(deps, request.account.id, from, PAGE);
      return show(request, reply, (ctx) => (
        <ConsolePage ctx={ctx} title="Listings" section="listings">
          <h1>Listings</h1>
          <p class="muted">Every listing your bookings have named or that was set up through the API: its stays to come, what its guests see, and the check-in instructions they get once verified.</p>
          {page.items.length ? (
            <table class="list cards">
              <Head columns={['Listing', 'Upcoming stays', 'Next check-in', 'Guests see', 'Check-in instructions']} />
              <tbody>
                {page.items.map((l) => (
                  <tr data-listing={l.listing_id}>
                    <td data-label="Listing">
                      <a href={`/console/listings/${encodeURIComponent(l.listing_id)}`}>{l.nickname ?? l.listing_id}</a>
                    </td>
                    <td data-label="Upcoming stays">{l.upcoming}</td>
                    <td data-label="Next check-in">{l.next_check_in ? stay(l.next_check_in, null).replace(/^from /, '') : '—'}</td>
                    <td data-label="Guests see">{l.own_profile ? 'Its own words' : 'The account’s'}</td>
                    <td data-label="Check-in instructions">{l.has_check_in ? `Sent ${l.check_in_hours ?? 48} hours before` : 'None yet'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>No listing yet. Listings appear here as bookings name them, or set one up below.</p>
          )}
          <Pager base="/console/listings" from={from} size={PAGE} total={page.total} />
          <section class="panel" aria-labelledby="add-h">
            <h2 id="add-h">Set up a listing before its first booking</h2>
            <p class="muted">
              Its police reporting, what its guests see and its check-in instructions can be ready before a booking names it. Use the id your bookings will give it (<code>listing_id</code>).
            </p>
            <PostForm ctx={ctx} action="/console/listings" id="add-listing">
              <div class="grid2">
                <div>
                  <label for="new-listing-id">Listing id</label>
                  <input id="new-listing-id" name="listing_id" required maxLength={200} autocomplete="off" />
                </div>
                <div>
                  <label for="new-listing-name">Name (optional)</label>
                  <input id="new-listing-name" name="nickname" maxLength={200} autocomplete="off" />
                </div>
              </div>
              <button type="submit">Set up this listing</button>
            </PostForm>
          </section>
        </ConsolePage>
      ));
    });

    app.post(
      '/console/listings',
      {
        preValidation: dropEmpty,
        config: { audit: 'listings.created' },
        schema: { hide: true, body: Type.Object({ listing_id: Type.String({ minLength: 1, maxLength: 200 }), nickname: Type.Optional(Type.String({ maxLength: 200 })), ...CsrfField }) },
      },
      async (request, reply) => {
        await addListing(deps, request.account.id, request.body.listing_id.trim(), request.body.nickname?.trim());
        return seeOther(reply, `/console/listings/${encodeURIComponent(request.body.listing_id.trim())}#police-h`);
      },
    );

    app.get(
      '/console/listings/:listing_id',
      { schema: { hide: true, params: ListingParams, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }) } },
      async (request, reply) => {
        const [d, police, fallback] = await Promise.all([
          listingDetail(deps, request.account.id, request.params.listing_id, STAYS),
          policeOf(deps, request.account.id, request.params.listing_id),
          policeOf(deps, request.account.id, ''),
        ]);
        return show(request, reply, (ctx) => (
          <ListingPage ctx={ctx} d={d} police={police} fallback={fallback} notice={request.query.done ? (DONE[request.query.done] ?? POLICE_DONE[request.query.done]) : undefined} />
        ));
      },
    );

    app.post(
      '/console/listings/:listing_id/host-profile',
      { config: { audit: 'listings.host_profile.changed' }, schema: { hide: true, params: ListingParams, body: ProfileForm } },
      async (request, reply) => {
        await knownListing(deps, request.account.id, request.params.listing_id);
        await writeListingProfile(deps, request.account.id, request.params.listing_id, profileChange(request.body));
        return seeOther(reply, `/console/listings/${encodeURIComponent(request.params.listing_id)}?done=profile#profile-h`);
      },
    );

    app.post('/console/listings/:listing_id/check-in', { config: { audit: 'listings.check_in.changed' }, schema: { hide: true, params: ListingParams, body: CheckInForm } }, async (request, reply) => {
      await knownListing(deps, request.account.id, request.params.listing_id);
      const { _csrf, ...change } = request.body;
      await changeCheckIn(deps, request.account.id, request.params.listing_id, change);
      return seeOther(reply, `/console/listings/${encodeURIComponent(request.params.listing_id)}?done=check-in#checkin-h`);
    });

    app.get('/console/listings/:listing_id/logo', { schema: { hide: true, params: ListingParams } }, async (request, reply) => {
      return sendLogo(reply, storedProfile((await knownListing(deps, request.account.id, request.params.listing_id)).profile));
    });

    // The preview: the portal of the listing's latest booking as its guest would meet it, a step at a time, in any of the six languages.
    app.get(
      '/console/listings/:listing_id/preview',
      {
        schema: {
          hide: true,
          params: ListingParams,
          querystring: Type.Object({ lang: Type.Optional(Type.String({ maxLength: 10 })), step: Type.Optional(Type.String({ maxLength: 40 })) }),
        },
      },
      async (request, reply) => {
        const { listing_id } = request.params;
        const p = await previewPortal(deps, await previewBooking(deps, request.account.id, listing_id));
        const step = request.query.step;
        if (step !== undefined && (!isScreen(step) || !p.steps.includes(step))) throw badRequest(`step: ${step} is not a step of this listing's guest portal`);
        const screen = step ?? p.steps[0];
        if (!screen) throw badRequest('the guest portal asks nothing at this listing: every screen is set to not asked (Settings)');
        const base = `/console/listings/${encodeURIComponent(listing_id)}/preview`;
        const t = guestTranslator(request, p.reservation.guest_language);
        return sendPage(reply, previewStepPage(deps, { p, t, request, preview: { base, back: `/console/listings/${encodeURIComponent(listing_id)}#profile-h` } }, screen));
      },
    );

    app.get('/console/listings/:listing_id/preview/logo', { schema: { hide: true, params: ListingParams } }, async (request, reply) => {
      return sendLogo(reply, await guestsSee(deps, request.account.id, request.params.listing_id));
    });

    app.get('/console/listings/:listing_id/preview/brand.css', { schema: { hide: true, params: ListingParams } }, async (request, reply) => {
      return sendBrandCss(reply, (await guestsSee(deps, request.account.id, request.params.listing_id)).accent_color, 'private, no-cache');
    });
  };

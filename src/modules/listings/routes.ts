import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors } from '../../http/schemas.js';
import { Nullable } from '../../http/validation.js';
import { accountFor } from '../accounts/index.js';
import { changeCheckIn, checkInView, DEFAULT_CHECK_IN_HOURS, readCheckIn } from './check-in.js';
import { accountProfile, listingProfile, MAX_LOGO_BYTES, profileView, writeAccountProfile, writeListingProfile } from './profile.js';

const tags = ['Host profile'];

const Text = (max: number, description: string) => Nullable(Type.String({ maxLength: max, description }));
const Version = Nullable(Type.Object({ version: Type.String({ description: 'the first 16 hex digits of the text’s SHA-256, as kept with each guest’s acceptance' }), updated_at: Type.String() }));

const Profile = Type.Object(
  {
    display_name: Text(100, 'the name guests see on the portal and in messages'),
    accent_color: Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'the colour of buttons and links, #rrggbb' })),
    logo: Nullable(Type.String({ description: `a data URL of a PNG, JPEG or WebP image, at most ${MAX_LOGO_BYTES / 1024} KB` })),
    house_rules: Text(20_000, 'shown in full on the house-rules screen; each guest’s acceptance keeps the version accepted'),
    house_rules_version: Version,
    usage_agreement: Text(50_000, 'the rental agreement, shown in full before the guest accepts it'),
    usage_agreement_version: Version,
  },
  { title: 'HostProfile' },
);

export const ProfileUpdate = Type.Object(
  {
    display_name: Type.Optional(Text(100, 'null clears')),
    accent_color: Type.Optional(Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }))),
    logo: Type.Optional(Nullable(Type.String({ maxLength: Math.ceil((MAX_LOGO_BYTES * 4) / 3) + 40 }))),
    house_rules: Type.Optional(Text(20_000, 'null clears')),
    usage_agreement: Type.Optional(Text(50_000, 'null clears')),
  },
  { additionalProperties: false, title: 'HostProfileUpdate' },
);

const CheckIn = Type.Object(
  {
    address: Text(500, 'the address of the home'),
    door_code: Text(100, 'sent to the guest, never shown in what is kept of the message'),
    wifi_name: Text(100, 'the Wi-Fi network'),
    wifi_password: Text(100, 'sent to the guest, never shown in what is kept of the message'),
    directions: Text(4000, 'how to find the home and get in'),
    send_hours_before: Type.Integer({ minimum: 0, maximum: 720, description: `how many hours before the check-in day (00:00 UTC) the details go out; default ${DEFAULT_CHECK_IN_HOURS}` }),
  },
  { title: 'CheckInInstructions' },
);
export const CheckInUpdate = Type.Object(
  {
    address: Type.Optional(Text(500, '')),
    door_code: Type.Optional(Text(100, '')),
    wifi_name: Type.Optional(Text(100, '')),
    wifi_password: Type.Optional(Text(100, '')),
    directions: Type.Optional(Text(4000, '')),
    send_hours_before: Type.Optional(Type.Integer({ minimum: 0, maximum: 720 })),
  },
  { additionalProperties: false, title: 'CheckInInstructionsUpdate' },
);

const Query = Type.Object({ user_id: Type.Optional(Type.String({ minLength: 1, description: 'an account the caller manages; default the caller' })) }, { additionalProperties: false });
const ListingParams = Type.Object({ listing_id: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * Beyond the spec: what guests see of the host (name, logo, accent colour, house rules, rental
 * agreement), per account and per listing, and each listing's check-in instructions.
 */
export const listingRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/accounts/host-profile',
      {
        schema: {
          tags,
          operationId: 'getHostProfile',
          summary: 'What guests see of the host: name, logo, accent colour, house rules, rental agreement (beyond the spec)',
          querystring: Query,
          response: { 200: Profile, ...authErrors },
        },
      },
      async (request) => profileView(await accountProfile(deps.db, (await accountFor(deps, request.account, request.query.user_id)).id)),
    );

    app.put(
      '/accounts/host-profile',
      {
        schema: {
          tags,
          operationId: 'updateHostProfile',
          summary: 'Change what guests see of the host; given fields replace, null clears, others stay (beyond the spec)',
          querystring: Query,
          body: ProfileUpdate,
          response: { 200: Profile, ...authErrors },
        },
      },
      async (request) => profileView(await writeAccountProfile(deps, (await accountFor(deps, request.account, request.query.user_id)).id, request.body)),
    );

    app.get(
      '/listings/:listing_id/host-profile',
      {
        schema: {
          tags,
          operationId: 'getListingHostProfile',
          summary: 'A listing’s own words and brand; a field left null falls back to the account’s (beyond the spec)',
          params: ListingParams,
          response: { 200: Profile, ...authErrors },
        },
      },
      async (request) => profileView(await listingProfile(deps.db, request.account.id, request.params.listing_id)),
    );

    app.put(
      '/listings/:listing_id/host-profile',
      {
        schema: {
          tags,
          operationId: 'updateListingHostProfile',
          summary: 'Change a listing’s own words and brand; null clears a field back to the account’s (beyond the spec)',
          params: ListingParams,
          body: ProfileUpdate,
          response: { 200: Profile, ...authErrors },
        },
      },
      async (request) => profileView(await writeListingProfile(deps, request.account.id, request.params.listing_id, request.body)),
    );

    app.get(
      '/listings/:listing_id/check-in',
      {
        schema: {
          tags,
          operationId: 'getCheckInInstructions',
          summary: 'A listing’s check-in instructions, sent to each guest only once the booking is verified (beyond the spec)',
          params: ListingParams,
          response: { 200: CheckIn, ...authErrors },
        },
      },
      async (request) => checkInView(await readCheckIn(deps, deps.db, request.account.id, request.params.listing_id)),
    );

    app.put(
      '/listings/:listing_id/check-in',
      {
        schema: {
          tags,
          operationId: 'updateCheckInInstructions',
          summary: 'Set a listing’s check-in instructions (stored encrypted); given fields replace, null clears; verified upcoming bookings get them in time (beyond the spec)',
          params: ListingParams,
          body: CheckInUpdate,
          response: { 200: CheckIn, ...authErrors },
        },
      },
      async (request) => checkInView(await changeCheckIn(deps, request.account.id, request.params.listing_id, request.body)),
    );
  };

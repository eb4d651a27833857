import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { readGetBody } from '../../http/get-body.js';
import { authErrors } from '../../http/schemas.js';
import { StringEnum } from '../../http/validation.js';
import { SCREENS } from '../guests/index.js';
import { CONFIG_KEYS, SCREEN_SETTINGS } from './screens.js';
import * as settings from './service.js';

const tags = ['Settings'];
const Setting = StringEnum(SCREEN_SETTINGS);
const ScreenMap = Type.Object(Object.fromEntries(SCREENS.map((s) => [s, Type.Optional(Setting)])), {
  additionalProperties: false,
});

const SettingsBody = Type.Object(
  {
    config_key: Type.Optional(Type.String()),
    config_data: Type.Array(Type.Object({ source: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), guest_portal_screens: ScreenMap }, { additionalProperties: false }), { maxItems: 200 }),
  },
  { additionalProperties: false, title: 'AccountSettingsRequest' },
);

const SettingsResponse = Type.Object(
  {
    config_key: Type.String(),
    config_data: Type.Array(
      Type.Object({
        source: Type.Optional(Type.String()),
        guest_portal_screens: ScreenMap,
      }),
    ),
  },
  { title: 'AccountSettingsResponse' },
);

const Params = Type.Object({ key: StringEnum(CONFIG_KEYS, { description: 'the config_key' }) });
const Query = Type.Object({ user_id: Type.Optional(Type.String({ minLength: 1, description: 'an account the caller manages; default the caller' })) }, { additionalProperties: false });

export const settingsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/accounts/settings/guest-portal-screens/:key',
      {
        schema: {
          tags,
          operationId: 'getGuestPortalScreens',
          summary: 'Read the guest-portal screen settings; with a JSON body (as the spec has it), update them',
          params: Params,
          querystring: Query,
          response: { 200: SettingsResponse, ...authErrors, 413: authErrors[400] },
        },
      },
      async (request) => {
        const body = await readGetBody(request, SettingsBody);
        const { key } = request.params;
        if (body === undefined) return settings.readScreenSettings(deps, request.account, key, request.query.user_id);
        return settings.writeScreenSettings(deps, request.account, key, body, request.query.user_id);
      },
    );

    app.put(
      '/accounts/settings/guest-portal-screens/:key',
      {
        schema: {
          tags,
          operationId: 'updateGuestPortalScreens',
          summary: 'Update the guest-portal screen settings (beyond the spec: the same update as a PUT)',
          params: Params,
          querystring: Query,
          body: SettingsBody,
          response: { 200: SettingsResponse, ...authErrors },
        },
      },
      async (request) => settings.writeScreenSettings(deps, request.account, request.params.key, request.body, request.query.user_id),
    );
  };

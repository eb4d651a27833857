import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors } from '../../http/schemas.js';
import { StringEnum } from '../../http/validation.js';
import { OPTIONAL_CHECKS, readScreeningSettings, writeScreeningSettings } from './settings.js';
import { DOCUMENT_KINDS } from './types.js';

const tags = ['Settings'];

const Settings = Type.Object(
  {
    risk_tolerance: StringEnum(['low', 'balanced', 'high'] as const, { description: 'low: stricter thresholds; high: more lenient' }),
    minimum_age: Type.Integer({ minimum: 0, maximum: 120 }),
    disabled_checks: Type.Array(StringEnum(OPTIONAL_CHECKS), { uniqueItems: true }),
    name_match_threshold: Type.Number({
      minimum: 0.75,
      maximum: 1,
      description: 'the name matcher score from which a listed name (blocklist, sanctions) is a possible match; default 0.9 (see POST /v1/screening/match)',
    }),
    accepted_documents: Type.Array(StringEnum(DOCUMENT_KINDS), {
      uniqueItems: true,
      description: 'the identity documents accepted, as read from their photos: another kind is a finding; default passport and id_card',
    }),
    document_photo_days: Type.Integer({ minimum: 0, maximum: 3650, description: "days after check-out that a document's photos are kept (what was read stays); default 30" }),
  },
  { title: 'ScreeningSettings' },
);
/** A change of screening settings, as the API and the console take it. */
export const ScreeningSettingsUpdate = Type.Partial(Settings, { additionalProperties: false, title: 'ScreeningSettingsUpdate' });
const Query = Type.Object({ user_id: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false });

/** Beyond the spec: how strict screening is for an account, and which checks it runs. */
export const screeningSettingsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/accounts/screening-settings',
      {
        schema: {
          tags,
          operationId: 'getScreeningSettings',
          summary: 'Screening settings: risk tolerance, minimum age, disabled checks, name match threshold (beyond the spec)',
          querystring: Query,
          response: { 200: Settings, ...authErrors },
        },
      },
      async (request) => readScreeningSettings(deps, request.account, request.query.user_id),
    );

    app.put(
      '/accounts/screening-settings',
      {
        schema: {
          tags,
          operationId: 'updateScreeningSettings',
          summary: 'Change screening settings; given fields replace, others stay (beyond the spec)',
          querystring: Query,
          body: ScreeningSettingsUpdate,
          response: { 200: Settings, ...authErrors },
        },
      },
      async (request) => writeScreeningSettings(deps, request.account, request.body, request.query.user_id),
    );
  };

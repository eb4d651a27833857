import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors } from '../../http/schemas.js';
import { StringEnum } from '../../http/validation.js';
import { iso } from '../../lib/time.js';
import { getManagedAccount } from '../accounts/service.js';
import { writeSetting } from '../settings/repo.js';
import { screeningSettings } from './run.js';
import { CHECK_NAMES, type CheckName } from './types.js';

const tags = ['Settings'];
const OPTIONAL_CHECKS = CHECK_NAMES.filter((c): c is Exclude<CheckName, 'general_risk'> => c !== 'general_risk');

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
  },
  { title: 'ScreeningSettings' },
);
const Update = Type.Partial(Settings, { additionalProperties: false });
const Query = Type.Object({ user_id: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false });

/** Beyond the spec: how strict screening is for an account, and which checks it runs. */
export const screeningSettingsRoutes = (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const view = async (accountId: string) => {
      const s = await screeningSettings(deps.db, accountId);
      return {
        risk_tolerance: s.riskTolerance,
        minimum_age: s.minimumAge,
        disabled_checks: s.disabledChecks.filter((c): c is Exclude<CheckName, 'general_risk'> => c !== 'general_risk'),
        name_match_threshold: s.nameMatchThreshold,
      };
    };

    app.get(
      '/accounts/screening-settings',
      { schema: { tags, summary: 'Screening settings: risk tolerance, minimum age, disabled checks, name match threshold (beyond the spec)', querystring: Query, response: { 200: Settings, ...authErrors } } },
      async (request) => {
        const account = request.query.user_id ? await getManagedAccount(deps, request.account, request.query.user_id) : request.account;
        return view(account.id);
      },
    );

    app.put(
      '/accounts/screening-settings',
      {
        schema: {
          tags,
          summary: 'Change screening settings; given fields replace, others stay (beyond the spec)',
          querystring: Query,
          body: Update,
          response: { 200: Settings, ...authErrors },
        },
      },
      async (request) => {
        const account = request.query.user_id ? await getManagedAccount(deps, request.account, request.query.user_id) : request.account;
        const current = await screeningSettings(deps.db, account.id);
        const b = request.body;
        await writeSetting(
          deps.db,
          account.id,
          'screening',
          {
            riskTolerance: b.risk_tolerance ?? current.riskTolerance,
            minimumAge: b.minimum_age ?? current.minimumAge,
            disabledChecks: b.disabled_checks ?? current.disabledChecks,
            nameMatchThreshold: b.name_match_threshold ?? current.nameMatchThreshold,
          },
          iso(deps.clock()),
        );
        return view(account.id);
      },
    );
  };

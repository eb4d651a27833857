import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import { MATCH_LISTS, matchPerson } from './match.js';

const Name = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

const MatchBody = Type.Object(
  {
    name: Name('the whole name, as written (any script); or first_name and last_name'),
    first_name: Name('given name(s)'),
    last_name: Name('family name(s)'),
    birth_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: a listed person born more than a year apart is left out' })),
    birth_year: Type.Optional(Type.Integer({ minimum: 1900, maximum: 2100 })),
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166 alpha-2 nationality or residence; a listed country is named as evidence' })),
    lists: Type.Optional(Type.Array(StringEnum(MATCH_LISTS), { minItems: 1, uniqueItems: true, description: 'default: all' })),
  },
  { additionalProperties: false, title: 'NameMatchRequest' },
);

const Candidate = Type.Object({
  list: Type.String({ description: "'blocklist', or the sanctions list's name" }),
  list_date: Nullable(Type.String({ description: "the list's data date" })),
  entry_id: Type.String(),
  listed_name: Type.String({ description: 'the name that matched (an alias or the primary name)' }),
  primary_name: Type.String(),
  score: Type.Number({ description: '0 to 1; candidates at or above the threshold' }),
  explanation: Type.String({ description: 'which name matched which, token by token, and what moved the score' }),
  tokens: Type.Array(
    Type.Object({
      listed: Type.String(),
      person: Nullable(Type.String()),
      role: Type.String({ description: 'family, given, middle, patronymic or particle' }),
      how: Type.String({
        description: 'same, spelling, known variant, feminine form, one slip, two slips, same consonants, run together, initial, short form, goes by a middle name, second family name only or missing',
      }),
      similarity: Type.Number(),
    }),
  ),
  birth_years: Type.Array(Type.Integer()),
  countries: Type.Array(Type.String()),
  reason: Nullable(Type.String({ description: "the blocklist entry's reason, or the sanctions programs" })),
});

const MatchResponse = Type.Object(
  {
    query: Type.Object({ name: Type.String(), birth_year: Nullable(Type.Integer()), country: Nullable(Type.String()) }),
    threshold: Type.Number({ description: "the account's name_match_threshold (screening settings)" }),
    lists: Type.Array(Type.Object({ list: Type.String(), date: Nullable(Type.String()), names: Type.Integer({ description: 'names matched against, aliases included' }) })),
    candidates: Type.Array(Candidate),
  },
  { title: 'NameMatchResponse' },
);

/** Beyond the spec: the name matcher the screening checks use, on its own. */
export const matchRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/screening/match',
      {
        schema: {
          tags: ['Screening'],
          operationId: 'matchName',
          summary: "Match a person's name against the account's blocklist and the imported sanctions lists, with why each candidate matched (beyond the spec)",
          body: MatchBody,
          response: { 200: MatchResponse, ...authErrors },
        },
      },
      async (request) => matchPerson(deps, request.account, request.body),
    );
  };

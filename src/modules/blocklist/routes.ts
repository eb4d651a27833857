import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { authErrors, MessageResponse, PageOf, Pagination } from '../../http/schemas.js';
import { Nullable } from '../../http/validation.js';
import * as blocklist from './service.js';

const tags = ['Blocklist'];
const Entry = Type.Object(
  {
    id: Type.String(),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    document_number: Nullable(Type.String()),
    reason: Type.String(),
    created_at: Type.String(),
  },
  { title: 'BlocklistEntry' },
);
/** A new entry, as the API and the console take it. */
export const EntryBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    phone: Type.Optional(Type.String({ maxLength: 40 })),
    document_number: Type.Optional(Type.String({ maxLength: 60 })),
    reason: Type.String({ minLength: 1, maxLength: 1000 }),
  },
  { title: 'BlocklistEntryInput', additionalProperties: false },
);
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Beyond the spec: guests this account will not host again, matched by the blacklist check. */
export const blocklistRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/blocklist',
      {
        schema: {
          tags,
          operationId: 'listBlocklist',
          summary: "The account's blocklist, newest first",
          querystring: Type.Object(Pagination, { additionalProperties: false }),
          response: { 200: PageOf(Entry), ...authErrors },
        },
      },
      async (request) => blocklist.listEntries(deps, request.account, request.query.from ?? 0, request.query.size ?? 20),
    );
    app.post(
      '/blocklist',
      {
        config: { idempotentReplay: (request, id) => blocklist.getEntry(deps, request.account, id) },
        schema: { tags, operationId: 'createBlocklistEntry', summary: 'Block a guest by name, e-mail, phone and/or document number', body: EntryBody, response: { 200: Entry, ...authErrors } },
      },
      async (request) => {
        const { account_id: _a, ...e } = await blocklist.addEntry(deps, request.account, request.body);
        return e;
      },
    );
    app.get('/blocklist/:id', { schema: { tags, operationId: 'getBlocklistEntry', summary: 'One entry', params: Params, response: { 200: Entry, ...authErrors } } }, async (request) =>
      blocklist.getEntry(deps, request.account, request.params.id),
    );
    app.put(
      '/blocklist/:id',
      {
        schema: {
          tags,
          operationId: 'updateBlocklistEntry',
          summary: 'Change an entry: given fields replace',
          params: Params,
          body: Type.Partial(EntryBody, { additionalProperties: false, title: 'BlocklistEntryUpdate' }),
          response: { 200: Entry, ...authErrors },
        },
      },
      async (request) => blocklist.updateEntry(deps, request.account, request.params.id, request.body),
    );
    app.delete(
      '/blocklist/:id',
      { schema: { tags, operationId: 'deleteBlocklistEntry', summary: 'Remove an entry', params: Params, response: { 200: MessageResponse, ...authErrors } } },
      async (request) => blocklist.removeEntry(deps, request.account, request.params.id),
    );
  };

import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import { importBlocklist } from '../../modules/blocklist/import.js';
import { EntryBody } from '../../modules/blocklist/routes.js';
import { addEntry, getEntry, listEntries, removeEntry, updateEntry } from '../../modules/blocklist/service.js';
import { ConsolePage, Csrf, CsrfField, type Ctx, dropEmpty, Head, Pager, PostButton, seeOther, show, when, PostForm } from './shell.js';

const PAGE = 25;
const MAX_CSV_BYTES = 20 * 1024 * 1024;
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const ListQuery = Type.Object({ from: Type.Optional(Type.Integer({ minimum: 0 })), done: Type.Optional(Type.String({ maxLength: 20 })) });
const DONE: Record<string, string> = { added: 'Added to your blocklist.', saved: 'Entry saved.', removed: 'Entry removed.' };

type Entry = Awaited<ReturnType<typeof getEntry>>;

function EntryFields({ e }: { e?: Partial<Entry> }) {
  const field = (name: keyof Entry, label: string, type = 'text', required = false) => (
    <div>
      <label for={`b_${name}`}>
        {label}
        {required ? null : <small> (optional)</small>}
      </label>
      <input id={`b_${name}`} name={name} type={type as 'text'} value={String(e?.[name] ?? '')} required={required} />
    </div>
  );
  return (
    <div class="filters">
      {field('name', 'Name')}
      {field('email', 'E-mail', 'email')}
      {field('phone', 'Phone', 'tel')}
      {field('document_number', 'Document number')}
      {field('reason', 'Why', 'text', true)}
    </div>
  );
}

function ImportResult({ result }: { result: { imported: number; duplicates: number; rejected: { line: number; problem: string }[] } }) {
  return (
    <section class="panel" role="status" id="import-result">
      <h2>Import finished</h2>
      <p>
        {result.imported} {result.imported === 1 ? 'entry' : 'entries'} added
        {result.duplicates ? `, ${result.duplicates} already on your blocklist` : ''}
        {result.rejected.length ? `, ${result.rejected.length} ${result.rejected.length === 1 ? 'row' : 'rows'} skipped:` : '.'}
      </p>
      {result.rejected.length ? (
        <ul class="plain">
          {result.rejected.slice(0, 50).map((r) => (
            <li>
              line {r.line}: {r.problem}
            </li>
          ))}
          {result.rejected.length > 50 ? <li>and {result.rejected.length - 50} more</li> : null}
        </ul>
      ) : null}
    </section>
  );
}

async function listPage(deps: Deps, ctx: Ctx, from: number, done?: string, imported?: Parameters<typeof ImportResult>[0]['result']) {
  const page = await listEntries(deps, ctx.account, from, PAGE);
  return (
    <ConsolePage ctx={ctx} title="Blocklist" section="blocklist" notice={done ? DONE[done] : undefined}>
      <h1>Your blocklist</h1>
      <p class="muted">Guests you will not host again. Screening checks every new booking against these names, e-mails, phones and document numbers.</p>
      {imported ? <ImportResult result={imported} /> : null}
      <section class="panel" aria-labelledby="list-h">
        <h2 id="list-h">{page.total === 1 ? '1 entry' : `${page.total} entries`}</h2>
        {page.items.length ? (
          <table class="cards">
            <Head columns={['Name', 'E-mail', 'Phone', 'Document', 'Why', 'Added']} actions />
            <tbody>
              {page.items.map((e) => (
                <tr data-entry={e.id}>
                  <td data-label="Name">{e.name ?? '—'}</td>
                  <td data-label="E-mail">{e.email ?? '—'}</td>
                  <td data-label="Phone">{e.phone ?? '—'}</td>
                  <td data-label="Document">{e.document_number ?? '—'}</td>
                  <td data-label="Why">{e.reason}</td>
                  <td data-label="Added">{when(e.created_at)}</td>
                  <td>
                    <a href={`/console/blocklist/${e.id}`}>Edit</a> <PostButton ctx={ctx} action={`/console/blocklist/${e.id}/remove`} label="Remove" kind="secondary" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>Nobody is on your blocklist.</p>
        )}
        <Pager base="/console/blocklist" from={from} size={PAGE} total={page.total} />
      </section>
      <section class="panel" aria-labelledby="add-h">
        <h2 id="add-h">Add someone</h2>
        <PostForm ctx={ctx} action="/console/blocklist" role="reviewer">
          <EntryFields />
          <button type="submit">Add to blocklist</button>
        </PostForm>
      </section>
      <section class="panel" aria-labelledby="import-h">
        <h2 id="import-h">Import a CSV file</h2>
        <p>
          A header row with the columns <code>name, email, phone, document_number, reason</code>; each row needs a reason and at least one of the others. Rows that cannot be read are listed after the
          import and skipped.
        </p>
        <form
          method="post"
          action="/console/blocklist/import"
          enctype="multipart/form-data"
          hx-post="/console/blocklist/import"
          hx-encoding="multipart/form-data"
          hx-select="main"
          hx-target="main"
          hx-swap="outerHTML"
        >
          <Csrf ctx={ctx} />
          <label for="csv">CSV file</label>
          <input id="csv" name="file" type="file" accept=".csv,text/csv" required />
          <progress id="import-progress" class="when-busy" max="100" value="0" aria-label="Upload progress" />
          <button type="submit">Import</button>
        </form>
      </section>
    </ConsolePage>
  );
}

export const blocklistPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/console/blocklist', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) =>
      show(request, reply, (ctx) => listPage(deps, ctx, request.query.from ?? 0, request.query.done)),
    );

    app.post(
      '/console/blocklist',
      { config: { role: 'reviewer' }, preValidation: dropEmpty, schema: { hide: true, body: Type.Composite([EntryBody, Type.Object(CsrfField)]) } },
      async (request, reply) => {
        const { _csrf, ...input } = request.body;
        await addEntry(deps, request.account, input);
        return seeOther(reply, '/console/blocklist?done=added');
      },
    );

    app.get('/console/blocklist/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      const e = await getEntry(deps, request.account, request.params.id);
      return show(request, reply, (ctx) => (
        <ConsolePage ctx={ctx} title="Edit blocklist entry" section="blocklist">
          <p>
            <a href="/console/blocklist">← Blocklist</a>
          </p>
          <h1>Edit blocklist entry</h1>
          <section class="panel">
            <PostForm ctx={ctx} action={`/console/blocklist/${e.id}`}>
              <EntryFields e={e} />
              <button type="submit">Save</button>
            </PostForm>
          </section>
        </ConsolePage>
      ));
    });

    app.post(
      '/console/blocklist/:id',
      { preValidation: dropEmpty, schema: { hide: true, params: IdParams, body: Type.Composite([Type.Partial(EntryBody), Type.Object(CsrfField)]) } },
      async (request, reply) => {
        const { _csrf, ...input } = request.body;
        await updateEntry(deps, request.account, request.params.id, input);
        return seeOther(reply, '/console/blocklist?done=saved');
      },
    );

    app.post('/console/blocklist/:id/remove', { schema: { hide: true, params: IdParams, body: Type.Object(CsrfField) } }, async (request, reply) => {
      await removeEntry(deps, request.account, request.params.id);
      return seeOther(reply, '/console/blocklist?done=removed');
    });

    // The file comes as multipart; its fields are read before the CSRF check, which looks at _csrf.
    await app.register(async (scope) => {
      const upload = scope.withTypeProvider<TypeBoxTypeProvider>();
      await upload.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: 4 } });
      upload.post('/console/blocklist/import', { schema: { hide: true, body: Type.Object({ file: Type.Unsafe<Buffer>({}), ...CsrfField }) } }, async (request, reply) => {
        const file = request.body.file;
        if (!Buffer.isBuffer(file) || !file.length) throw badRequest('Choose a CSV file to import.');
        const result = await importBlocklist(deps, request.account.id, file, { progress: false }).catch((err: unknown) => {
          throw badRequest(`The file could not be imported: ${(err as Error).message}.`);
        });
        return show(request, reply, (ctx) => listPage(deps, ctx, 0, undefined, result));
      });
    });
  };

import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError, badRequest } from '../lib/errors.js';
import { findTextProblem } from '../http/input-rules.js';
import { MAX_FILE_BYTES, SCREEN_DEFS, type Answer, type Field, type Upload } from '../modules/portal/screens.js';
import { fieldsOf, missingSteps, nextStep, openPortal, saveStep, submitPortal, type Portal } from '../modules/portal/service.js';
import type { ReservationRow } from '../modules/reservations/repo.js';
import { openIdentification } from '../modules/screening/identity.js';
import { SCREENS, type Screen } from '../modules/settings/screens.js';
import { CardPage, pageErrorHandler, Problems, sendPage } from './layout.js';

const Params = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
const StepParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }), screen: Type.String({ maxLength: 40 }) });
const StepQuery = Type.Object({ step: Type.Optional(Type.String({ maxLength: 40 })) });

const isScreen = (s: string | undefined): s is Screen => (SCREENS as readonly string[]).includes(s ?? '');

/** What a step's form shows before the guest has answered it: what the booking already says. */
function defaults(deps: Deps, screen: Screen, r: ReservationRow): Record<string, string> {
  if (screen === 'AboutYou') {
    return { first_name: r.guest_first_name ?? '', last_name: r.guest_last_name ?? '', email: r.guest_email ?? '', phone: r.guest_phone ?? '' };
  }
  if (screen === 'IDVerification' || screen === 'AuthorityReporting') {
    const id = openIdentification(deps, r);
    return {
      ...Object.fromEntries(Object.entries(id).filter(([k]) => k !== 'mrz')),
      first_name: id.first_name ?? r.guest_first_name ?? '',
      last_name: id.last_name ?? r.guest_last_name ?? '',
    };
  }
  return {};
}

const asForm = (a: Answer | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(a ?? {}).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? 'yes' : '') : typeof v === 'string' ? v : '']));

function FieldInput({ f, values, saved }: { f: Field; values: Record<string, string>; saved: Answer | undefined }) {
  const id = `f_${f.name}`;
  const value = values[f.name] ?? '';
  const label = (
    <label for={id}>
      {f.label}
      {f.required ? null : <small> (optional)</small>}
    </label>
  );
  const help = f.help ? <small>{f.help}</small> : null;
  switch (f.kind) {
    case 'checkbox':
      return (
        <label class="check">
          <input type="checkbox" id={id} name={f.name} value="yes" checked={Boolean(value)} required={f.required} /> <span>{f.label}</span>
        </label>
      );
    case 'select':
      return (
        <>
          {label}
          <select id={id} name={f.name} required={f.required}>
            <option value="">Choose…</option>
            {(f.options ?? []).map(([v, l]) => (
              <option value={v} selected={v === value}>
                {l}
              </option>
            ))}
          </select>
          {help}
        </>
      );
    case 'textarea':
      return (
        <>
          {label}
          <textarea id={id} name={f.name} required={f.required} maxLength={f.maxLength ?? 2000} value={value} />
          {help}
        </>
      );
    case 'file': {
      const kept = saved?.[f.name];
      const has = kept && typeof kept === 'object';
      return (
        <>
          {label}
          <input type="file" id={id} name={f.name} accept="image/jpeg,image/png,image/webp,image/heic,application/pdf" required={f.required && !has} />
          <small>
            {has ? `Saved: ${kept.filename}. Choose another file to replace it. ` : ''}JPEG, PNG, WebP, HEIC or PDF, at most {MAX_FILE_BYTES / 1024 / 1024} MB.
          </small>
        </>
      );
    }
    default:
      return (
        <>
          {label}
          <input type={f.kind as string as 'text'} id={id} name={f.name} value={value} required={f.required} maxLength={f.maxLength} />
          {help}
        </>
      );
  }
}

function StayLine({ r }: { r: ReservationRow }) {
  return (
    <p class="steps">
      Your stay
      {r.listing_nickname ? (
        <>
          {' at '}
          <strong>{r.listing_nickname}</strong>
        </>
      ) : null}
      {r.check_in_date ? `, ${r.check_in_date}${r.check_out_date ? ` to ${r.check_out_date}` : ''}` : ''}.
    </p>
  );
}

function stepPage(deps: Deps, p: Portal, screen: Screen, values: Record<string, string> | undefined, problems: string[]) {
  const r = p.reservation;
  const def = SCREEN_DEFS[screen];
  const saved = p.answers[screen]?.answer;
  const shown = values ?? (saved ? asForm(saved) : defaults(deps, screen, r));
  const optional = p.screens[screen] === 'optional';
  const n = p.steps.indexOf(screen) + 1;
  return (
    <CardPage title={def.title}>
      <StayLine r={r} />
      <p class="steps">
        Step {n} of {p.steps.length}
      </p>
      <h1>{def.title}</h1>
      <p>{def.intro}</p>
      <Problems list={problems} />
      <form method="post" action={`/gp/${r.gp_token}/step/${screen}`} enctype="multipart/form-data">
        {fieldsOf(screen, r).map((f) => (
          <FieldInput f={f} values={shown} saved={saved} />
        ))}
        <button type="submit" name="action" value="save">
          Save and continue
        </button>
        {optional ? (
          <button type="submit" name="action" value="skip" class="secondary" formNoValidate>
            Skip this step
          </button>
        ) : null}
      </form>
    </CardPage>
  );
}

function reviewPage(p: Portal, problem?: string) {
  const r = p.reservation;
  const missing = missingSteps(p);
  return (
    <CardPage title="Review and submit">
      <StayLine r={r} />
      <h1>Review and submit</h1>
      <Problems list={problem ? [problem] : []} />
      {p.steps.length ? (
        <ol class="review">
          {p.steps.map((s) => {
            const rec = p.answers[s];
            const state = rec?.answer ? 'done' : rec?.skipped ? 'skipped' : p.screens[s] === 'required' ? 'still to do' : 'not filled in';
            return (
              <li>
                <span data-step={s}>
                  {SCREEN_DEFS[s].title}: {state}
                </span>
                {' · '}
                <a href={`/gp/${r.gp_token}?step=${s}`}>{rec ? 'change' : 'fill in'}</a>
              </li>
            );
          })}
        </ol>
      ) : (
        <p>Your host needs nothing more from you. Submit to confirm your details.</p>
      )}
      <form method="post" action={`/gp/${r.gp_token}/submit`} enctype="multipart/form-data">
        <button type="submit" disabled={missing.length > 0}>
          Submit to your host
        </button>
      </form>
    </CardPage>
  );
}

function donePage(p: Portal) {
  return (
    <CardPage title="Thank you">
      <StayLine r={p.reservation} />
      <h1 id="done">Thank you</h1>
      <p>Your host has your answers{p.row?.completed_at ? ` (sent ${p.row.completed_at.slice(0, 16).replace('T', ' ')} UTC)` : ''}. There is nothing more to do here.</p>
    </CardPage>
  );
}

function noSuchStep(name: string) {
  return (
    <CardPage title="Guest portal">
      <h1>No such step</h1>
      <p class="error">This portal has no step called {name}.</p>
    </CardPage>
  );
}

/** The multipart form's fields and files, or an urlencoded form's fields. */
async function readBody(request: FastifyRequest): Promise<{ fields: Record<string, string>; uploads: Upload[]; tooLarge: boolean }> {
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
    throw badRequest('The form could not be read. Go back and try again.');
  }
  return { fields, uploads, tooLarge: false };
}

/**
 * The guest portal at /gp/{token}: one page per screen the account's settings ask for, then a
 * review page that submits. Server-rendered forms that work without JavaScript; each save
 * redirects (303) so a reload never sends a form twice.
 */
export const portalPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(formbody, { bodyLimit: 64 * 1024 });
    await app.register(multipart, {
      limits: { fileSize: MAX_FILE_BYTES, files: 4, fields: 60, fieldSize: 16 * 1024, parts: 64 },
    });
    app.setErrorHandler(pageErrorHandler('Guest portal', (status) => (status === 404 || status === 410 ? 'This link cannot be used' : 'Something went wrong')));

    app.get('/gp/:token', { config: { public: true }, schema: { hide: true, params: Params, querystring: StepQuery } }, async (request, reply) => {
      const p = await openPortal(deps, request.params.token);
      if (p.row?.completed_at) return sendPage(reply, donePage(p));
      const asked = request.query.step;
      if (asked !== undefined) {
        if (!isScreen(asked) || !p.steps.includes(asked)) return sendPage(reply, noSuchStep(asked), 404);
        return sendPage(reply, stepPage(deps, p, asked, undefined, []));
      }
      const next = nextStep(p);
      return sendPage(reply, next ? stepPage(deps, p, next, undefined, []) : reviewPage(p));
    });

    app.post('/gp/:token/step/:screen', { config: { public: true }, schema: { hide: true, params: StepParams } }, async (request, reply) => {
      const p = await openPortal(deps, request.params.token);
      const { screen } = request.params;
      if (!isScreen(screen) || !p.steps.includes(screen)) {
        return sendPage(reply, noSuchStep(screen), 404);
      }
      if (p.row?.completed_at) return sendPage(reply, donePage(p), 409);
      const { fields, uploads, tooLarge } = await readBody(request);
      if (tooLarge) {
        return sendPage(reply, stepPage(deps, p, screen, fields, [`A file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB. Choose a smaller one.`]), 413);
      }
      const result = await saveStep(deps, p, screen, fields, uploads, fields.action === 'skip');
      if (!result.ok)
        return sendPage(
          reply,
          stepPage(
            deps,
            p,
            screen,
            result.form,
            result.problems.map((x) => x.message),
          ),
          400,
        );
      return reply.code(303).header('location', `/gp/${p.reservation.gp_token}`).send();
    });

    app.post('/gp/:token/submit', { config: { public: true }, schema: { hide: true, params: Params } }, async (request, reply) => {
      const p = await openPortal(deps, request.params.token);
      await readBody(request); // the form has no fields; drain it
      if (!p.row?.completed_at) {
        const missing = missingSteps(p);
        if (missing.length) {
          return sendPage(reply, reviewPage(p, `Complete these steps first: ${missing.map((s) => SCREEN_DEFS[s].title).join(', ')}.`), 400);
        }
        await submitPortal(deps, p);
      }
      return reply.code(303).header('location', `/gp/${p.reservation.gp_token}`).send();
    });
  };

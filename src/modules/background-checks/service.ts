import countries from 'i18n-iso-countries';
import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { AppError, badRequest, notFound } from '../../lib/errors.js';
import { enqueue } from '../../jobs/repo.js';
import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';
import { newId } from '../../lib/ids.js';
import { DAY_MS, iso } from '../../lib/time.js';
import { assertAdverseMediaSource, newsCorpusDate, searchAdverseMedia, subjectName, type MediaFinding, type MediaSubject } from '../../providers/adverse-media/index.js';
import { checkrProgress, inviteCandidate, type CheckrProgress } from '../../providers/criminal/checkr.js';
import type { RiskCategory } from '../../providers/adverse-media/taxonomy.js';
import { changedEntries, sanctionsImported, sanctionsLists, searchSanctions, type SanctionsHit } from '../../providers/sanctions/index.js';
import { watchmanSearch } from '../../providers/sanctions/watchman.js';
import { yenteMatch } from '../../providers/sanctions/yente.js';
import { emitWebhook } from '../events/index.js';
import { matchName, NAME_THRESHOLD, SAME_NAME } from '../../lib/names/match.js';
import { dateInWords, listInWords, say, topicsInWords, type HostMessage } from '../../lib/host-messages.js';
import { renderReport, type ReportHeading } from './pdf.js';
import { findAccount } from '../accounts/index.js';
import { findById } from '../bookings/index.js';
import * as repo from './repo.js';
import type { BackgroundResults, ReportItem, Section } from './types.js';
import type { CheckRow, CheckType } from './repo.js';
import * as registry from '../../providers/sex-offender/store.js';

export interface CheckSubject extends MediaSubject {
  email?: string | null | undefined;
  phone?: string | null | undefined;
}

type Row = CheckRow;

export interface AdverseMediaReport {
  riskCategories: RiskCategory[];
  findings: MediaFinding[];
}

export type { BackgroundResults, ReportItem, Section } from './types.js';

const subjectAad = (id: string) => `check:${id}:subject`;
const resultAad = (id: string) => `check:${id}:result`;

/** Checks the person's fields: names required, country an ISO code, a plausible year of birth. */
export function readSubject(input: Record<string, unknown>, opts: { countryRequired: boolean }, now: Date): CheckSubject {
  const text = (name: string, required: boolean) => {
    const v = input[name];
    if (v === undefined || v === null || v === '') {
      if (required) throw badRequest(`${name}: required`);
      return null;
    }
    if (typeof v !== 'string' || v.trim().length > 100) throw badRequest(`${name}: must be text of at most 100 characters`);
    return v.trim();
  };
  const firstName = text('first_name', true) as string;
  const lastName = text('last_name', true) as string;
  const country = text('country', opts.countryRequired);
  if (country && !countries.isValid(country.toUpperCase())) throw badRequest(`country: '${country}' is not an ISO 3166 country code (two letters, e.g. US)`);
  const yob = input.year_of_birth;
  let yearOfBirth: number | null = null;
  if (yob !== undefined && yob !== null && yob !== '') {
    yearOfBirth = Number(yob);
    if (!Number.isInteger(yearOfBirth) || yearOfBirth < 1900 || yearOfBirth > now.getUTCFullYear()) {
      throw badRequest(`year_of_birth: must be a four-digit year from 1900 to ${now.getUTCFullYear()}`);
    }
  }
  return {
    firstName,
    lastName,
    middleName: text('middle_name', false),
    country: country?.toUpperCase() ?? '',
    city: text('city', false),
    state: text('state', false)?.toUpperCase() ?? null,
    yearOfBirth,
    email: text('email', false),
    phone: text('phone', false),
  };
}

const hasAdverseMediaSource = (deps: Deps) =>
  assertAdverseMediaSource(deps).then(
    () => true,
    () => false,
  );

/** Which kinds of check this installation can run now (the console offers only those). */
export async function checksAvailable(deps: Deps): Promise<Record<CheckType, boolean>> {
  const media = await hasAdverseMediaSource(deps);
  const vendor = Object.keys(deps.config.lookups.vendors).some((v) => ['yente', 'watchman', 'checkr'].includes(v));
  return { adverse_media: media, globalcheck: media || vendor || (await sanctionsImported(deps)) || (await hasRegistry(deps)) };
}

/** Records the check and queues its job in one transaction: PENDING until the worker finishes it. */
export async function submitCheck(deps: Deps, accountId: string, type: CheckType, subject: CheckSubject, reservationId: string | null = null): Promise<Row> {
  if (reservationId !== null && !(await findById(deps.db, accountId, reservationId))) throw badRequest(`reservation_id: no booking ${reservationId} in this account`);
  if (type === 'adverse_media') await assertAdverseMediaSource(deps);
  else if (!(await checksAvailable(deps)).globalcheck) {
    throw new AppError(
      'provider_error',
      'background check is not available: import a sanctions list, registry records or a news corpus (guestscreen data import), or set GUESTSCREEN_YENTE_URL, GUESTSCREEN_WATCHMAN_URL, GUESTSCREEN_CHECKR_API_KEY, GUESTSCREEN_GDELT_URL or GUESTSCREEN_NEWSAPI_API_KEY',
    );
  }
  const id = newId('chk');
  const row: Row = {
    id,
    account_id: accountId,
    type,
    status: 'PENDING',
    subject_enc: deps.secrets.seal(JSON.stringify(subject), subjectAad(id)),
    result_enc: null,
    risk_status: null,
    error: null,
    pdf_enc: null,
    start_date: iso(deps.clock()),
    stop_date: null,
    reservation_id: reservationId,
  };
  await withTx(
    deps.db,
    async (tx) => {
      await repo.insertCheck(tx, row);
      await enqueue(tx, deps, 'check.run', { check_id: id });
    },
    { subject: id },
  );
  deps.wakeWorker();
  return row;
}

const hasRegistry = (deps: Deps) => registry.hasRecords(deps.db);

export async function findCheck(deps: Deps, accountId: string, id: string, type: CheckType): Promise<Row> {
  const row = await repo.findCheckRow(deps.db, id);
  if (!row || row.account_id !== accountId || row.type !== type) throw notFound(`${type === 'adverse_media' ? 'adverse-media report' : 'background check'} ${id}`);
  return row;
}

/** The person a check is about, decrypted. */
export const openSubject = (deps: Deps, row: Pick<Row, 'id' | 'subject_enc'>) => JSON.parse(deps.secrets.open(row.subject_enc, subjectAad(row.id))) as CheckSubject;

const pdfUrl = (deps: Deps, id: string) => `${deps.config.publicUrl}/v1/background-check/results/${id}/pdf`;

export function adverseMediaView(deps: Deps, row: Row) {
  const report = row.result_enc ? (JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.id))) as AdverseMediaReport) : { riskCategories: [], findings: [] };
  return {
    id: row.id,
    status: row.status,
    startDate: row.start_date,
    stopDate: row.stop_date,
    riskCategories: report.riskCategories,
    findings: report.findings,
    ...(row.error ? { error: row.error } : {}),
  };
}

export function backgroundView(deps: Deps, row: Row): BackgroundResults {
  const items = row.result_enc ? (JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.id))) as BackgroundResults['report_items']) : [];
  return {
    id: row.id,
    start_date: row.start_date,
    stop_date: row.stop_date,
    status: row.status,
    risk_status: row.risk_status,
    type: row.type,
    pdf: row.pdf_enc ? pdfUrl(deps, row.id) : null,
    report_items: items,
    ...(row.error ? { error: row.error } : {}),
  };
}

export function openPdf(deps: Deps, row: Row): Buffer {
  if (!row.pdf_enc) throw notFound(`the report of background check ${row.id} (it is ${row.status})`);
  return deps.secrets.openBytes(row.pdf_enc, `check:${row.id}:pdf`);
}

const SANCTIONS = say('report.section.sanctions');
const REGISTRY = say('report.section.registry');
const MEDIA = say('report.section.media');

/** A section that could not run: what it means for the host in the report, what the operator can do in the log. */
function notRun(deps: Deps, name: string, title: HostMessage, operator: string, tags: string[] = ['not searched']): Section {
  if (operator) deps.log?.info({ section: name }, `background check: ${name} not searched; ${operator}`);
  return { name, status: 'NOT_RUN', items: [{ title: say(title), description: say('report.not_installed.help'), tags }] };
}

/** A listed person the sanctions section reports, the evidence in words; `later` says the list named them after the check ran. */
function sanctionsItem(h: SanctionsHit, searched: CheckSubject, later?: string): ReportItem {
  const name = subjectName(searched);
  const born = h.birthYears.length ? ` ${say('report.sanctions.born', { count: h.birthYears.length, years: listInWords(h.birthYears.map(String)), given: searched.yearOfBirth ?? 'none' })}` : '';
  return {
    title: h.primaryName,
    subtitle: `${say('report.sanctions.hit', { source: h.source, date: dateInWords(h.dataDate), entry: h.entryId })}${h.programs.length ? `; ${h.programs.join(', ')}` : ''}`,
    description: `${later ? `${later} ` : ''}${say('report.sanctions.compared', { searched: name, how: say(h.score >= SAME_NAME ? 'report.sanctions.how.exact' : 'report.sanctions.how.close'), listed: h.listedName, alias: h.listedName === h.primaryName ? 'no' : 'yes' })}${born}`,
    tags: ['sanctions', h.kind, `score ${h.score.toFixed(2)}`, ...(later ? ['list update'] : [])],
  };
}

/** What the sanctions lists are asked about the person: their name, year of birth and country. */
const sanctionsQuery = (s: CheckSubject) => ({ name: subjectName(s), yearOfBirth: s.yearOfBirth, country: s.country || null, individualsOnly: true });

/** The sections of a background check: sanctions, the registry, adverse media, criminal records; each says when it could not run. */
async function backgroundSections(deps: Deps, accountId: string, checkId: string, s: CheckSubject): Promise<Section[]> {
  const fullName = subjectName(s);
  const sections: BackgroundResults['report_items'] = [];

  const { yente, watchman } = deps.config.lookups.vendors;
  if (yente || watchman || (await sanctionsImported(deps))) {
    const query = sanctionsQuery(s);
    const hits = [
      ...((await sanctionsImported(deps)) ? await searchSanctions(deps, query) : []),
      ...(yente ? await yenteMatch({ deps, accountId }, yente, query) : []),
      ...(watchman ? await watchmanSearch({ deps, accountId }, watchman, query) : []),
    ];
    const lists = [
      ...((await sanctionsImported(deps)) ? (await sanctionsLists(deps)).map((l) => say('sanctions.list', { source: l.source, date: dateInWords(l.dataDate) })) : []),
      ...(yente ? ['OpenSanctions'] : []),
      ...(watchman ? [say('report.searched.watchman')] : []),
    ];
    sections.push({
      name: SANCTIONS,
      status: hits.length ? 'REVIEW' : 'CLEAR',
      searched: say('report.searched.sanctions', { lists: listInWords(lists) }),
      items: hits.map((h) => sanctionsItem(h, s)),
    });
  } else sections.push(notRun(deps, SANCTIONS, 'report.not_installed.sanctions', 'import a list with `guestscreen data import sanctions`, or set GUESTSCREEN_YENTE_URL or GUESTSCREEN_WATCHMAN_URL'));

  if (await hasRegistry(deps)) {
    // Candidates share the last name, as a name or inside an alias; the first name and the rest
    // are then compared fuzzily. Year of birth and state narrow them when given.
    const rows = await registry.recordsByLastName(deps.db, { lastName: s.lastName, yearOfBirth: s.yearOfBirth, state: s.country === 'US' || !s.country ? s.state : null });
    const hits = rows
      .map((r) => {
        const names = [`${r.first_name} ${r.last_name}`, ...(JSON.parse(r.aliases) as string[])];
        const best = names.map((n) => matchName(fullName, n)).sort((a, b) => b.score - a.score)[0];
        return { r, best };
      })
      .filter((x) => x.best && x.best.score >= NAME_THRESHOLD);
    sections.push({
      name: REGISTRY,
      status: hits.length ? 'REVIEW' : 'CLEAR',
      searched: say('report.searched.registry', { date: dateInWords(await registry.lastImported(deps.db)) }),
      items: hits.map(({ r }) => ({
        title: `${r.first_name} ${r.last_name}`,
        subtitle: say('report.registry.hit', { source: r.source, place: [r.city, r.county, r.state].filter(Boolean).join(', '), born: dateInWords(r.dob) }),
        description: say('report.registry.compared', {
          searched: fullName,
          listed: `${r.first_name} ${r.last_name}`,
          year: s.yearOfBirth ?? 'none',
          charges: (JSON.parse(r.charges) as string[]).join('; ') || '-',
        }),
        tags: ['sex offender registry', r.state],
        ...(r.image_url ? { images: [r.image_url] } : {}),
      })),
    });
  } else sections.push(notRun(deps, REGISTRY, 'report.not_installed.registry', 'import records with `guestscreen data import sex-offenders`'));

  if (await hasAdverseMediaSource(deps)) {
    const r = await searchAdverseMedia({ deps, accountId }, s);
    const risky = r.findings.filter((f) => !(f.riskCategories.length === 1 && f.riskCategories[0] === 'Other News'));
    sections.push({
      name: MEDIA,
      status: risky.length ? 'REVIEW' : 'CLEAR',
      searched: say('report.searched.media', { sources: listInWords(await mediaSources(deps)) }),
      items: r.findings.map((f) => ({
        title: f.title,
        subtitle: [f.displayLink, f.publishedAt ? dateInWords(f.publishedAt) : null].filter(Boolean).join(', '),
        description: `${f.topics.length ? say('report.media.about', topicsInWords(f.topics)) : say('report.media.mention')}\n${f.link}`,
        tags: f.riskCategories,
        ...(f.image ? { images: [f.image] } : {}),
      })),
    });
  } else sections.push(notRun(deps, MEDIA, 'report.not_installed.media', 'import a news corpus with `guestscreen data import news`, or set GUESTSCREEN_GDELT_URL or GUESTSCREEN_NEWSAPI_API_KEY'));

  sections.push(await criminalSection(deps, accountId, checkId, s));
  return sections;
}

/** The news sources a search reads, in words, the installed archive with its date. */
async function mediaSources(deps: Deps): Promise<string[]> {
  const corpus = await newsCorpusDate(deps);
  const { gdelt, newsapi } = deps.config.lookups.vendors;
  return [corpus ? say('report.searched.corpus', { date: dateInWords(corpus) }) : null, gdelt ? 'GDELT' : null, newsapi ? 'NewsAPI' : null].filter((x): x is string => x !== null);
}

const CRIMINAL = say('report.section.criminal');
/** How often a check waiting on Checkr looks again (its webhook, when it reaches the service, is sooner), and for how long. */
const CHECKR_POLL_MS = 15 * 60_000;
const CHECKR_GIVE_UP_MS = 30 * 86_400_000;

/**
 * Criminal records through Checkr when configured: Checkr e-mails the guest an invitation to its
 * hosted flow (consent, and what the report needs), and the section waits (PENDING) until the
 * report is complete. Without an e-mail there is no one to invite.
 */
async function criminalSection(deps: Deps, accountId: string, checkId: string, s: CheckSubject): Promise<Section> {
  const checkr = deps.config.lookups.vendors.checkr;
  if (!checkr) {
    return notRun(deps, CRIMINAL, 'report.not_installed.criminal', 'set GUESTSCREEN_CHECKR_API_KEY and GUESTSCREEN_CHECKR_PACKAGE to search criminal records through Checkr');
  }
  if (!s.email) {
    return notRun(deps, CRIMINAL, 'report.checkr.no_email', '', ['checkr', 'not searched']);
  }
  // A retried job finds the order its earlier attempt made.
  const known = await repo.findCheckrOrder(deps.db, checkId);
  if (!known) {
    const order = await inviteCandidate({ deps, accountId }, checkr, checkId, {
      firstName: s.firstName,
      middleName: s.middleName,
      lastName: s.lastName,
      email: s.email,
      country: s.country || null,
      state: s.state,
      city: s.city,
    });
    await repo.insertCheckrOrder(deps.db, { check_id: checkId, candidate_id: order.candidateId, invitation_id: order.invitationId, report_id: null, created_at: iso(deps.clock()) });
  }
  return { name: CRIMINAL, status: 'PENDING', items: [{ title: say('report.checkr.invited', { email: s.email }), tags: ['checkr', 'pending'] }] };
}

/** The criminal-records section of a report Checkr has finished with, one way or another. */
function checkrSection(p: Exclude<CheckrProgress, { state: 'waiting' }>): Section {
  if (p.state !== 'complete') {
    return p.state === 'expired'
      ? { name: CRIMINAL, status: 'NOT_RUN', items: [{ title: say('report.checkr.expired'), tags: ['checkr', 'expired'] }] }
      : { name: CRIMINAL, status: 'NOT_RUN', items: [{ title: say('report.checkr.canceled'), ...(p.reportId ? { subtitle: p.reportId } : {}), tags: ['checkr', 'canceled'] }] };
  }
  return {
    name: CRIMINAL,
    status: p.result === 'clear' ? 'CLEAR' : 'REVIEW',
    items: [
      {
        title: say(p.result === 'clear' ? 'report.checkr.clear' : 'report.checkr.consider', { report: p.reportId ?? '-' }),
        subtitle: [p.package ? `package ${p.package}` : null, p.completedAt ? `completed ${dateInWords(p.completedAt, true)}` : null, p.adjudication ? `adjudication ${p.adjudication}` : null]
          .filter(Boolean)
          .join(', '),
        ...(p.result === 'clear' ? {} : { description: say('report.checkr.consider.detail') }),
        tags: ['checkr', p.result],
      },
    ],
  };
}

/**
 * The job: runs the search, keeps the sealed result (and the PDF), and tells the account's
 * webhook; a background check with a section waiting on Checkr keeps what it has and waits (runCheckr).
 */
export async function runCheck(payload: JobPayload<'check.run'>, { deps, job }: JobContext): Promise<void> {
  const { check_id } = payload;
  const row = await repo.findCheckRow(deps.db, check_id);
  if (!row || row.status !== 'PENDING') return;
  const subject = openSubject(deps, row);
  try {
    if (row.type === 'adverse_media') {
      const r = await searchAdverseMedia({ deps, accountId: row.account_id }, subject);
      const risk = r.riskCategories.some((c) => c !== 'Other News') ? 'REVIEW' : 'CLEARED';
      await finish(deps, row, { status: 'FINISHED', result_enc: deps.secrets.seal(JSON.stringify(r), resultAad(row.id)), risk_status: risk, stop_date: iso(deps.clock()) });
      return;
    }
    const sections = await backgroundSections(deps, row.account_id, row.id, subject);
    if (sections.some((x) => x.status === 'PENDING')) await awaitProvider(deps, row, sections);
    else await finishBackground(deps, row, subject, sections);
  } catch (err) {
    if (job.attempt >= job.max_attempts) {
      await finish(deps, row, { status: 'FAILED', error: err instanceof Error ? err.message : String(err), stop_date: iso(deps.clock()) });
      return;
    }
    throw err;
  }
}

/** The sections so far are kept (the results show them, the waiting one PENDING) and Checkr is asked again later. */
async function awaitProvider(deps: Deps, row: Row, sections: Section[]): Promise<void> {
  await withTx(deps.db, async (tx) => {
    await repo.updatePending(tx, row.id, { result_enc: deps.secrets.seal(JSON.stringify(sections), resultAad(row.id)) });
    await scheduleCheckrPoll(tx, deps, row.id);
  });
}

const scheduleCheckrPoll = (db: Deps['db'], deps: Deps, checkId: string) =>
  enqueue(db, deps, 'check.checkr', { check_id: checkId, poll: true }, { runAt: new Date(deps.clock().getTime() + CHECKR_POLL_MS), uniqueKey: `checkr-poll:${checkId}` });

/** The report's title block: the person searched and the account that asked. */
async function heading(deps: Deps, row: Row, s: CheckSubject): Promise<ReportHeading> {
  const account = await findAccount(deps.db, row.account_id);
  return {
    subject: { name: subjectName(s), born: s.yearOfBirth ?? null, country: s.country ? (countries.getName(s.country, 'en') ?? s.country) : null },
    requestedBy: account?.name ?? row.account_id,
  };
}

/** Risk, PDF and the FINISHED state of a background check whose sections are all done. */
async function finishBackground(deps: Deps, row: Row, subject: CheckSubject, sections: Section[]): Promise<void> {
  const now = iso(deps.clock());
  const risk = sections.some((x) => x.status === 'REVIEW') ? 'REVIEW' : 'CLEARED';
  const view = { ...backgroundView(deps, { ...row, status: 'FINISHED', risk_status: risk, stop_date: now }), report_items: sections };
  const pdf = deps.secrets.sealBytes(await renderReport(view, await heading(deps, row, subject)), `check:${row.id}:pdf`);
  await finish(deps, row, { status: 'FINISHED', result_enc: deps.secrets.seal(JSON.stringify(sections), resultAad(row.id)), risk_status: risk, pdf_enc: pdf, stop_date: now });
}

/**
 * The job that follows a check waiting on Checkr: run by its schedule (`poll`, which then
 * schedules the next look) and at once when Checkr's webhook says something changed. When
 * Checkr is done, the criminal-records section takes the outcome and the check finishes.
 */
export async function runCheckr(payload: JobPayload<'check.checkr'>, { deps, job }: JobContext): Promise<void> {
  const { check_id, poll } = payload;
  const row = await repo.findCheckRow(deps.db, check_id);
  if (!row || row.status !== 'PENDING' || !row.result_enc) return;
  const order = await repo.findCheckrOrder(deps.db, check_id);
  const subject = openSubject(deps, row);
  const sections = JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.id))) as Section[];
  const settle = (section: Section) =>
    finishBackground(
      deps,
      row,
      subject,
      sections.map((x) => (x.name === CRIMINAL ? section : x)),
    );
  const checkr = deps.config.lookups.vendors.checkr;
  if (!order || !checkr) {
    if (!checkr) deps.log?.warn({ check: check_id }, 'background check ordered from Checkr, which is no longer configured (GUESTSCREEN_CHECKR_API_KEY)');
    await settle({ name: CRIMINAL, status: 'NOT_RUN', items: [{ title: say('report.checkr.gone'), tags: ['checkr', 'not searched'] }] });
    return;
  }
  let progress: CheckrProgress;
  try {
    progress = await checkrProgress({ deps, accountId: row.account_id }, checkr, { invitationId: order.invitation_id, reportId: order.report_id });
  } catch (err) {
    // Checkr down for longer than this job's retries: the schedule goes on regardless.
    if (poll && job.attempt >= job.max_attempts) {
      await scheduleCheckrPoll(deps.db, deps, check_id);
      return;
    }
    throw err;
  }
  if (progress.reportId && progress.reportId !== order.report_id) await repo.setCheckrReport(deps.db, check_id, progress.reportId);
  if (progress.state !== 'waiting') {
    await settle(checkrSection(progress));
    return;
  }
  if (!poll) return;
  if (deps.clock().getTime() - Date.parse(row.start_date) > CHECKR_GIVE_UP_MS) {
    await settle({ name: CRIMINAL, status: 'NOT_RUN', items: [{ title: say('report.checkr.timed_out'), tags: ['checkr', 'timed out'] }] });
    return;
  }
  await scheduleCheckrPoll(deps.db, deps, check_id);
}

/** A Checkr webhook for one of this service's candidates: the check's Checkr job runs now. True when the candidate is known. */
export async function checkrEvent(deps: Deps, candidateId: string): Promise<boolean> {
  const order = await repo.findCheckrOrderByCandidate(deps.db, candidateId);
  if (!order) return false;
  await enqueue(deps.db, deps, 'check.checkr', { check_id: order.check_id, poll: false });
  deps.wakeWorker();
  return true;
}

async function finish(deps: Deps, row: Row, change: Partial<Row>): Promise<void> {
  await withTx(deps.db, async (tx) => {
    if (!(await repo.updatePending(tx, row.id, change))) return;
    const done = { ...row, ...change };
    const body = row.type === 'adverse_media' ? adverseMediaView(deps, done) : backgroundView(deps, done);
    const type = `${row.type === 'adverse_media' ? 'adverse_media' : 'background_check'}.${String(change.status).toLowerCase()}`;
    await emitWebhook(tx, deps, 'background_check_webhook_url', { accountId: row.account_id, type, subjectId: row.id, body });
  });
}

const REMATCH_PAGE = 200;

/**
 * The `check.rematch` job, queued by a sanctions import beside `sanctions.rescreen`: every
 * finished background check is matched against the entries the import added or changed (all of
 * a list imported for the first time). A listed person the check did not report joins its
 * sanctions section, marked as named by the list after the check ran; the check turns REVIEW,
 * its PDF is made again, and the account's webhook hears `background_check.updated`.
 */
export async function rematchChecksOnListChange(payload: JobPayload<'check.rematch'>, { deps, signal, breathe }: JobContext): Promise<void> {
  const only = changedEntries(payload);
  for (let after = ''; ;) {
    if (signal.aborted) throw new Error('stopped before every background check was matched');
    const page = await repo.finishedBackgroundChecks(deps.db, after, REMATCH_PAGE);
    for (const row of page) {
      await breathe();
      const subject = openSubject(deps, row);
      const hits = await searchSanctions(deps, { ...sanctionsQuery(subject), only });
      if (hits.length === 0) continue;
      const sections = backgroundView(deps, row).report_items;
      let section = sections.find((x) => x.name === SANCTIONS);
      if (!section) sections.unshift((section = { name: SANCTIONS, status: 'CLEAR', items: [] }));
      const known = (h: SanctionsHit) => section.items.some((i) => i.subtitle?.startsWith(`${h.source} (list of `) && i.subtitle.includes(`, entry ${h.entryId}`));
      const added = hits.filter((h) => !known(h));
      if (added.length === 0) continue;
      const later = say('report.sanctions.later', { source: only.source, date: dateInWords(added[0]?.dataDate ?? '') });
      section.items.push(...added.map((h) => sanctionsItem(h, subject, later)));
      section.status = 'REVIEW';
      await updateBackground(deps, row, subject, sections);
    }
    if (page.length < REMATCH_PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

/** A finished background check's report changed after the fact: new sections, REVIEW, a new PDF, and the webhook told. */
async function updateBackground(deps: Deps, row: Row, subject: CheckSubject, sections: Section[]): Promise<void> {
  const change: Partial<Row> = { result_enc: deps.secrets.seal(JSON.stringify(sections), resultAad(row.id)), risk_status: 'REVIEW' };
  const view = { ...backgroundView(deps, { ...row, ...change }), report_items: sections };
  change.pdf_enc = deps.secrets.sealBytes(await renderReport(view, await heading(deps, row, subject)), `check:${row.id}:pdf`);
  await withTx(deps.db, async (tx) => {
    // Changed meanwhile (deleted, or matched by another run of this job): that run reports it.
    if (!(await repo.updateReport(tx, row.id, row.result_enc, change))) return;
    await emitWebhook(tx, deps, 'background_check_webhook_url', { accountId: row.account_id, type: 'background_check.updated', subjectId: row.id, body: view });
  });
}

/** An account's checks of one type, newest first, by status: the page and the total. */
async function listChecks(deps: Deps, accountId: string, type: CheckType, q: { from: number; size: number; status?: string | undefined }) {
  return { from: q.from, size: q.size, ...(await repo.listChecks(deps.db, accountId, type, q)) };
}

/**
 * Beyond the spec: an account's background checks, newest first, without their findings (each
 * is sealed; its own results URL opens it). `status` narrows them to PENDING, FINISHED or FAILED.
 */
export async function listBackgroundChecks(deps: Deps, accountId: string, q: { from: number; size: number; status?: string | undefined }) {
  const { rows, ...page } = await listChecks(deps, accountId, 'globalcheck', q);
  return {
    ...page,
    items: rows.map(({ pdf_enc, subject_enc: _s, ...r }) => ({ ...r, pdf: pdf_enc ? pdfUrl(deps, r.id) : null, results: `${deps.config.publicUrl}/v1/background-check/results/${r.id}` })),
  };
}

/** The account's adverse-media reports without their findings, named as the report names its fields. */
export async function listAdverseMedia(deps: Deps, accountId: string, q: { from: number; size: number; status?: string | undefined }) {
  const { rows, ...page } = await listChecks(deps, accountId, 'adverse_media', q);
  return {
    ...page,
    items: rows.map((r) => ({ id: r.id, status: r.status, startDate: r.start_date, stopDate: r.stop_date, results: `${deps.config.publicUrl}/v1/lookup/adverse-media/results/${r.id}` })),
  };
}

/**
 * Retention: erases every check (background check or adverse-media report, with its person,
 * report, PDF and Checkr order) submitted more than GUESTSCREEN_CHECK_RETENTION_DAYS ago, pending
 * or not, as DELETE would. Run by the worker every hour; 0 days keeps checks until deleted.
 */
export async function purgeExpiredChecks(deps: Deps): Promise<number> {
  const days = deps.config.checkRetentionDays;
  if (days === 0) return 0;
  const before = iso(new Date(deps.clock().getTime() - days * DAY_MS));
  const erased = await repo.deleteChecksBefore(deps.db, before);
  if (erased > 0) deps.log?.info({ erased, days }, 'erased checks past their retention');
  return erased;
}

/** Deletes a check with everything it holds (the person, the report, the PDF). A pending one's job then finds nothing to run. */
export async function deleteCheck(deps: Deps, accountId: string, id: string, type: CheckType): Promise<void> {
  const row = await findCheck(deps, accountId, id, type);
  await repo.deleteCheckRow(deps.db, row.id);
}

/** A page of the account's checks of one type with the name of the person each is about, newest first (the console's lists). */
export async function listChecksByPerson(deps: Deps, accountId: string, type: CheckType, q: { from: number; size: number }) {
  const { rows, ...page } = await listChecks(deps, accountId, type, q);
  return { ...page, items: rows.map((r) => listed(deps, r)) };
}

/** A check as the console lists it: its state and the name of the person it is about. */
function listed(deps: Deps, r: Pick<Row, 'id' | 'type' | 'status' | 'risk_status' | 'start_date' | 'subject_enc'>) {
  const s = openSubject(deps, r);
  return { id: r.id, type: r.type as CheckType, status: r.status, risk_status: r.risk_status, start_date: r.start_date, name: [s.firstName, s.middleName, s.lastName].filter(Boolean).join(' ') };
}

/** The checks ordered from a booking's page, newest first, with the person each is about (the booking's page lists them). */
export async function checksOfReservation(deps: Deps, accountId: string, reservationId: string) {
  return (await repo.checksForReservation(deps.db, accountId, reservationId)).map((r) => listed(deps, r));
}

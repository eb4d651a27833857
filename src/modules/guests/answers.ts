/**
 * A stay's answers: what each guest gave on each screen of the portal (or the host wrote for
 * them), sealed at rest with the reservation as the associated data, and the files they sent.
 * The portal writes them; the police reports, the identity checks and the screening read them.
 */
import type { Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import { answerText, type Answer, type Screen } from './fields.js';
import { findFile, findPortal, type PortalRow } from './repo.js';

/** One screen's record: what the guest answered, or that they skipped an optional screen. */
export interface StepRecord {
  answer?: Answer;
  skipped?: boolean;
  at: string;
  /** The host sent the guest back to this step of a finished portal: its link opens on it until saved. */
  reopened?: boolean;
  /** The host wrote this answer on the booking's page (corrected, or for a guest who never came). */
  by_host?: boolean;
}
export type Answers = Partial<Record<Screen, StepRecord>>;

/** The reservation the answers are of: their seal names it, so that one booking's cannot be read as another's. */
type Of = { account_id: string; id: string };

const answersAad = (r: Of) => `guest_portal:${r.account_id}:${r.id}`;
const fileAad = (r: Of, fileId: string) => `guest_portal_file:${r.account_id}:${r.id}:${fileId}`;

/** The address of a stay's guest portal, as the messages and the API give it to guests. */
export const guestPortalUrl = (deps: Pick<Deps, 'config'>, r: { gp_token: string }) => `${deps.config.publicUrl}/gp/${r.gp_token}`;

/** A stay's answers, opened (none before the guest first opened the portal). */
export function openAnswers(deps: Pick<Deps, 'secrets'>, r: Of, row: PortalRow | undefined): Answers {
  return row ? (JSON.parse(deps.secrets.open(row.answers_enc, answersAad(r))) as Answers) : {};
}

/** A stay's answers, sealed to be stored. */
export const sealAnswers = (deps: Pick<Deps, 'secrets'>, r: Of, answers: Answers): string => deps.secrets.seal(JSON.stringify(answers), answersAad(r));

/** A file a guest sent, sealed to be stored under its id. */
export const sealFile = (deps: Pick<Deps, 'secrets'>, r: Of, fileId: string, data: Buffer): Buffer => deps.secrets.sealBytes(data, fileAad(r, fileId));

/** A stored file's bytes, opened. */
export const openFile = (deps: Pick<Deps, 'secrets'>, r: Of, fileId: string, sealed: Uint8Array): Buffer => deps.secrets.openBytes(sealed, fileAad(r, fileId));

/** What of a booking's payments the portal's view names (the reservations module's payments view). */
export interface Payments {
  payment_validation: { name_on_card: string };
  security_deposit: { successful_authorizations: readonly unknown[] };
}

/** The spec's ReservationGuestPortalResponse, plus (beyond the spec) each screen's answers; `payments`: the booking's, as the reservations module views them. */
export async function guestPortalView(deps: Pick<Deps, 'secrets'>, db: Db, r: Of & { guestportal_completed: unknown }, payments: Payments, row?: PortalRow | null) {
  const portal = row === undefined ? await findPortal(db, r.id) : (row ?? undefined);
  const answers = openAnswers(deps, r, portal);
  const about = answers.AboutYou?.answer;
  const guestList = answers.GuestList?.answer ?? {};
  const guests: { name: string; email: string }[] = [];
  for (let i = 1; typeof guestList[`guest_${i}_name`] === 'string' || typeof guestList[`guest_${i}_email`] === 'string'; i++) {
    guests.push({ name: answerText(guestList, `guest_${i}_name`) ?? '', email: answerText(guestList, `guest_${i}_email`) ?? '' });
  }
  return {
    full_name: [answerText(about, 'first_name'), answerText(about, 'last_name')].filter(Boolean).join(' '),
    phone: answerText(about, 'phone') ?? '',
    email: answerText(about, 'email') ?? '',
    name_on_card: payments.payment_validation.name_on_card,
    security_deposit: payments.security_deposit.successful_authorizations.length > 0,
    last_step: portal?.last_step ?? '',
    completed: Boolean(r.guestportal_completed),
    completed_at: portal?.completed_at ?? '',
    updated_at: portal?.updated_at ?? '',
    guests,
    screens: Object.fromEntries(Object.entries(answers).map(([screen, rec]) => [screen, rec.skipped ? { skipped: true, at: rec.at } : { answers: rec.answer ?? {}, at: rec.at }])),
  };
}

/** The portal's status and last screen, as the verification summary shows them. */
export async function portalProgress(db: Db, r: { id: string; guestportal_completed: unknown }): Promise<{ status: string; lastScreen: string }> {
  const row = await findPortal(db, r.id);
  const status = r.guestportal_completed ? 'COMPLETED' : row ? 'IN_PROGRESS' : 'NOT_STARTED';
  return { status, lastScreen: row?.last_step ?? '' };
}

/** An uploaded file, opened for the account that owns the reservation. */
export async function openUpload(deps: Pick<Deps, 'db' | 'secrets'>, r: Of, fileId: string) {
  const f = await findFile(deps.db, r.id, fileId);
  if (!f) throw notFound(`file ${fileId}`);
  return { filename: f.filename, contentType: f.content_type, data: openFile(deps, r, f.id, f.data_enc) };
}

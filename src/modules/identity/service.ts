/**
 * Identity documents read from their photos. A photo is checked from its headers where it
 * arrives (the API process decodes nothing), stored sealed, and read by a job where jobs run
 * (lib/documents: the zone found, read against the OCR-B glyphs, parsed, every check digit
 * tried). A reservation's reading screens it again; a one-off read answers and is forgotten.
 */
import type { Deps } from '../../deps.js';
import { withTx, type Db } from '../../db/connection.js';
import { enqueue, isRunning, recordEvent } from '../../jobs/repo.js';
import type { JobContext } from '../../jobs/worker.js';
import { collectYoung } from '../../lib/collect.js';
import { ImageRefused } from '../../lib/documents/image.js';
import { readInProcess } from '../../lib/reading/process.js';
import type { DocumentReading, PhotoProblem, ReadDocument } from '../../lib/documents/read.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/index.js';
import { deleteFiles } from '../guests/index.js';
import { findById } from '../bookings/index.js';
import { readSetting } from '../settings/index.js';
import { insertNote, systemNote } from '../notes/index.js';
import { compareSelfie, faceView, portraitOf } from './faces.js';
import { CROP_SIDE, checkPhotos, DOCUMENT_PHOTO_DAYS, imageAad, sealedImage, type Photo } from './photos.js';
import { resultAad } from './reading.js';
import * as repo from './repo.js';

/** What a photo's problem means for the guest, and what to do: the API's words (the portal has them in six languages). */
export const PROBLEM_WORDS: Record<PhotoProblem, string> = {
  screen_photo: 'The photo is of a screen showing the document: photograph the document itself.',
  too_dark: 'The photo is too dark: take it again in daylight or under a lamp.',
  blurred: 'The photo is blurred: hold the phone still, a hand span above the document, and let it focus.',
  glare: 'Light reflects off the document: tilt it a little away from the lamp or window.',
  zone_cut_off: 'The two or three lines of letters and <<< at the bottom of the document are cut off: get the whole document in the picture.',
  no_document: 'No passport or ID card was found in the photo: photograph the page with your photo, or the back of your ID card.',
  zone_unreadable: 'The lines of letters and <<< at the bottom of the document could not be read: take the photo again, straight on and close enough to fill the frame.',
};

/** Stores the photos sealed and queues their reading; the new verification's id. */
export async function submitDocument(
  deps: Deps,
  account: Pick<AccountRow, 'id'>,
  reservationId: string | null,
  source: 'api' | 'portal' | 'read',
  photos: Photo[],
): Promise<{ id: string; status: 'pending' }> {
  const { id } = await queueReading(deps, account, reservationId, source, photos);
  return { id, status: 'pending' };
}

/** Stores the photos sealed and queues their reading, in one transaction: the reading's id, and its job's. */
async function queueReading(deps: Deps, account: Pick<AccountRow, 'id'>, reservationId: string | null, source: 'api' | 'portal' | 'read', photos: Photo[]): Promise<{ id: string; job: string }> {
  const checked = checkPhotos(photos);
  const id = newId('idv');
  const now = iso(deps.clock());
  const job = await withTx(deps.db, async (tx) => {
    await repo.insertVerification(
      tx,
      {
        id,
        account_id: account.id,
        reservation_id: reservationId,
        source,
        status: 'pending',
        result_enc: null,
        error: null,
        ms: null,
        created_at: now,
        finished_at: null,
        images_deleted_at: null,
        face_status: checked.some((p) => p.side === 'selfie') ? 'pending' : null,
        face_enc: null,
        face_error: null,
      },
      checked.map((p) => sealedImage(deps, account.id, id, p.side, p.type, p.data, now)),
    );
    return (await enqueue(tx, deps, 'identity.read', { verification_id: id }))!;
  });
  deps.wakeWorker();
  // The photos as received and sealed are garbage once the request is answered: collected then
  // (lib/collect.ts), a morning of uploads does not pile them up in the API's process.
  setImmediate(collectYoung);
  return { id, job };
}

/** Why photos would be refused before any reading (not an image, a type the reader cannot open, too large), or null. */
export function photoRefusal(photos: Photo[], needs: 'front' | 'selfie' = 'front'): AppError | null {
  try {
    checkPhotos(photos, needs);
    return null;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

/** Tries a guest has at a readable photo before the portal lets them go on without one. */
export const PORTAL_TRIES = 3;
/** How long the portal waits for a reading before it lets the guest go on (no worker, or a busy one). */
export const PORTAL_WAIT_MS = 60_000;

export interface PortalReading {
  /** The guest's readings so far, this one included. */
  tries: number;
  id: string;
  state: 'reading' | 'read' | 'unreadable' | 'late';
  document: ReadDocument | null;
  problems: PhotoProblem[];
  /** Only an ID card's back was sent: it reads, but has no portrait for the selfie and the host. */
  back_only: boolean;
}

/**
 * Where the guest's latest photo stands: still being read, read (every check digit holds),
 * unreadable (with what was wrong with the photo), or late (a reading the portal stopped waiting
 * for); null before any photo.
 */
export async function portalReading(deps: Deps, accountId: string, reservationId: string): Promise<PortalReading | null> {
  const rows = await repo.portalReadings(deps.db, reservationId, PORTAL_TRIES + 1);
  const row = rows[0];
  if (!row || row.account_id !== accountId) return null;
  const view = await verificationView(deps, row);
  const late = Date.parse(row.created_at) + PORTAL_WAIT_MS <= deps.clock().getTime();
  const problems = view.problems.map((p) => p.code);
  // A screen photo reads, but the guest is asked for the document itself like for any retake.
  const state = view.status === 'pending' ? (late ? 'late' : 'reading') : view.document?.valid && !problems.includes('screen_photo') ? 'read' : 'unreadable';
  return {
    tries: rows.length,
    id: row.id,
    state,
    document: view.document,
    problems: state === 'unreadable' && problems.length === 0 ? ['zone_unreadable'] : problems,
    back_only: state === 'read' && portraitOf(deps, row) === 'missing',
  };
}

export interface VerificationView extends ReturnType<typeof faceView> {
  id: string;
  reservation_id: string | null;
  status: 'pending' | 'finished' | 'failed';
  document: ReadDocument | null;
  problems: { code: PhotoProblem; message: string }[];
  error: string | null;
  ms: number | null;
  created_at: string;
  finished_at: string | null;
  images_deleted_at: string | null;
}

export async function verificationView(deps: Deps, row: repo.VerificationRow): Promise<VerificationView> {
  const result = row.result_enc ? (JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.account_id, row.id))) as DocumentReading) : null;
  return {
    id: row.id,
    reservation_id: row.reservation_id,
    status: row.status,
    document: result?.document ?? null,
    problems: (result?.problems ?? []).map((code) => ({ code, message: PROBLEM_WORDS[code] })),
    error: row.error,
    ms: row.ms,
    created_at: row.created_at,
    finished_at: row.finished_at,
    images_deleted_at: row.images_deleted_at,
    ...faceView(deps, row),
  };
}

export async function getVerification(deps: Deps, account: AccountRow, id: string): Promise<VerificationView> {
  const row = await repo.findVerification(deps.db, id);
  // A one-off read is its caller's only, while it lasts; a reservation's reading is the account's.
  if (!row || row.account_id !== account.id) throw notFound(`identity verification ${id}`);
  const view = await verificationView(deps, row);
  // A one-off read answered 202 is answered once done, and forgotten as it is.
  if (!row.reservation_id && row.status !== 'pending') await withTx(deps.db, (tx) => repo.deleteVerification(tx, id));
  return view;
}

/**
 * The job: reads the photos (the front, and the back where the front has no zone: an ID card's
 * zone is on its back), keeps the result sealed, and screens the reservation again.
 */
export async function runIdentityRead(payload: { verification_id: string }, { deps }: JobContext): Promise<void> {
  const row = await repo.findVerification(deps.db, payload.verification_id);
  if (!row || row.status !== 'pending') return;
  const started = performance.now();
  let reading: DocumentReading | undefined;
  let crop: Buffer | null = null;
  let error: string | null = null;
  try {
    const photos = async () => (await repo.imagesOf(deps.db, row.id, ['front', 'back'])).map((image) => deps.secrets.openBytes(image.data_enc, imageAad(row.account_id, row.id, image.id)));
    const read = await readInProcess(photos, deps.clock());
    ({ reading, crop } = read);
    if (read.pageError) deps.log?.warn({ err: read.pageError, verification_id: row.id }, 'the printed page could not be read');
  } catch (err) {
    // A photo that decodes but cannot be read (a refusal, a crash of the decoder, the time limit)
    // fails the reading with its reason; it would fail again the same way.
    if (!(err instanceof ImageRefused)) deps.log?.warn({ err, verification_id: row.id }, 'an identity document could not be read');
    error = err instanceof ImageRefused ? err.message : 'the photo could not be read';
  }
  // A selfie sent with the document is compared with it in the same job, and screened with it once.
  const face = row.face_status === 'pending' ? await compareSelfie(deps, row, crop, reading ?? null) : null;
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    if (face) await repo.finishFace(tx, row.id, face);
    await repo.finish(tx, row.id, {
      status: reading ? 'finished' : 'failed',
      result_enc: reading ? deps.secrets.seal(JSON.stringify(reading), resultAad(row.account_id, row.id)) : null,
      error: reading ? null : (error ?? 'the photos could not be read'),
      ms: Math.round(performance.now() - started),
      finished_at: now,
    });
    // A one-off read keeps no photo once read.
    if (!row.reservation_id) await repo.deleteImages(tx, row.id, now);
    else {
      // The document cut out of its photo, for the host: a photo like the others, sealed and deleted with them.
      if (crop) await repo.insertImages(tx, [sealedImage(deps, row.account_id, row.id, CROP_SIDE, 'image/jpeg', crop, now)]);
      await recordEvent(tx, deps, 'identity.checked', { account_id: row.account_id, reservation_id: row.reservation_id });
    }
  });
  if (row.reservation_id) deps.wakeWorker();
}

/**
 * A one-off read: queued like any other (the reading runs where jobs run), waited for, answered
 * and forgotten. No worker got to it in time (none running, or one too busy): 503 with
 * Retry-After, and nothing kept. A worker reading it still when the wait ends: the photo is
 * merely slow, so the answer is 202 with where to ask (`GET /v1/identity-verifications/{id}`),
 * which answers the reading once it is done and forgets it then; one never asked for is forgotten
 * after ONE_OFF_KEPT_MS (forgetOneOffReads).
 */
export async function readOnce(deps: Deps, account: AccountRow, data: Buffer): Promise<VerificationView | { id: string; status: 'pending' }> {
  const { id, job } = await queueReading(deps, account, null, 'read', [{ side: 'front', data, part: 'image' }]);
  const deadline = Date.now() + deps.config.identityReadWaitMs;
  let kept = false;
  try {
    for (let wait = 20; Date.now() < deadline; wait = Math.min(200, wait * 2)) {
      await new Promise((r) => setTimeout(r, wait));
      const row = await repo.findVerification(deps.db, id);
      if (row && row.status !== 'pending') return await oneOffAnswer(deps, row);
    }
    // The job left the table between the last look and this one: the reading is done.
    const row = await repo.findVerification(deps.db, id);
    if (row && row.status !== 'pending') return await oneOffAnswer(deps, row);
    if (await isRunning(deps.db, job)) {
      kept = true;
      return { id, status: 'pending' };
    }
    throw new AppError('unavailable', `the reading did not start within ${deps.config.identityReadWaitMs / 1000} s: is a worker running (guestscreen start, or guestscreen worker beside serve)?`, {
      'retry-after': '10',
    });
  } finally {
    if (!kept) await withTx(deps.db, (tx) => repo.deleteVerification(tx, id));
  }
}

/** A one-off read done: what was read, or the photo's refusal (415) where it could not be read. */
async function oneOffAnswer(deps: Deps, row: repo.VerificationRow): Promise<VerificationView> {
  if (row.status === 'failed') throw new AppError('unsupported_media_type', `image: ${row.error ?? 'the photo could not be read'}`);
  return verificationView(deps, row);
}

/** How long a one-off read answered 202 is kept for its caller to ask for it. */
export const ONE_OFF_KEPT_MS = 15 * 60_000;

/** The chore: forgets the one-off reads their callers never came back for. */
export async function forgetOneOffReads(deps: Deps): Promise<number> {
  const ids = await repo.oneOffReadsBefore(deps.db, iso(new Date(deps.clock().getTime() - ONE_OFF_KEPT_MS)), 500);
  for (const id of ids) await withTx(deps.db, (tx) => repo.deleteVerification(tx, id));
  return ids.length;
}

/** The reservation must be the account's before its document is taken (checked before the upload is read). */
export async function assertReservation(deps: Deps, account: AccountRow, reservationId: string): Promise<void> {
  if (!(await findById(deps.db, account.id, reservationId))) throw notFound(`reservation ${reservationId}`);
}

/** An account's photo retention in days: the screening settings' `document_photo_days`, stored with them; the default where unset. */
async function photoDays(db: Db, accountId: string): Promise<number> {
  const stored = (await readSetting(db, accountId, 'screening')) as { documentPhotoDays?: unknown } | undefined;
  return typeof stored?.documentPhotoDays === 'number' ? stored.documentPhotoDays : DOCUMENT_PHOTO_DAYS;
}

/**
 * The retention chore: deletes the photos of documents whose reservation checked out more than
 * the account's `document_photo_days` ago, and says so in the reservation's history. What was
 * read stays with the reservation. Idempotent; a round looks at 10,000 readings at most.
 */
export async function purgeDocumentPhotos(deps: Deps): Promise<number> {
  const now = deps.clock();
  const today = iso(now).slice(0, 10);
  const days = new Map<string, number>();
  let purged = 0;
  // Oldest check-out first, a page at a time: photos an account keeps longer are passed over, not in the way.
  let after: { check_out_date: string; id: string } | undefined;
  for (let page = 0; page < 20; page++) {
    const due = await repo.photosKeptAfterCheckout(deps.db, today, 500, after);
    if (due.length === 0) break;
    after = { check_out_date: due.at(-1)!.check_out_date!, id: due.at(-1)!.id };
    for (const v of due) {
      if (!days.has(v.account_id)) days.set(v.account_id, await photoDays(deps.db, v.account_id));
      const keep = days.get(v.account_id)!;
      const until = new Date(Date.parse(`${v.check_out_date}T00:00:00Z`) + keep * 86_400_000);
      if (until.getTime() > now.getTime()) continue;
      const at = iso(now);
      await withTx(deps.db, async (tx) => {
        await repo.deleteImages(tx, v.id, at);
        // The portal keeps the guest's upload as an answer too: the same photo, deleted with it.
        if (v.source === 'portal') for (const screen of ['IDCollection', 'Selfie'] as const) await deleteFiles(tx, v.reservation_id!, screen);
        await insertNote(tx, systemNote(v.reservation_id!, `The identity document's photos and the guest's selfie were deleted, ${keep} days after check-out (what was read from them is kept).`, at));
      });
      purged++;
    }
  }
  return purged;
}

/**
 * A photo of the reservation's reading for the host: the document cut out of the photo its zone
 * was read from, or the guest's selfie, with its type; null when there is none, or the photos
 * were deleted.
 */
export async function readingPhoto(deps: Deps, accountId: string, reservationId: string, verificationId: string, side: typeof CROP_SIDE | 'selfie'): Promise<{ data: Buffer; type: string } | null> {
  const row = await repo.findVerification(deps.db, verificationId);
  if (!row || row.account_id !== accountId || row.reservation_id !== reservationId) return null;
  const [image] = await repo.imagesOf(deps.db, row.id, [side]);
  return image ? { data: deps.secrets.openBytes(image.data_enc, imageAad(row.account_id, row.id, image.id)), type: image.content_type } : null;
}

/** Which of the host's photos the reading keeps (readingPhoto): the document cut out, the selfie. */
export async function readingPhotos(deps: Deps, verificationId: string): Promise<{ document: boolean; selfie: boolean }> {
  const sides = await repo.imageSides(deps.db, verificationId);
  return { document: sides.includes(CROP_SIDE), selfie: sides.includes('selfie') };
}

/** The reading's selfie comparison in words, for the host's page; nulls without a selfie. */
export async function readingFace(deps: Deps, verificationId: string): Promise<ReturnType<typeof faceView>> {
  const row = await repo.findVerification(deps.db, verificationId);
  return row ? faceView(deps, row) : { face: null, liveness: null };
}

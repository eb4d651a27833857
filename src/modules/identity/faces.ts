/**
 * Is the guest the person on the document: their selfie compared with the document's portrait,
 * with the liveness signals, where jobs run (lib/faces, in a reading process); and one-off
 * comparisons of two photos. What is kept is the similarity, the verdict and the signals, sealed
 * like the reading: the faces' descriptors are biometric data (GDPR article 9), computed,
 * compared and dropped in the reading process, never stored (docs/privacy.md).
 */
import type { Deps } from '../../deps.js';
import { withTx } from '../../db/connection.js';
import { enqueue, recordEvent } from '../../jobs/repo.js';
import type { JobContext } from '../../jobs/worker.js';
import { ImageRefused } from '../../lib/documents/image.js';
import { checkSelfieInProcess, compareInProcess, type PhotoComparison } from '../../lib/reading/process.js';
import type { DocumentReading } from '../../lib/documents/read.js';
import type { Comparison, FaceProblem } from '../../lib/faces/compare.js';
import type { SelfieCheck, Signal, SignalResult } from '../../lib/faces/selfie.js';
import { AppError, badRequest } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/index.js';
import { CROP_SIDE, checkPhotos, imageAad, sealedImage, type Photo } from './photos.js';
import { faceAad, resultAad } from './reading.js';
import * as repo from './repo.js';

/** The verdict in words, as a host reads it (the console and the portal have them in their catalogues). */
export const STRENGTH_WORDS: Record<Comparison['strength'], string> = {
  very_likely: 'very likely the same person',
  likely: 'likely the same person',
  too_close: 'cannot tell: the faces are neither close enough to be one person nor far enough apart to be two',
  unlikely: 'not the same person',
  no_face: 'cannot tell: a face is missing',
  several_faces: 'cannot tell: a photo shows several faces, and which one is meant is not known',
};

/** What is wrong with a photo of a face, and what to do: the API's words. */
export const FACE_PROBLEM_WORDS: Record<FaceProblem, string> = {
  no_face: 'No face was found in the photo: take it again facing the camera, the whole face in the frame.',
  several_faces: 'Several faces are in the photo: take it again alone.',
  face_too_small: 'The face is too small in the photo: hold the phone closer, at arm’s length.',
  too_dark: 'The face is too dark: face a window or a lamp.',
  eyes_closed: 'The eyes are closed: take it again looking at the camera.',
};

/** Each liveness signal: what it shows, and what was seen. */
export const SIGNAL_WORDS: Record<Signal, { shows: string } & Record<SignalResult, string>> = {
  one_face: {
    shows: 'one person is in the selfie',
    passed: 'One face is in the selfie.',
    failed: 'Several faces are in the selfie.',
    not_checked: 'No face was found in the selfie.',
  },
  not_the_document: {
    shows: 'the selfie is not the document held up to the camera',
    passed: 'The selfie shows no document, and its face is no copy of the document’s portrait.',
    failed: 'The selfie shows the document, or a copy of its portrait: it may be the document held up to the camera.',
    not_checked: 'Not checked: a face is missing on the document or in the selfie.',
  },
  head_turn: {
    shows: 'the head turned when asked, as a photo held up to the camera does not',
    passed: 'The head turned across the camera’s frames.',
    failed: 'The head did not turn across the camera’s frames.',
    not_checked: 'Not checked: the selfie came without the camera’s frames (sent as a photo).',
  },
  blink: {
    shows: 'the eyes shut and opened again, as a photo’s do not',
    passed: 'The eyes blinked across the camera’s frames.',
    failed: 'No blink was seen across the camera’s frames.',
    not_checked: 'Not checked: the selfie came without the camera’s frames (sent as a photo).',
  },
  screen: {
    shows: 'the selfie is not a photo of a screen (its moiré), where the photo is large enough to tell',
    passed: 'No sign of a screen in the selfie.',
    failed: 'The selfie shows a screen’s moiré: it may be a photo of a screen.',
    not_checked: 'Not checked: the photo is too small to tell.',
  },
};

export interface FaceView {
  status: 'pending' | 'finished' | 'failed';
  similarity: number | null;
  threshold: number | null;
  verdict: Comparison['verdict'] | null;
  strength: Comparison['strength'] | null;
  /** The verdict in words. */
  words: string;
  reasons: { code: FaceProblem | 'no_document_face'; message: string }[];
  error: string | null;
}

export interface LivenessView {
  signals: { code: Signal; result: SignalResult; shows: string; message: string }[];
  frames: number;
  /** What the signals are, and are not, in words. */
  words: string;
}

const NO_DOCUMENT_FACE = 'No face was found on the document’s photo to compare the selfie with: the document may be cut off or its portrait hidden by glare.';
const NO_CARD_FRONT = 'Only the back of the ID card was sent, and it has no portrait: the selfie can be compared with the card’s front, with its photo, once the guest sends it.';

/** A reading's selfie comparison as the API and the console show it; nulls without a selfie. */
export function faceView(deps: Deps, row: repo.VerificationRow): { face: FaceView | null; liveness: LivenessView | null } {
  if (!row.face_status) return { face: null, liveness: null };
  if (row.face_status !== 'finished' || !row.face_enc) {
    const words = row.face_status === 'pending' ? 'the selfie is being compared with the document' : `the selfie could not be compared: ${row.face_error ?? 'it could not be read'}`;
    return {
      face: { status: row.face_status, similarity: null, threshold: null, verdict: null, strength: null, words, reasons: [], error: row.face_error },
      liveness: null,
    };
  }
  const check = JSON.parse(deps.secrets.open(row.face_enc, faceAad(row.account_id, row.id))) as SelfieCheck;
  const reasons: FaceView['reasons'] = check.face.problems.map((code) => ({ code, message: FACE_PROBLEM_WORDS[code] }));
  const backOnly = portraitOf(deps, row) === 'missing';
  if (!check.face.document_face) reasons.unshift({ code: 'no_document_face', message: backOnly ? NO_CARD_FRONT : NO_DOCUMENT_FACE });
  const words =
    check.face.strength === 'no_face'
      ? check.face.document_face
        ? 'cannot tell: no face was found in the selfie'
        : backOnly
          ? 'cannot tell: only the back of the ID card was sent, and it has no portrait'
          : 'cannot tell: no face was found on the document'
      : STRENGTH_WORDS[check.face.strength];
  const signals = check.liveness.signals.map((s) => ({ ...s, shows: SIGNAL_WORDS[s.code].shows, message: SIGNAL_WORDS[s.code][s.result] }));
  const passed = signals.filter((s) => s.result === 'passed').length;
  return {
    face: { status: 'finished', similarity: check.face.similarity, threshold: check.face.threshold, verdict: check.face.verdict, strength: check.face.strength, words, reasons, error: null },
    liveness: {
      signals,
      frames: check.liveness.frames,
      words: `${passed} of ${signals.length} signals passed. They are signs that a live person took the selfie, not proof: a video played to the camera, or a good print, can pass them.`,
    },
  };
}

/** Where the reading's document has its portrait (read.ts's DocumentReading.portrait): missing where only an ID card's back was sent. */
export function portraitOf(deps: Deps, row: repo.VerificationRow): DocumentReading['portrait'] {
  return row.result_enc ? (JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.account_id, row.id))) as DocumentReading).portrait : undefined;
}

type FaceChange = { face_status: 'finished' | 'failed'; face_enc: string | null; face_error: string | null };

/**
 * Compares the reading's selfie with the document's portrait: on `crop` (the picture the host is
 * shown: the page cut out of the photo its zone was read from, or an ID card's front as sent;
 * null where none was), or where no zone was read, on the photos as sent; none where only an ID
 * card's back was sent. The change to keep.
 */
export async function compareSelfie(deps: Deps, row: repo.VerificationRow, crop: Buffer | null, reading: DocumentReading | null): Promise<FaceChange> {
  const open = (image: repo.ImageRow) => deps.secrets.openBytes(image.data_enc, imageAad(row.account_id, row.id, image.id));
  try {
    const check = await checkSelfieInProcess(async () => {
      const images = await repo.imagesOf(deps.db, row.id, ['selfie', 'frame', 'front', 'back']);
      const selfie = images.find((i) => i.side === 'selfie');
      if (!selfie) throw new ImageRefused('the selfie was deleted before it was compared');
      // The kept picture is the portrait's side (a passport's page, an ID card's front); the photos
      // as sent where none was kept. An ID card's back alone has no portrait: a face the detector
      // thinks it sees in its print is none.
      const sent = crop ? [] : images.filter((i) => i.side === 'front' || i.side === 'back').map(open);
      const documents = reading?.portrait === 'missing' ? [] : [...(crop ? [crop] : []), ...sent];
      return { documents, selfie: open(selfie), frames: images.filter((i) => i.side === 'frame').map(open) };
    });
    return { face_status: 'finished', face_enc: deps.secrets.seal(JSON.stringify(check), faceAad(row.account_id, row.id)), face_error: null };
  } catch (err) {
    if (!(err instanceof ImageRefused)) deps.log?.warn({ err, verification_id: row.id }, 'a selfie could not be compared');
    return { face_status: 'failed', face_enc: null, face_error: err instanceof ImageRefused ? err.message : 'the selfie could not be compared' };
  }
}

/** While the document is still being read, a selfie's comparison looks again this much later (the reading job compares it too when it ends). */
const AFTER_READING_MS = 2_000;

/**
 * The job for a selfie sent after its document (the portal's Selfie screen): compares it with
 * the document cut out of the reading's photo, keeps the result, and screens the reservation again.
 */
export async function runFaceCheck(payload: { verification_id: string }, { deps }: JobContext): Promise<void> {
  const row = await repo.findVerification(deps.db, payload.verification_id);
  if (!row || row.face_status !== 'pending') return;
  if (row.status === 'pending') {
    await enqueue(deps.db, deps, 'identity.face', payload, { runAt: new Date(deps.clock().getTime() + AFTER_READING_MS) });
    return;
  }
  const [crop] = await repo.imagesOf(deps.db, row.id, [CROP_SIDE]);
  const reading = row.result_enc ? (JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.account_id, row.id))) as DocumentReading) : null;
  const change = await compareSelfie(deps, row, crop ? deps.secrets.openBytes(crop.data_enc, imageAad(row.account_id, row.id, crop.id)) : null, reading);
  await withTx(deps.db, async (tx) => {
    await repo.finishFace(tx, row.id, change);
    if (row.reservation_id) await recordEvent(tx, deps, 'identity.checked', { account_id: row.account_id, reservation_id: row.reservation_id });
  });
  if (row.reservation_id) deps.wakeWorker();
}

/**
 * A selfie (and the camera's frames) for the reservation's latest document sent through the
 * portal: kept sealed with its photos, replacing an earlier selfie, and compared as a job.
 */
export async function submitSelfie(deps: Deps, account: Pick<AccountRow, 'id'>, reservationId: string, photos: Photo[]): Promise<{ id: string }> {
  const checked = checkPhotos(photos, 'selfie');
  const [reading] = await repo.portalReadings(deps.db, reservationId, 1);
  if (!reading || reading.account_id !== account.id) throw badRequest('selfie: the document must be sent before the selfie it is compared with');
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.replaceSelfie(
      tx,
      reading.id,
      checked.map((p) => sealedImage(deps, account.id, reading.id, p.side, p.type, p.data, now)),
    );
    await enqueue(tx, deps, 'identity.face', { verification_id: reading.id });
  });
  deps.wakeWorker();
  return { id: reading.id };
}

/** How long the portal waits for a selfie's comparison before it lets the guest go on (no worker, or a busy one). */
const SELFIE_WAIT_MS = 60_000;

export interface PortalSelfie {
  /** checking: not compared yet; ok: compared, nothing for the guest to take again; retake: see problems; late: the portal stopped waiting. */
  state: 'checking' | 'ok' | 'retake' | 'late';
  problems: FaceProblem[];
}

/**
 * Where the guest's latest selfie stands, for the portal: what the guest can take again, never
 * the verdict (that is the host's). Null before a selfie was compared with a document.
 */
export async function portalSelfie(deps: Deps, accountId: string, reservationId: string): Promise<PortalSelfie | null> {
  const [reading] = await repo.portalReadings(deps.db, reservationId, 1);
  if (!reading || reading.account_id !== accountId || !reading.face_status) return null;
  if (reading.face_status === 'pending') {
    const [selfie] = await repo.imagesOf(deps.db, reading.id, ['selfie']);
    const late = !selfie || Date.parse(selfie.created_at) + SELFIE_WAIT_MS <= deps.clock().getTime();
    return { state: late ? 'late' : 'checking', problems: [] };
  }
  const check = reading.face_status === 'finished' && reading.face_enc ? (JSON.parse(deps.secrets.open(reading.face_enc, faceAad(reading.account_id, reading.id))) as SelfieCheck) : null;
  // A selfie that could not be opened at all is, for the guest, one with no face to see.
  const problems = check ? check.face.problems : ['no_face' as const];
  return { state: problems.length ? 'retake' : 'ok', problems };
}

/** The job of a one-off comparison: both photos' faces compared, the answer sealed until it is fetched. */
export async function runCompare(payload: { verification_id: string }, { deps }: JobContext): Promise<void> {
  const row = await repo.findVerification(deps.db, payload.verification_id);
  if (!row || row.face_status !== 'pending') return;
  const open = (image: repo.ImageRow) => deps.secrets.openBytes(image.data_enc, imageAad(row.account_id, row.id, image.id));
  let change: FaceChange;
  try {
    const images = await repo.imagesOf(deps.db, row.id, ['a', 'b']);
    const [a, b] = [images.find((i) => i.side === 'a'), images.find((i) => i.side === 'b')];
    if (!a || !b) return;
    // The caller waits identityReadWaitMs at most: the comparison is stopped by then.
    const comparison = await compareInProcess(open(a), open(b), deps.config.identityReadWaitMs);
    change = { face_status: 'finished', face_enc: deps.secrets.seal(JSON.stringify(comparison), faceAad(row.account_id, row.id)), face_error: null };
  } catch (err) {
    if (!(err instanceof ImageRefused)) deps.log?.warn({ err, verification_id: row.id }, 'two photos could not be compared');
    change = { face_status: 'failed', face_enc: null, face_error: err instanceof ImageRefused ? err.message : 'the photos could not be compared' };
  }
  await withTx(deps.db, async (tx) => {
    await repo.finishFace(tx, row.id, change);
    await repo.deleteImages(tx, row.id, iso(deps.clock()));
  });
}

export interface CompareView {
  similarity: number | null;
  threshold: number;
  same_person: boolean | null;
  verdict: Comparison['verdict'];
  words: string;
  reasons: { code: FaceProblem; image: 'image_a' | 'image_b'; message: string }[];
}

/**
 * A one-off comparison of two photos' faces: queued like a reading (it runs where jobs run),
 * waited for, answered and forgotten. No worker, or one too busy to get to it in time: 503.
 */
export async function compareOnce(deps: Deps, account: AccountRow, a: Buffer, b: Buffer): Promise<CompareView> {
  const checked = checkPhotos(
    [
      { side: 'selfie', data: a, part: 'image_a' },
      { side: 'selfie', data: b, part: 'image_b' },
    ],
    'selfie',
  );
  const id = newId('idv');
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.insertVerification(
      tx,
      {
        id,
        account_id: account.id,
        reservation_id: null,
        source: 'compare',
        status: 'finished',
        result_enc: null,
        error: null,
        ms: null,
        created_at: now,
        finished_at: now,
        images_deleted_at: null,
        face_status: 'pending',
        face_enc: null,
        face_error: null,
      },
      checked.map((p, i) => sealedImage(deps, account.id, id, i === 0 ? 'a' : 'b', p.type, p.data, now)),
    );
    await enqueue(tx, deps, 'identity.compare', { verification_id: id });
  });
  deps.wakeWorker();
  const deadline = Date.now() + deps.config.identityReadWaitMs;
  try {
    for (let wait = 20; Date.now() < deadline; wait = Math.min(200, wait * 2)) {
      await new Promise((r) => setTimeout(r, wait));
      const row = await repo.findVerification(deps.db, id);
      if (row?.face_status === 'failed') throw new AppError('unsupported_media_type', row.face_error ?? 'the photos could not be compared');
      if (row?.face_status === 'finished' && row.face_enc) {
        const c = JSON.parse(deps.secrets.open(row.face_enc, faceAad(row.account_id, row.id))) as PhotoComparison;
        const reasons = [...c.problems.a.map((code) => ({ code, image: 'image_a' as const })), ...c.problems.b.map((code) => ({ code, image: 'image_b' as const }))];
        return {
          similarity: c.similarity,
          threshold: c.threshold,
          same_person: c.verdict === 'same_person' ? true : c.verdict === 'not_same_person' ? false : null,
          verdict: c.verdict,
          words: STRENGTH_WORDS[c.strength],
          reasons: reasons.map((r) => ({ ...r, message: `${r.image}: ${FACE_PROBLEM_WORDS[r.code]}` })),
        };
      }
    }
    throw new AppError('unavailable', `the comparison did not finish within ${deps.config.identityReadWaitMs / 1000} s: is a worker running (guestscreen start, or guestscreen worker beside serve)?`, {
      'retry-after': '10',
    });
  } finally {
    await withTx(deps.db, (tx) => repo.deleteVerification(tx, id));
  }
}

/**
 * A guest's selfie against their document's portrait: the comparison (compare.ts), what the
 * guest could take again, and the liveness signals, each for what it shows and no more:
 *
 * - one_face: the selfie shows one face, not a group or a face on a poster behind someone;
 * - not_the_document: the selfie is not the document held up to the camera: no machine-readable
 *   zone is found in it, and its face is not as close to the document's portrait as a copy of it
 *   is (two photos of one person taken apart hardly ever are);
 * - head_turn and blink: across the frames the portal's camera took, the head turned and the
 *   eyes shut and opened again, as a person does when asked and a photo held up does not;
 * - screen: the selfie is not of a screen (the moiré the document check looks for,
 *   lib/documents/screen.ts), where the photo is large enough to tell.
 *
 * None proves a live person: a video of the guest played to the camera turns and blinks, and a
 * good print shows no moiré. No passive liveness model is used: none that ships in an npm package
 * was found whose errors on real attacks are published. The host reads the signals as signs.
 */
import { readDocumentPhoto } from '../documents/read.js';
import { isScreen } from '../documents/screen.js';
import { faceIn, faceProblems, judge, withStrength, type Comparison, type FaceProblem } from './compare.js';
import { faceDistance } from './faces.js';

export type Signal = 'one_face' | 'not_the_document' | 'head_turn' | 'blink' | 'screen';
export type SignalResult = 'passed' | 'failed' | 'not_checked';

export interface SelfieCheck {
  face: Comparison & {
    /** What is wrong with the selfie, for the guest to take again. */
    problems: FaceProblem[];
    /** Whether a face was found on the document. */
    document_face: boolean;
  };
  liveness: { signals: { code: Signal; result: SignalResult }[]; frames: number };
}

/** A selfie's face closer than this to the document's portrait is the portrait itself, photographed (bench/faces measures both sides of it). */
export const COPY_DISTANCE = 0.22;
/** Across the frames, the nose must move this far between the jaw's sides (faces.ts's turn) for a head turn. */
const TURN = 0.25;
/** Eyes under this (eye aspect ratio) in one frame and over OPEN in another: a blink. */
const SHUT = 0.2;
const OPEN = 0.24;

/**
 * Compares the selfie's face with the document's portrait and reads the liveness signals off the
 * selfie and the frames. `documents`: the photos the portrait may be on (the document cut out of
 * the photo it was read from; an ID card's front besides); the largest face among them is taken.
 * The descriptors are used here and dropped: none is returned.
 */
export async function checkSelfie(documents: Buffer[], selfie: Buffer, frames: Buffer[]): Promise<SelfieCheck> {
  const face = await faceIn(selfie);
  let portrait: Awaited<ReturnType<typeof faceIn>> = null;
  for (const document of documents) {
    const found = await faceIn(document).catch(() => null);
    if (found && (!portrait || found.share > portrait.share)) portrait = found;
  }
  const problems = faceProblems(face);
  let comparison = judge(portrait?.descriptor ?? null, face?.descriptor ?? null);
  // A selfie the guest should take again says nothing against them: only a clear match stands.
  if (problems.length && comparison.verdict !== 'same_person') comparison = withStrength(comparison, comparison.similarity === null ? 'no_face' : 'too_close');
  if (face?.several) comparison = withStrength(comparison, 'several_faces');

  const signals: SelfieCheck['liveness']['signals'] = [];
  signals.push({ code: 'one_face', result: !face ? 'not_checked' : face.faces === 1 ? 'passed' : 'failed' });
  // The selfie read as a document photo is read: a zone in it is the document held up to the
  // camera, and the squares about its middle say whether it is of a screen (one decoding for both).
  // The templates only: a document held up to a phone's front camera fills the frame, where they
  // find its zone, and the detector would cost a selfie more than its face does.
  const shown = await readDocumentPhoto(selfie, new Date(), { detect: false });
  const close = face?.descriptor && portrait?.descriptor ? faceDistance(face.descriptor, portrait.descriptor) < COPY_DISTANCE : null;
  const copied = shown.zone_corners || shown.document ? true : close;
  signals.push({ code: 'not_the_document', result: copied === null ? 'not_checked' : copied ? 'failed' : 'passed' });
  const seen = [];
  for (const frame of frames) {
    const f = await faceIn(frame, false).catch(() => null);
    if (f) seen.push(f);
  }
  signals.push(...movement(seen));
  signals.push({ code: 'screen', result: !shown.screen ? 'not_checked' : isScreen(shown.screen) ? 'failed' : 'passed' });
  return { face: { ...comparison, problems, document_face: !!portrait }, liveness: { signals, frames: frames.length } };
}

/** The head turn and the blink across the frames' faces: not checked with fewer than two. */
export function movement(faces: { turn: number; eyes: number }[]): { code: 'head_turn' | 'blink'; result: SignalResult }[] {
  if (faces.length < 2)
    return [
      { code: 'head_turn', result: 'not_checked' },
      { code: 'blink', result: 'not_checked' },
    ];
  const [turns, eyes] = [faces.map((f) => f.turn), faces.map((f) => f.eyes)];
  return [
    { code: 'head_turn', result: Math.max(...turns) - Math.min(...turns) >= TURN ? 'passed' : 'failed' },
    { code: 'blink', result: Math.min(...eyes) < SHUT && Math.max(...eyes) > OPEN ? 'passed' : 'failed' },
  ];
}

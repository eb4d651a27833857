/**
 * Two photos' faces compared: whether they are of one person, in numbers and in words, and what
 * kept the comparison from saying (no face, several, too small, too dark, eyes shut). The
 * similarity is 1 less the distance between the faces' descriptors (faces.ts), so that more is
 * more alike; the thresholds are distances calibrated by `npm run bench:faces` on labelled pairs
 * of photos of people (bench/results/faces.json), not taken from a model's README.
 */
import { decodeColour, ImageRefused } from '../documents/image.js';
import { describeFace, faceDistance, type FaceFound } from './faces.js';

/**
 * Closer than this, the same person: calibrated on look-alikes (two people of the same sex and
 * age band, the impostor a fraudster picks), not on random strangers, most of whom differ in sex
 * or age and are far easier to tell apart. Set where a normal fitted to the look-alikes'
 * distances puts 0.4 % of them: under half the 1 % goal, since sisters and brothers come closer
 * than the strangers the benchmark's look-alikes are.
 */
export const SAME_DISTANCE = 0.53;
/** Closer than this, no look-alike came: very likely the same person. */
export const SURE_DISTANCE = 0.5;
/** Farther than this, hardly any pair of one person's photos lay: not the same person. Between the two, too close to call. */
export const APART_DISTANCE = 0.78;

/** The long side faces are looked for at: the detector sees 512 pixels, the descriptor 150, and a phone's photo is ten times that. */
const FACE_SIDE = 1024;

/** The face must be this share of the photo's height or more: smaller, the descriptor has too few pixels to go on. */
const SMALLEST_SHARE = 0.12;
/** Nor fewer pixels high than this, whatever the photo's size. */
const SMALLEST_PX = 80;
/** A face darker than this (mean, 0-255) hides what tells people apart. */
const DARKEST = 45;
/** Eyes less open than this (eye aspect ratio) are shut, or nearly. */
const SHUT_EYES = 0.18;

export type FaceProblem = 'no_face' | 'several_faces' | 'face_too_small' | 'too_dark' | 'eyes_closed';
export type FaceVerdict = 'same_person' | 'not_same_person' | 'cannot_tell';

/** What keeps a photo's face from being compared well: for a guest, what to do again. */
export function faceProblems(face: FaceFound | null): FaceProblem[] {
  if (!face) return ['no_face'];
  const problems: FaceProblem[] = [];
  if (face.several) problems.push('several_faces');
  if (face.share < SMALLEST_SHARE || face.box.height < SMALLEST_PX) problems.push('face_too_small');
  if (face.light < DARKEST) problems.push('too_dark');
  if (face.eyes < SHUT_EYES) problems.push('eyes_closed');
  return problems;
}

export interface Comparison {
  /** 0 to 1: 1 less the descriptors' distance; null where a face is missing. */
  similarity: number | null;
  /** The similarity from which two faces are taken for one person. */
  threshold: number;
  verdict: FaceVerdict;
  /** How sure, in words: very likely, likely, too close to call, not the same person, or why it cannot tell. */
  strength: Strength;
}

export type Strength = 'very_likely' | 'likely' | 'too_close' | 'unlikely' | 'no_face' | 'several_faces';

/** The verdict a strength says: one follows from the other, so that an answer never says two things. */
export function verdictOf(strength: Strength): FaceVerdict {
  return strength === 'very_likely' || strength === 'likely' ? 'same_person' : strength === 'unlikely' ? 'not_same_person' : 'cannot_tell';
}

/** A comparison made to say `strength`, its verdict with it. */
export const withStrength = (c: Comparison, strength: Strength): Comparison => ({ ...c, strength, verdict: verdictOf(strength) });

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Two faces' descriptors compared: the verdict by the calibrated distances. */
export const judge = (a: Float32Array | null, b: Float32Array | null): Comparison => judgeDistance(a && b ? faceDistance(a, b) : null);

/** The verdict on two faces this far apart (null: a face is missing). */
export function judgeDistance(distance: number | null): Comparison {
  const threshold = round(1 - SAME_DISTANCE);
  if (distance === null) return { similarity: null, threshold, verdict: verdictOf('no_face'), strength: 'no_face' };
  const similarity = round(Math.max(0, 1 - distance));
  const strength: Strength = distance < SURE_DISTANCE ? 'very_likely' : distance < SAME_DISTANCE ? 'likely' : distance < APART_DISTANCE ? 'too_close' : 'unlikely';
  return { similarity, threshold, verdict: verdictOf(strength), strength };
}

/** A face fewer pixels high than this in the picture faces are looked for in is described again from the photo at a larger size. */
const CLOSE_UP_PX = 160;
/** The long side a photo is opened at to describe a small face: a portrait on an ID card's front, photographed whole. */
const CLOSE_UP_SIDE = 3072;

/** A photo's face, found and described where faces are looked for; ImageRefused (image.ts) for what is no photo. */
export async function faceIn(photo: Buffer, describe = true): Promise<FaceFound | null> {
  const picture = await decodeColour(photo, FACE_SIDE);
  const face = await describeFace(picture, describe);
  if (!face?.descriptor || face.box.height >= CLOSE_UP_PX) return face;
  // A small face (a document's portrait, the whole card in the photo) is described from the
  // pixels about it at up to three times the size: the descriptor looks at 150 pixels of face,
  // and a face much smaller than that has too few to tell people apart. What the photo says (its faces, the
  // face's share) stays the whole picture's.
  const { original } = picture;
  const scale = Math.min(CLOSE_UP_SIDE, Math.max(original.width, original.height)) / Math.max(picture.width, picture.height);
  if (scale < 1.5) return face;
  const big = { width: Math.round(picture.width * scale), height: Math.round(picture.height * scale) };
  const { x, y, width, height } = face.box;
  const left = Math.max(0, Math.floor((x - width) * scale));
  const top = Math.max(0, Math.floor((y - height) * scale));
  // A pixel short of the edges: sharp's own scaling may round the picture a pixel smaller.
  const box = { left, top, width: Math.min(big.width - left - 1, Math.ceil(width * 3 * scale)), height: Math.min(big.height - top - 1, Math.ceil(height * 3 * scale)) };
  if (box.width < 32 || box.height < 32) return face;
  // The face where it was found, in the close-up's pixels: not looked for again.
  const at = { x: x * scale - left, y: y * scale - top, width: width * scale, height: height * scale };
  const closer = await decodeColour(photo, Math.max(big.width, big.height), box)
    .then((area) => describeFace(area, true, at))
    .catch(() => null);
  return closer?.descriptor ? { ...face, descriptor: closer.descriptor } : face;
}

/** Two photos compared, as POST /v1/identity/compare answers: the verdict, and each photo's problems. */
export async function comparePhotos(a: Buffer, b: Buffer): Promise<Comparison & { problems: { a: FaceProblem[]; b: FaceProblem[] } }> {
  // A photo that cannot be opened is named as the request names it.
  const named = (photo: Buffer, part: string) =>
    faceIn(photo).catch((err: unknown) => {
      throw err instanceof ImageRefused ? new ImageRefused(`${part}: ${err.message}`) : err;
    });
  const [first, second] = [await named(a, 'image_a'), await named(b, 'image_b')];
  const problems = { a: faceProblems(first), b: faceProblems(second) };
  const comparison = judge(first?.descriptor ?? null, second?.descriptor ?? null);
  // Which of several faces was meant cannot be told (one much the largest is the one meant).
  if (first?.several || second?.several) return { ...withStrength(comparison, 'several_faces'), problems };
  return { ...comparison, problems };
}

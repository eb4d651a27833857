/**
 * Faces in photos, described and compared, offline: face-api (the npm package
 * @vladmandic/face-api, on TensorFlow.js's WebAssembly backend), with the models that package
 * ships, loaded from disk the first time a face is looked for, in the process that reads.
 *
 * A face is found by SSD MobileNet (ssd.ts), or, where it finds none, by the tiny detector (it
 * found the faces SSD missed in small, tightly cut photos); its 68 landmarks give the angle of
 * the eyes, and the photo is turned about them until they are level, the face's box turned with
 * it and its landmarks found again there: the descriptor (dlib's ResNet, 128 numbers) was trained
 * on level faces, and told people apart better on turned ones after the turn (bench/faces/run.ts).
 * Two faces are the same person when their descriptors are closer than a distance the benchmark
 * calibrates on labelled pairs (compare.ts). The landmarks also say what a guest can fix (the
 * face's size and light, closed eyes) and, frame after frame, whether the head turned and the
 * eyes blinked (selfie.ts).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { locateFaces, type Found, type SsdParams } from './ssd.js';
import { leanTinyDetector } from './tiny.js';

const require = createRequire(import.meta.url);

/** A photo's pixels, in colour (RGB, 3 bytes a pixel). */
export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface FaceFound {
  /** The face's descriptor, to compare with another's (faceDistance); null when not asked for. */
  descriptor: Float32Array | null;
  /** Where the face lies in the photo, in pixels. */
  box: { x: number; y: number; width: number; height: number };
  /** How many faces the photo shows. */
  faces: number;
  /**
   * Several faces and none the photo's own: which one is meant cannot be told. False where the
   * face described is much the largest (a document's portrait beside its small ghost image, a
   * guest with a face on a poster behind them), whatever the count.
   */
  several: boolean;
  /** The face's height against the photo's (0-1). */
  share: number;
  /** The face's mean brightness (0-255). */
  light: number;
  /** How open the eyes are: the eye aspect ratio, height over width, of both eyes together (about 0.3 open, under 0.2 shut). */
  eyes: number;
  /** Where the nose's tip lies between the two sides of the jaw: 0 facing the camera, towards ±1 turned to the photo's left or right. */
  turn: number;
}

type FaceApi = typeof import('@vladmandic/face-api');
type Tf = typeof import('@tensorflow/tfjs');
let loaded: Promise<{ api: FaceApi; tf: Tf }> | undefined;

/** face-api with its models, on the WebAssembly backend; made once, when first needed. */
function faceApi(): Promise<{ api: FaceApi; tf: Tf }> {
  loaded ??= (async () => {
    const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    // The TensorFlow.js that face-api's build runs on (the same module), with its own types.
    const tf = require('@tensorflow/tfjs') as Tf;
    const wasm = require('@tensorflow/tfjs-backend-wasm') as { setWasmPaths(prefix: string): void };
    // The backend's WebAssembly files, from its package on disk: nothing is fetched.
    wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}${path.sep}`);
    // Never the pure JavaScript backend it would fall back to: some hundred times slower.
    if (!(await tf.setBackend('wasm'))) throw new Error('the WebAssembly backend of TensorFlow.js could not start');
    await tf.ready();
    const models = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
    await Promise.all([
      api.nets.ssdMobilenetv1.loadFromDisk(models),
      api.nets.tinyFaceDetector.loadFromDisk(models),
      api.nets.faceLandmark68Net.loadFromDisk(models),
      api.nets.faceRecognitionNet.loadFromDisk(models),
    ]);
    leanTinyDetector(tf, api.nets.tinyFaceDetector);
    return { api, tf };
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

const MIN_CONFIDENCE = 0.2;

type Tensor3D = import('@tensorflow/tfjs').Tensor3D;
type Box = { x: number; y: number; width: number; height: number };
/** face-api's own declarations of the tensors it takes. */
type ApiInput = Parameters<FaceApi['detectAllFaces']>[0];
type ApiTensor = Parameters<FaceApi['extractFaceTensors']>[0];

/** At most this many faces are looked at in a photo: enough to tell one face from several. */
const MOST_FACES = 5;
/**
 * A face counts towards "several faces" from this sureness: the likeliest face is taken from
 * MIN_CONFIDENCE, but at that the detector also sees faces in badges, prints and shadows.
 */
const COUNTED = 0.5;
/**
 * Of several faces, one is the photo's own when its box is this many times the area of every
 * other: a document's portrait beside its ghost image (a third to half its height), a guest with
 * a passer-by. Two people side by side in one photo come within about 1.5 of each other.
 */
const DOMINANT_AREA = 2.5;

/**
 * The face a photo is of: the likeliest, or where several faces count, the largest of them when
 * it dominates. `several`: faces count and none dominates.
 */
export function photoFace(faces: Found[]): { face: Found | undefined; counted: number; several: boolean } {
  const counted = faces.filter((f) => f.score >= COUNTED);
  if (counted.length < 2) return { face: faces[0], counted: Math.max(1, counted.length), several: false };
  const area = (f: Found) => f.box.width * f.box.height;
  const [largest, next] = [...counted].sort((a, b) => area(b) - area(a)) as [Found, Found];
  const dominates = area(largest) >= DOMINANT_AREA * area(next);
  return { face: dominates ? largest : faces[0], counted: counted.length, several: !dominates };
}

/** The tiny detector's faces in a picture at `input` pixels, the likeliest first. */
async function tinyFaces(api: FaceApi, image: Tensor3D, input: number): Promise<Found[]> {
  const found = await api.detectAllFaces(image as unknown as ApiInput, new api.TinyFaceDetectorOptions({ inputSize: input, scoreThreshold: MIN_CONFIDENCE }));
  return found.map((f) => ({ score: f.score, box: { x: f.box.x, y: f.box.y, width: f.box.width, height: f.box.height } })).sort((a, b) => b.score - a.score);
}

/** The tiny detector's input when it looks first: a face filling much of the photo is plain to it at this size, at a fifth of SSD's cost. */
const QUICK_INPUT = 320;
/** A face the tiny detector finds alone, this share of the photo's height or more, is taken without SSD. */
const PLAIN_SHARE = 0.15;

/**
 * The faces in a picture, the likeliest first. Most photos compared are a selfie or a portrait:
 * one face filling much of the frame, which the tiny detector finds at a small size. Where it
 * finds such a face alone, that is the answer; otherwise (a document's small portrait, a group,
 * nothing sure) SSD looks, and where SSD finds none, the tiny detector at a larger size (it found
 * the faces SSD missed in small, tightly cut photos).
 */
async function detect(api: FaceApi, tf: Tf, image: Tensor3D): Promise<Found[]> {
  const quick = await tinyFaces(api, image, QUICK_INPUT);
  const sure = quick.filter((f) => f.score >= COUNTED);
  if (sure.length === 1 && quick[0] === sure[0] && sure[0]!.box.height >= PLAIN_SHARE * image.shape[0]) return quick;
  const faces = await locateFaces(tf, api.nets.ssdMobilenetv1.params as unknown as SsdParams, image, MOST_FACES, MIN_CONFIDENCE);
  if (faces.length) return faces;
  return tinyFaces(api, image, 416);
}

/** The face's 68 landmarks, found within `box` of the picture, in the picture's pixels. */
async function landmarksIn(api: FaceApi, image: Tensor3D, box: Box) {
  const [crop] = await api.extractFaceTensors(image as unknown as ApiTensor, [new api.Rect(box.x, box.y, box.width, box.height)]);
  try {
    const landmarks = (await api.nets.faceLandmark68Net.detectLandmarks(crop!)) as import('@vladmandic/face-api').FaceLandmarks68;
    return landmarks.shiftBy<import('@vladmandic/face-api').FaceLandmarks68>(box.x, box.y);
  } finally {
    crop!.dispose();
  }
}

type Point = { x: number; y: number };
const centre = (points: Point[]) => points.reduce((c, p) => ({ x: c.x + p.x / points.length, y: c.y + p.y / points.length }), { x: 0, y: 0 });

/**
 * Where a box lies once the photo is turned by `angle` (counter-clockwise as seen, as
 * tf.image.rotateWithOffset turns it) about `about`: its centre turned with the photo, its size kept.
 */
function turnedBox(box: Box, about: { x: number; y: number }, angle: number): Box {
  const [dx, dy] = [box.x + box.width / 2 - about.x, box.y + box.height / 2 - about.y];
  const [cx, cy] = [about.x + dx * Math.cos(angle) + dy * Math.sin(angle), about.y - dx * Math.sin(angle) + dy * Math.cos(angle)];
  return { x: cx - box.width / 2, y: cy - box.height / 2, width: box.width, height: box.height };
}

const span = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);
/** An eye's height over its width, from its six landmarks (Soukupová and Čech's eye aspect ratio). */
const eyeOpening = (e: Point[]) => (span(e[1]!, e[5]!) + span(e[2]!, e[4]!)) / (2 * span(e[0]!, e[3]!));

/** The mean brightness of a box of the photo, from every fourth pixel of every fourth row. */
function lightIn(photo: Rgb, box: Box): number {
  const [x0, y0] = [Math.max(0, Math.floor(box.x)), Math.max(0, Math.floor(box.y))];
  const [x1, y1] = [Math.min(photo.width, Math.ceil(box.x + box.width)), Math.min(photo.height, Math.ceil(box.y + box.height))];
  let [sum, n] = [0, 0];
  for (let y = y0; y < y1; y += 4)
    for (let x = x0; x < x1; x += 4) {
      const i = (y * photo.width + x) * 3;
      sum += 0.299 * photo.data[i]! + 0.587 * photo.data[i + 1]! + 0.114 * photo.data[i + 2]!;
      n++;
    }
  return n ? sum / n : 0;
}

/**
 * The likeliest face of a photo with its signs, and how many faces it shows; described (its
 * descriptor) unless `describe` is false; null where no face is found. `at`: where the face is
 * already known to be (found in a smaller picture of the photo), so that it is not looked for again.
 */
export async function describeFace(photo: Rgb, describe = true, at?: Box): Promise<FaceFound | null> {
  const { api, tf } = await faceApi();
  const image = tf.tensor3d(photo.data, [photo.height, photo.width, 3], 'int32');
  try {
    const { face, counted, several } = photoFace(at ? [{ score: 1, box: at }] : await detect(api, tf, image));
    if (!face) return null;
    // The eyes level: the photo turned about the point between them, the face's box turned with
    // it, its landmarks found again there, and the face described from them, cut out as dlib
    // cuts faces out to describe them (face-api's own order, with one detection rather than two).
    const landmarks = await landmarksIn(api, image, face.box);
    const [left, right] = [centre(landmarks.getLeftEye()), centre(landmarks.getRightEye())];
    const angle = Math.atan2(right.y - left.y, right.x - left.x);
    const between = { x: (left.x + right.x) / 2, y: (left.y + right.y) / 2 };
    // The nose's tip between the two sides of the jaw: the far cheek narrows as the head turns.
    const [nose, jaw] = [landmarks.getNose()[3]!, landmarks.getJawOutline()];
    const [toLeft, toRight] = [span(nose, jaw[0]!), span(nose, jaw[16]!)];
    const signs = {
      box: face.box,
      faces: counted,
      several,
      share: face.box.height / photo.height,
      light: lightIn(photo, face.box),
      eyes: (eyeOpening(landmarks.getLeftEye()) + eyeOpening(landmarks.getRightEye())) / 2,
      turn: (toRight - toLeft) / (toRight + toLeft),
    };
    if (!describe) return { descriptor: null, ...signs };
    const level = tf.tidy(() =>
      tf.image
        .rotateWithOffset(tf.expandDims<import('@tensorflow/tfjs').Tensor4D>(image, 0).toFloat(), angle, 0, [between.x / photo.width, between.y / photo.height])
        .squeeze<Tensor3D>([0])
        .toInt(),
    );
    try {
      const levelled = await landmarksIn(api, level, turnedBox(face.box, between, angle));
      const [aligned] = await api.extractFaceTensors(level as unknown as ApiTensor, [levelled.align(null, { useDlibAlignment: true })]);
      try {
        // The face and its mirror image described (one pass of the network for both), and the two
        // averaged: what one side of a face shows by chance (light, a turn) counts half, and
        // look-alikes fell apart further.
        const mirrored = tf.reverse(aligned as unknown as Tensor3D, 1);
        let both: Float32Array[];
        try {
          both = (await api.nets.faceRecognitionNet.computeFaceDescriptor([aligned!, mirrored as unknown as ApiTensor])) as Float32Array[];
        } finally {
          mirrored.dispose();
        }
        const [descriptor, other] = both as [Float32Array, Float32Array];
        for (let i = 0; i < descriptor.length; i++) descriptor[i] = (descriptor[i]! + other[i]!) / 2;
        return { descriptor, ...signs };
      } finally {
        aligned!.dispose();
      }
    } finally {
      level.dispose();
    }
  } finally {
    image.dispose();
  }
}

/** How far apart two faces' descriptors are (Euclidean): the same person below the calibrated threshold. */
export function faceDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(sum);
}

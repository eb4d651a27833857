/**
 * Faces in photos, described and compared, offline: face-api (the npm package
 * @vladmandic/face-api, on TensorFlow.js's WebAssembly backend), with the models that package
 * ships, loaded from disk the first time a face is looked for, in the process that reads.
 *
 * A face is found by SSD MobileNet, or, where it finds none, by the tiny detector (it found the
 * faces SSD missed in small, tightly cut photos); its 68 landmarks give the angle of the eyes,
 * and the photo is turned about them until they are level and the face found again: the
 * descriptor (dlib's ResNet, 128 numbers) was trained on level faces, and told people apart
 * much better on turned ones after the turn (bench/faces/run.ts). Two faces are the same person
 * when their descriptors are closer than a threshold that the benchmark calibrates on labelled
 * pairs.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** A photo's pixels, in colour (RGB, 3 bytes a pixel). */
export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface FaceFound {
  /** The face's descriptor, to compare with another's (faceDistance). */
  descriptor: Float32Array;
  /** Where the face lies in the photo, in pixels. */
  box: { x: number; y: number; width: number; height: number };
  /** How many faces the photo shows. */
  faces: number;
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
    return { api, tf };
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

const MIN_CONFIDENCE = 0.2;

type Tensor3D = import('@tensorflow/tfjs').Tensor3D;
/** face-api's own declaration of the tensors it takes. */
type ApiInput = Parameters<FaceApi['detectAllFaces']>[0];

/** At most this many faces are looked at in a photo: enough to tell one face from several. */
const MOST_FACES = 5;
const ssd = (api: FaceApi) => new api.SsdMobilenetv1Options({ minConfidence: MIN_CONFIDENCE, maxResults: MOST_FACES });
const tiny = (api: FaceApi) => new api.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: MIN_CONFIDENCE });

/** The faces in a picture with their landmarks, found by SSD, or by the tiny detector where SSD finds none. */
async function detect(api: FaceApi, image: Tensor3D) {
  const input = image as unknown as ApiInput;
  const faces = await api.detectAllFaces(input, ssd(api)).withFaceLandmarks();
  return faces.length ? faces : api.detectAllFaces(input, tiny(api)).withFaceLandmarks();
}

/** The likeliest face of a picture, described. */
async function describeLikeliest(api: FaceApi, image: Tensor3D) {
  const input = image as unknown as ApiInput;
  return (await api.detectSingleFace(input, ssd(api)).withFaceLandmarks().withFaceDescriptor()) ?? (await api.detectSingleFace(input, tiny(api)).withFaceLandmarks().withFaceDescriptor());
}

const centre = (points: { x: number; y: number }[]) => points.reduce((c, p) => ({ x: c.x + p.x / points.length, y: c.y + p.y / points.length }), { x: 0, y: 0 });

/** The likeliest face of a photo, described, and how many faces it shows; null where no face is found. */
export async function describeFace(photo: Rgb): Promise<FaceFound | null> {
  const { api, tf } = await faceApi();
  const image = tf.tensor3d(photo.data, [photo.height, photo.width, 3], 'int32');
  try {
    const faces = await detect(api, image);
    const face = faces.sort((a, b) => b.detection.score - a.detection.score)[0];
    if (!face) return null;
    // The eyes level: turned about the point between them, and the face found again there.
    const [left, right] = [centre(face.landmarks.getLeftEye()), centre(face.landmarks.getRightEye())];
    const angle = Math.atan2(right.y - left.y, right.x - left.x);
    const level = tf.tidy(() =>
      tf.image
        .rotateWithOffset(tf.expandDims<import('@tensorflow/tfjs').Tensor4D>(image, 0).toFloat(), angle, 0, [(left.x + right.x) / 2 / photo.width, (left.y + right.y) / 2 / photo.height])
        .squeeze<Tensor3D>([0])
        .toInt(),
    );
    try {
      const described = (await describeLikeliest(api, level)) ?? (await describeLikeliest(api, image));
      if (!described) return null;
      const { x, y, width, height } = face.detection.box;
      return { descriptor: described.descriptor, box: { x, y, width, height }, faces: faces.length };
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

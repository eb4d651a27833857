/**
 * Faces found by SSD MobileNet v1 on face-api's weights, run layer by layer. face-api runs the
 * whole network in one tf.tidy, which holds every layer's output until the last: on the
 * WebAssembly backend, whose memory only grows, that set the process's size for good. Here each
 * layer's input is freed as soon as the next layer is made, and only the six maps the boxes are
 * predicted from are kept, each until its boxes are: the same network, the same answers
 * (ssd.test.ts compares them with face-api's), a fraction of the memory at its peak.
 */
import type * as TfModule from '@tensorflow/tfjs';

type Tf = typeof import('@tensorflow/tfjs');
type T4 = TfModule.Tensor4D;
type T1 = TfModule.Tensor1D;

interface PointwiseParams {
  filters: T4;
  batch_norm_offset: T1;
}
interface DepthwiseParams {
  filters: T4;
  batch_norm_scale: T1;
  batch_norm_offset: T1;
  batch_norm_mean: T1;
  batch_norm_variance: T1;
}
interface ConvParams {
  filters: T4;
  bias: T1;
}
/** The weights as face-api's SsdMobilenetv1 holds them (its `params`). */
export interface SsdParams {
  mobilenetv1: { conv_0: PointwiseParams } & Record<`conv_${number}`, { depthwise_conv: DepthwiseParams; pointwise_conv: PointwiseParams }>;
  prediction_layer: Record<`conv_${number}`, PointwiseParams> & Record<`box_predictor_${number}`, { box_encoding_predictor: ConvParams; class_predictor: ConvParams }>;
  output_layer: { extra_dim: TfModule.Tensor3D };
}

/** A face found: its box in the photo's pixels, and how sure the network is. */
export interface Found {
  score: number;
  box: { x: number; y: number; width: number; height: number };
}

const INPUT = 512;
const EPSILON = 0.0010000000474974513;

/** A convolution with its bias and activation in one operation: one tensor made, and nothing between. */
interface Conv {
  filter: T4;
  bias: T1;
  depthwise: boolean;
  strides: 1 | 2;
  activation: 'relu6' | 'linear';
}

/**
 * The network as fused convolutions, made once from face-api's weights: each depthwise layer's
 * batch normalisation folded into its filter and bias (scale / √(variance + ε) per channel), so
 * that a layer is one operation with one output rather than three.
 */
const prepared = new WeakMap<SsdParams, { backbone: Conv[]; extra: Conv[]; predictors: { box: Conv; score: Conv }[] }>();
function network(tf: Tf, params: SsdParams) {
  let made = prepared.get(params);
  if (made) return made;
  const pointwise = (p: PointwiseParams, strides: 1 | 2): Conv => ({ filter: p.filters, bias: p.batch_norm_offset, depthwise: false, strides, activation: 'relu6' });
  const depthwise = (p: DepthwiseParams, strides: 1 | 2): Conv =>
    tf.tidy(() => {
      const scale = tf.div(p.batch_norm_scale, tf.sqrt(tf.add(p.batch_norm_variance, EPSILON)));
      const filter = tf.mul<T4>(p.filters, tf.reshape(scale, [1, 1, -1, 1]));
      const bias = tf.sub<T1>(p.batch_norm_offset, tf.mul(p.batch_norm_mean, scale));
      return { filter, bias, depthwise: true, strides, activation: 'relu6' as const };
    });
  const linear = (p: ConvParams): Conv => ({ filter: p.filters, bias: p.bias, depthwise: false, strides: 1, activation: 'linear' });
  const net = params.mobilenetv1;
  const backbone = [pointwise(net.conv_0, 2)];
  for (let i = 1; i <= 13; i++) backbone.push(depthwise(net[`conv_${i}`]!.depthwise_conv, [2, 4, 6, 12].includes(i) ? 2 : 1), pointwise(net[`conv_${i}`]!.pointwise_conv, 1));
  const extra = Array.from({ length: 8 }, (_, i) => pointwise(params.prediction_layer[`conv_${i}`]!, i % 2 ? 2 : 1));
  const predictors = Array.from({ length: 6 }, (_, k) => {
    const p = params.prediction_layer[`box_predictor_${k}`]!;
    return { box: linear(p.box_encoding_predictor), score: linear(p.class_predictor) };
  });
  made = { backbone, extra, predictors };
  prepared.set(params, made);
  return made;
}

/** `c` run on `x`; `x` freed unless still wanted. */
function run(tf: Tf, c: Conv, x: T4, keep = false): T4 {
  const args = { x, filter: c.filter, strides: c.strides, pad: 'same' as const, bias: c.bias, activation: c.activation };
  const out = c.depthwise ? tf.fused.depthwiseConv2d(args) : tf.fused.conv2d(args);
  if (!keep) x.dispose();
  return out;
}

/**
 * The faces in a picture (height × width × 3, 0-255), the likeliest first: at most `most`, each
 * at least `minScore` sure, none overlapping another by half or more.
 */
export async function locateFaces(tf: Tf, params: SsdParams, image: TfModule.Tensor3D, most: number, minScore: number): Promise<Found[]> {
  const [height, width] = image.shape;
  const side = Math.max(height, width);
  const scale = INPUT / side;
  // Fitted into the network's square, its top left corner kept (the rest black), and brought to -1..1.
  let x = tf.tidy((): T4 => {
    const fitted = tf.image.resizeBilinear(image.toFloat(), [Math.max(1, Math.round(height * scale)), Math.max(1, Math.round(width * scale))]);
    const square = tf.pad(fitted, [
      [0, INPUT - fitted.shape[0]],
      [0, INPUT - fitted.shape[1]],
      [0, 0],
    ]);
    return tf.sub<T4>(tf.mul<T4>(square.expandDims<T4>(0), 0.007843137718737125), 1);
  });

  const { backbone, extra, predictors } = network(tf, params);
  const encodings: TfModule.Tensor[] = [];
  const classes: TfModule.Tensor[] = [];
  // The boxes predicted from one of the six maps: offsets from its anchors, and how face-like each is.
  const predict = (k: number, map: T4) => {
    encodings[k] = tf.tidy(() => tf.reshape(run(tf, predictors[k]!.box, map, true), [-1, 4]));
    classes[k] = tf.tidy(() => tf.reshape(run(tf, predictors[k]!.score, map, true), [-1, 3]));
  };
  // MobileNet (the 11th pair's map and the last predict boxes), then the four pairs of extra layers (each pair's second does).
  backbone.forEach((c, i) => {
    x = run(tf, c, x);
    if (i === 22) predict(0, x);
  });
  predict(1, x);
  extra.forEach((c, i) => {
    x = run(tf, c, x);
    if (i % 2) predict(2 + (i >> 1), x);
  });
  x.dispose();

  const [encoded, scored] = tf.tidy(() => [tf.concat(encodings), tf.sigmoid(tf.slice(tf.concat(classes), [0, 1], [-1, 1])).reshape([-1])]);
  for (const t of [...encodings, ...classes]) t.dispose();
  const [codes, scores, anchors] = [await encoded.data(), await scored!.data(), await params.output_layer.extra_dim.data()];
  encoded.dispose();

  // Each anchor moved by its encoding (the SSD box coder: centre offsets over 10, log sizes over 5), as top, left, bottom, right.
  const boxes = new Float32Array(codes.length);
  for (let a = 0; a < codes.length; a += 4) {
    const [h, w] = [anchors[a + 2]! - anchors[a]!, anchors[a + 3]! - anchors[a + 1]!];
    const [cy, cx] = [anchors[a]! + h / 2 + (codes[a]! / 10) * h, anchors[a + 1]! + w / 2 + (codes[a + 1]! / 10) * w];
    const [hh, hw] = [(Math.exp(codes[a + 2]! / 5) * h) / 2, (Math.exp(codes[a + 3]! / 5) * w) / 2];
    boxes.set([cy - hh, cx - hw, cy + hh, cx + hw], a);
  }
  const boxesT = tf.tensor2d(boxes, [boxes.length / 4, 4]);
  const kept = await tf.image.nonMaxSuppressionAsync(boxesT, scored as T1, most, 0.5, minScore);
  const indices = await kept.data();
  boxesT.dispose();
  scored!.dispose();
  kept.dispose();

  // From the square's 0-1 back to the picture's pixels, within the picture.
  const px = (v: number, limit: number) => Math.min(limit, Math.max(0, v * side));
  return [...indices].map((i) => {
    const [top, left, bottom, right] = [px(boxes[i * 4]!, height), px(boxes[i * 4 + 1]!, width), px(boxes[i * 4 + 2]!, height), px(boxes[i * 4 + 3]!, width)];
    return { score: scores[i]!, box: { x: left, y: top, width: right - left, height: bottom - top } };
  });
}

/**
 * face-api's tiny face detector with its network's body run as fused layers. face-api makes each
 * layer of five operations (a convolution, its bias, and a leaky ReLU of three more), each output
 * a new tensor held until the layer ends: at 320 pixels, six maps of 318 × 318 × 16 floats at
 * once. On the WebAssembly backend, whose memory only grows, that peak set the process's size
 * for good. Here a layer is one fused convolution (bias and leaky ReLU in it), and each layer's
 * input is freed as soon as its output is made. face-api's own steps before (the photo fitted
 * and normalised) and after (the boxes decoded, overlapping ones dropped) are kept: the same
 * network, the same answers (faces.test.ts compares them).
 */
import type * as TfModule from '@tensorflow/tfjs';

type Tf = typeof import('@tensorflow/tfjs');
type T4 = TfModule.Tensor4D;
type T1 = TfModule.Tensor1D;

interface ConvParams {
  filters: T4;
  bias: T1;
}
interface SeparableParams {
  depthwise_filter: T4;
  pointwise_filter: T4;
  bias: T1;
}
/** The weights as face-api's TinyFaceDetector holds them (its `params`). */
interface TinyParams {
  conv0: ConvParams;
  conv1: SeparableParams;
  conv2: SeparableParams;
  conv3: SeparableParams;
  conv4: SeparableParams;
  conv5: SeparableParams;
  conv6?: SeparableParams;
  conv7?: SeparableParams;
  conv8: ConvParams;
}
/** The part of face-api's TinyFaceDetector replaced. */
interface TinyNet {
  runMobilenet(x: T4, params: TinyParams): T4;
}

/** face-api's leaky ReLU: max(x, 0.1x). */
const ALPHA = 0.10000000149011612;

/** `step` applied to `x`, and `x` freed. */
function then(x: T4, step: (x: T4) => T4): T4 {
  const out = step(x);
  x.dispose();
  return out;
}

/** face-api's tiny detector (its `nets.tinyFaceDetector`) made to run its body as fused layers, each input freed once used. */
export function leanTinyDetector(tf: Tf, detector: unknown): void {
  const net = detector as TinyNet;
  const pool = (strides: 1 | 2) => (x: T4) => tf.maxPool(x, [2, 2], strides, 'same');
  // face-api pads by a pixel each side, then convolves 'valid': 'same' for a 3 × 3 kernel at stride 1.
  const separable = (p: SeparableParams) => (x: T4) => {
    const spread = tf.depthwiseConv2d(x, p.depthwise_filter, 1, 'same');
    return then(spread, (s) => tf.fused.conv2d({ x: s, filter: p.pointwise_filter, strides: 1, pad: 'valid', bias: p.bias, activation: 'leakyrelu', leakyreluAlpha: ALPHA }));
  };
  net.runMobilenet = (x, params) => {
    // The first layer's input is face-api's (its tidy frees it): kept here.
    let out = tf.fused.conv2d({ x, filter: params.conv0.filters, strides: 1, pad: 'valid', bias: params.conv0.bias, activation: 'leakyrelu', leakyreluAlpha: ALPHA });
    for (const p of [params.conv1, params.conv2, params.conv3, params.conv4]) out = then(then(out, pool(2)), separable(p));
    out = then(then(then(out, pool(2)), separable(params.conv5)), pool(1));
    for (const p of [params.conv6, params.conv7]) if (p) out = then(out, separable(p));
    return then(out, (o) => tf.fused.conv2d({ x: o, filter: params.conv8.filters, strides: 1, pad: 'valid', bias: params.conv8.bias }));
  };
}

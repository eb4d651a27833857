import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { comparePhotos, faceIn } from './compare.js';
import { movement } from './selfie.js';
import { locateFaces, type SsdParams } from './ssd.js';

// Two public-domain portraits (test/fixtures/faces/SOURCES.md): the astronaut Eileen Collins, and Grace Hopper.
const collins = readFileSync(new URL('../../../test/fixtures/faces/collins.jpg', import.meta.url));
const hopper = readFileSync(new URL('../../../test/fixtures/faces/hopper.jpg', import.meta.url));

/** Another photo of the same face: turned, smaller, darker, re-encoded worse. */
const retaken = async (photo: Buffer) => sharp(photo).rotate(18, { background: '#777' }).resize(560).modulate({ brightness: 0.8 }).jpeg({ quality: 60 }).toBuffer();

describe('faces compared', () => {
  it('finds the faces face-api finds, run layer by layer', async () => {
    await faceIn(collins, false); // loads the models
    const require = createRequire(import.meta.url);
    const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as typeof import('@vladmandic/face-api');
    const tf = require('@tensorflow/tfjs') as typeof import('@tensorflow/tfjs');
    for (const photo of [collins, hopper]) {
      const { data, info } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const image = tf.tensor3d(data, [info.height, info.width, 3], 'int32');
      const theirs = await api.detectAllFaces(image as never, new api.SsdMobilenetv1Options({ minConfidence: 0.5, maxResults: 5 }));
      const ours = await locateFaces(tf, api.nets.ssdMobilenetv1.params as unknown as SsdParams, image, 5, 0.5);
      image.dispose();
      assert.equal(ours.length, theirs.length);
      for (const [i, face] of ours.entries()) {
        const box = theirs[i]!.box;
        assert.ok(Math.abs(face.score - theirs[i]!.score) < 0.02, `score ${face.score} against ${theirs[i]!.score}`);
        for (const k of ['x', 'y', 'width', 'height'] as const) assert.ok(Math.abs(face.box[k] - box[k]) < 3, `${k} ${face.box[k]} against ${box[k]}`);
      }
    }
  });

  it("runs the tiny detector's network layer by layer to face-api's own answers", async () => {
    await faceIn(collins, false); // loads the models
    const require = createRequire(import.meta.url);
    const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as typeof import('@vladmandic/face-api');
    const tf = require('@tensorflow/tfjs') as typeof import('@tensorflow/tfjs');
    type Body = { runMobilenet(x: unknown, params: unknown): import('@tensorflow/tfjs').Tensor4D; params: unknown };
    const net = api.nets.tinyFaceDetector as unknown as Body;
    const faceApis = Object.getPrototypeOf(net) as Body;
    for (const photo of [collins, hopper]) {
      const { data } = await sharp(photo).removeAlpha().resize(320, 320, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
      const x = tf.tidy(() => tf.tensor4d(data, [1, 320, 320, 3], 'int32').toFloat().div(255));
      const [ours, theirs] = [net.runMobilenet(x, net.params), tf.tidy(() => faceApis.runMobilenet.call(net, x, net.params))];
      assert.deepEqual(ours.shape, theirs.shape);
      const most = tf.tidy(() => tf.max(tf.abs(tf.sub(ours, theirs))).dataSync()[0]!);
      assert.ok(most < 1e-3, `differs by ${most}`);
      tf.dispose([x, ours, theirs]);
    }
  });

  it('takes a face turned, smaller and darker for the same person, and another person for no match', async () => {
    const same = await comparePhotos(collins, await retaken(collins));
    assert.equal(same.verdict, 'same_person');
    assert.equal(same.strength, 'very_likely');
    assert.ok(same.similarity! > same.threshold);
    assert.deepEqual(same.problems, { a: [], b: [] });
    const other = await comparePhotos(collins, hopper);
    assert.notEqual(other.verdict, 'same_person');
    assert.ok(other.similarity! < other.threshold, `similarity ${other.similarity}`);
  });

  it('says what keeps a photo from being compared: no face, several, too dark', async () => {
    const blank = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#c8b9a5' } })
      .jpeg()
      .toBuffer();
    const none = await comparePhotos(collins, blank);
    assert.deepEqual(none.problems.b, ['no_face']);
    assert.equal(none.similarity, null);
    assert.equal(none.verdict, 'cannot_tell');

    // Two people of one size (Hopper's portrait is cut closer: made smaller, her face is Collins's size).
    const pair = await sharp({ create: { width: 1000, height: 620, channels: 3, background: '#ffffff' } })
      .composite([
        { input: collins, left: 0, top: 24 },
        { input: await sharp(hopper).resize({ width: 260 }).toBuffer(), left: 560, top: 316 },
      ])
      .jpeg()
      .toBuffer();
    const group = await comparePhotos(collins, pair);
    assert.ok(group.problems.b.includes('several_faces'));
    assert.equal(group.verdict, 'cannot_tell');

    // One face much the largest is the one meant: a guest with someone small behind them, or a
    // document's portrait beside its ghost image, is compared, not refused as several faces.
    const small = await sharp(hopper).resize({ width: 130 }).toBuffer();
    const ghost = await sharp(collins).resize({ width: 220 }).grayscale().toBuffer();
    for (const [behind, meant] of [
      [small, 'another person'],
      [ghost, 'the ghost image'],
    ] as const) {
      const busy = await sharp({ create: { width: 1000, height: 620, channels: 3, background: '#ffffff' } })
        .composite([
          { input: collins, left: 0, top: 24 },
          { input: behind, left: 600, top: 340 },
        ])
        .jpeg()
        .toBuffer();
      assert.equal((await faceIn(busy, false))?.faces, 2, `${meant}: both faces seen`);
      const [alone, withIt] = [await comparePhotos(collins, collins), await comparePhotos(collins, busy)];
      assert.deepEqual(withIt.problems.b, [], `${meant}: ${withIt.problems.b}`);
      assert.equal(withIt.verdict, 'same_person', meant);
      assert.ok(withIt.similarity! > alone.threshold, `${meant}: ${withIt.similarity}`);
    }

    const dark = await sharp(collins).linear(0.12, 0).jpeg().toBuffer();
    assert.ok((await comparePhotos(collins, dark)).problems.b.includes('too_dark'));
  });
});

describe('liveness across the camera frames', () => {
  it('sees a head turn where the nose crosses from one cheek towards the other, and a blink where the eyes shut and open', () => {
    const frame = (turn: number, eyes: number) => ({ turn, eyes });
    const result = (faces: { turn: number; eyes: number }[]) => Object.fromEntries(movement(faces).map((s) => [s.code, s.result]));
    assert.deepEqual(result([frame(-0.2, 0.3), frame(0, 0.12), frame(0.2, 0.31)]), { head_turn: 'passed', blink: 'passed' });
    assert.deepEqual(result([frame(0.02, 0.3), frame(0.04, 0.29), frame(0.03, 0.3)]), { head_turn: 'failed', blink: 'failed' });
    assert.deepEqual(result([frame(0, 0.3)]), { head_turn: 'not_checked', blink: 'not_checked' });
  });
});

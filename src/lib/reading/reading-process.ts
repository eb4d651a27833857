/**
 * A reading process (process.ts starts them): reads the documents it is sent, one after another,
 * compares selfies and photos' faces (lib/faces, whose models it loads the first time it is sent
 * one), and leaves when its parent does. Reading decodes large photos in native code (sharp, and
 * Tesseract's WebAssembly): in a process of its own, that memory goes back to the system when the
 * process ends, and the process that runs jobs or answers requests never holds it.
 */
import sharp from 'sharp';
import { comparePhotos } from '../faces/compare.js';
import { checkSelfie } from '../faces/selfie.js';
import { ImageRefused } from '../documents/image.js';
import type { Task } from './process.js';
import { readDocumentSet } from '../documents/set.js';

// No photo is decoded twice: libvips' cache of operations would only hold their pixels.
sharp.cache(false);

const buffer = (p: Uint8Array) => Buffer.from(p.buffer, p.byteOffset, p.byteLength);

process.on('message', async (task: Task) => {
  try {
    if (task.task === 'selfie') process.send?.({ selfie: await checkSelfie(task.documents.map(buffer), buffer(task.selfie), task.frames.map(buffer)) });
    else if (task.task === 'compare') process.send?.({ comparison: await comparePhotos(buffer(task.a), buffer(task.b)) });
    else {
      const { reading, crop, pageError } = await readDocumentSet(task.photos.map(buffer), new Date(task.today));
      process.send?.({ reading, crop: crop && new Uint8Array(crop), pageError });
    }
  } catch (err) {
    process.send?.(err instanceof ImageRefused ? { refused: err.message } : { failed: (err as Error).message });
  }
  // The document's decoded pictures are garbage once it is answered: collected now (the process
  // runs with --expose-gc) and handed back to the system, they are not still held when the next
  // document's are made.
  globalThis.gc?.();
});
process.on('disconnect', () => process.exit(0));

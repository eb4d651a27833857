/**
 * A reading process (process.ts starts them): reads the documents it is sent, one after another,
 * and leaves when its parent does. Reading decodes large photos in native code (sharp, and
 * Tesseract's WebAssembly): in a process of its own, that memory goes back to the system when the
 * process ends, and the process that runs jobs or answers requests never holds it.
 */
import sharp from 'sharp';
import { ImageRefused } from './image.js';
import { readDocumentSet } from './set.js';

// No photo is decoded twice: libvips' cache of operations would only hold their pixels.
sharp.cache(false);

process.on('message', async ({ photos, today }: { photos: Uint8Array[]; today: string }) => {
  try {
    const { reading, crop, pageError } = await readDocumentSet(
      photos.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)),
      new Date(today),
    );
    process.send?.({ reading, crop: crop && new Uint8Array(crop), pageError });
  } catch (err) {
    process.send?.(err instanceof ImageRefused ? { refused: err.message } : { failed: (err as Error).message });
  }
  // The document's decoded pictures are garbage once it is answered: collected now (the process
  // runs with --expose-gc) and handed back to the system, they are not still held when the next
  // document's are made.
  globalThis.gc?.();
});
process.on('disconnect', () => process.exit(0));

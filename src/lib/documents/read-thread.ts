/**
 * One document read in a thread of its own (readInThread in thread.ts starts it): the reading is
 * a second of CPU that would otherwise hold the thread it runs on, and under `guestscreen start`
 * that thread answers requests too. Where a zone was read, the document is cropped out of the
 * photo for the host too, while the photo is decoded here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { cropDocument, ImageRefused } from './image.js';
import { readDocumentPhoto } from './read.js';

const { data, today } = workerData as { data: Uint8Array; today: string };
try {
  const photo = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const reading = await readDocumentPhoto(photo, new Date(today));
  const crop = reading.document && reading.zone_corners ? await cropDocument(photo, reading.zone_corners, reading.document.format).catch(() => null) : null;
  parentPort?.postMessage({ reading, crop: crop && new Uint8Array(crop) });
} catch (err) {
  parentPort?.postMessage(err instanceof ImageRefused ? { refused: err.message } : { failed: (err as Error).message });
}

/**
 * One document read in a thread of its own (readInThread in thread.ts starts it): the reading is
 * a second of CPU that would otherwise hold the thread it runs on, and under `guestscreen start`
 * that thread answers requests too.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ImageRefused } from './image.js';
import { readDocumentPhoto } from './read.js';

const { data, today } = workerData as { data: Uint8Array; today: string };
try {
  parentPort?.postMessage({ reading: await readDocumentPhoto(Buffer.from(data.buffer, data.byteOffset, data.byteLength), new Date(today)) });
} catch (err) {
  parentPort?.postMessage(err instanceof ImageRefused ? { refused: err.message } : { failed: (err as Error).message });
}

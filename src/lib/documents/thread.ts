import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ImageRefused } from './image.js';
import type { DocumentReading } from './read.js';

// In the sources (tsx) the thread's file is TypeScript and tsx must load it; built, it sits in dist/ beside this chunk.
const fromSources = path.extname(fileURLToPath(import.meta.url)) === '.ts';
const ENTRY = new URL(`./read-thread${fromSources ? '.ts' : '.js'}`, import.meta.url);

/**
 * Reads a document photo in a thread of its own, so the thread that asked keeps answering (a
 * read is about a second of CPU): the reading, and the document cropped out of the photo (a JPEG)
 * where its zone was read. Throws ImageRefused for what is no photo, Error for the rest; a read
 * that takes longer than `timeoutMs` is stopped.
 */
export function readInThread(data: Buffer, today: Date, timeoutMs = 30_000): Promise<{ reading: DocumentReading; crop: Buffer | null }> {
  const workerData = { data: new Uint8Array(data), today: today.toISOString() };
  const thread = fromSources
    ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); });`, { eval: true, workerData })
    : new Worker(ENTRY, { workerData });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void thread.terminate();
      reject(new Error(`the reading took longer than ${timeoutMs / 1000} s`));
    }, timeoutMs);
    thread.once('message', (m: { reading?: DocumentReading; crop?: Uint8Array | null; refused?: string; failed?: string }) => {
      clearTimeout(timer);
      void thread.terminate();
      if (m.reading) resolve({ reading: m.reading, crop: m.crop ? Buffer.from(m.crop.buffer, m.crop.byteOffset, m.crop.byteLength) : null });
      else if (m.refused) reject(new ImageRefused(m.refused));
      else reject(new Error(m.failed ?? 'the reading failed'));
    });
    thread.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    thread.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the reading thread exited (code ${code})`));
    });
  });
}

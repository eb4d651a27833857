import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectYoung } from '../collect.js';
import type { Comparison, FaceProblem } from '../faces/compare.js';
import type { SelfieCheck } from '../faces/selfie.js';
import { ImageRefused } from '../documents/image.js';
import type { DocumentReading } from '../documents/read.js';
import type { SetReading } from '../documents/set.js';

// In the sources (tsx) the process's file is TypeScript and tsx must load it; built, it sits in dist/ beside this chunk.
const fromSources = path.extname(fileURLToPath(import.meta.url)) === '.ts';
const ENTRY = fileURLToPath(new URL(`./reading-process${fromSources ? '.ts' : '.js'}`, import.meta.url));

/**
 * How many documents a process has read at once. A worker runs many jobs at a time, and a
 * morning of check-ins sends many photos together: each read holds its decoded photo in colour
 * and grey, so reads beyond the cores would only wait for them while holding their memory. One
 * core is left to the rest (the API under `guestscreen start`, the other jobs).
 */
const READS_AT_ONCE = Math.max(1, Math.min(2, availableParallelism() - 1));
/** A reading process with nothing to read leaves after this long, and gives its memory back. */
const IDLE_MS = 60_000;

/** What a reading process is asked: a document's photos read, a selfie checked against a document, two photos' faces compared. */
export type Task =
  { task: 'read'; photos: Uint8Array[]; today: string } | { task: 'selfie'; documents: Uint8Array[]; selfie: Uint8Array; frames: Uint8Array[] } | { task: 'compare'; a: Uint8Array; b: Uint8Array };
export type PhotoComparison = Comparison & { problems: { a: FaceProblem[]; b: FaceProblem[] } };
type Answer = {
  reading?: DocumentReading;
  crop?: Uint8Array | null;
  pageError?: string;
  selfie?: SelfieCheck;
  comparison?: PhotoComparison;
  refused?: string;
  failed?: string;
};

/**
 * A process that reads documents one after another. A process rather than a thread: the decoders'
 * memory is native, and glibc's allocator keeps much of what threads free in arenas of its own,
 * so a process that read photos in threads grew by hundreds of megabytes and kept them. In a
 * process of its own, with the allocator held to two arenas and blocks of 128 kB or more mapped
 * apart (handed back as they are freed, however many were freed before), it is bounded, and all
 * of it goes back to the system when the process leaves. --expose-gc: it collects after each
 * document (reading-process.ts). A young generation of 1 MB a half: the pictures live outside the
 * JavaScript heap, the objects inside it are few and short-lived, and V8's default young
 * generation only made the process larger, not faster (docs/identity-documents.md).
 */
class ReadingProcess {
  readonly #child: ChildProcess = fork(ENTRY, [], {
    execArgv: [...(fromSources ? ['--import', 'tsx'] : []), '--expose-gc', '--max-semi-space-size=1'],
    env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  #pending: { resolve(a: Answer): void; reject(err: Error): void } | undefined;
  #idle: NodeJS.Timeout | undefined;
  gone = false;

  constructor(private readonly onGone: (p: ReadingProcess) => void) {
    this.#child.on('message', (m: Answer) => {
      const p = this.#pending;
      this.#pending = undefined;
      p?.resolve(m);
    });
    this.#child.on('error', (err) => this.end(err));
    this.#child.on('exit', (code, signal) => this.end(new Error(`the reading process stopped (${signal ?? `code ${code}`})`)));
    // It keeps nobody alive: a read in flight is held by its time limit.
    this.#child.unref();
    this.#child.channel?.unref();
  }

  ask(task: Task, timeoutMs: number): Promise<Answer> {
    clearTimeout(this.#idle);
    // Named apart: the timer below must not hold the task, whose photos are garbage once sent.
    const what = task.task === 'read' ? 'reading' : 'comparison';
    const answer = new Promise<Answer>((resolve, reject) => {
      // A read past its time is stopped with its process: it is busy in a loop and cannot be asked.
      const timer = setTimeout(() => this.end(new Error(`the ${what} took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      this.#pending = {
        resolve: (a) => {
          clearTimeout(timer);
          this.#idle = setTimeout(() => this.end(), IDLE_MS);
          this.#idle.unref();
          resolve(a);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
    });
    // Sent, the photos here are garbage (nothing above holds them while the answer is awaited):
    // collected at once, they are not held while the next documents' are opened (collect.ts).
    this.#child.send(task, () => collectYoung());
    return answer;
  }

  end(err?: Error) {
    if (this.gone) return;
    this.gone = true;
    clearTimeout(this.#idle);
    this.onGone(this);
    this.#pending?.reject(err ?? new Error('the reading process stopped'));
    this.#pending = undefined;
    this.#child.kill('SIGKILL');
  }
}

const free: ReadingProcess[] = [];
const all = new Set<ReadingProcess>();
const line: ((p: ReadingProcess | undefined) => void)[] = [];

const forget = (p: ReadingProcess) => {
  all.delete(p);
  const i = free.indexOf(p);
  if (i >= 0) free.splice(i, 1);
};

/** A process to read in: a free one, a new one while there are fewer than READS_AT_ONCE, else the next one given back. */
async function take(): Promise<ReadingProcess> {
  const idle = free.pop();
  if (idle) return idle;
  if (all.size < READS_AT_ONCE) {
    const p = new ReadingProcess(forget);
    all.add(p);
    return p;
  }
  // Handed over as it is given back, so that no read starting meanwhile takes it; undefined when it ended instead.
  return (await new Promise<ReadingProcess | undefined>((go) => line.push(go))) ?? take();
}

function giveBack(p: ReadingProcess) {
  const next = line.shift();
  if (p.gone) next?.(undefined);
  else if (next) next(p);
  else free.push(p);
}

const bytes = (p: Buffer) => new Uint8Array(p.buffer, p.byteOffset, p.byteLength);

/** Runs a task in a reading process once one is free; `task` makes it then (the photos it holds are opened then). */
async function inProcess(task: () => Task | Promise<Task>, timeoutMs: number): Promise<Answer> {
  const p = await take();
  try {
    const m = await p.ask(await task(), timeoutMs);
    if (m.refused) throw new ImageRefused(m.refused);
    if (m.failed) throw new Error(m.failed);
    return m;
  } finally {
    giveBack(p);
  }
}

/**
 * Reads one document's photos (set.ts) in a reading process, so the process that asked keeps
 * answering and never holds the decoders' memory. `photos` opens them (they are kept sealed) once
 * a reading process is free: documents sent while every one reads wait in line without their
 * photos open. Throws ImageRefused for what is no photo, Error for the rest; a read that takes
 * longer than `timeoutMs` is stopped.
 */
export async function readInProcess(photos: () => Buffer[] | Promise<Buffer[]>, today: Date, timeoutMs = 60_000): Promise<SetReading> {
  const m = await inProcess(async () => ({ task: 'read', photos: (await photos()).map(bytes), today: today.toISOString() }), timeoutMs);
  if (!m.reading) throw new Error('the reading failed');
  const crop = m.crop ? Buffer.from(m.crop.buffer, m.crop.byteOffset, m.crop.byteLength) : null;
  return { reading: m.reading, crop, ...(m.pageError ? { pageError: m.pageError } : {}) };
}

/** A selfie checked against the photos of the document's portrait (lib/faces/selfie.ts), in a reading process. */
export async function checkSelfieInProcess(photos: () => Promise<{ documents: Buffer[]; selfie: Buffer; frames: Buffer[] }>, timeoutMs = 60_000): Promise<SelfieCheck> {
  const m = await inProcess(async () => {
    const { documents, selfie, frames } = await photos();
    return { task: 'selfie', documents: documents.map(bytes), selfie: bytes(selfie), frames: frames.map(bytes) };
  }, timeoutMs);
  if (!m.selfie) throw new Error('the comparison failed');
  return m.selfie;
}

/** Two photos' faces compared (lib/faces/compare.ts), in a reading process. */
export async function compareInProcess(a: Buffer, b: Buffer, timeoutMs: number): Promise<PhotoComparison> {
  const m = await inProcess(() => ({ task: 'compare', a: bytes(a), b: bytes(b) }), timeoutMs);
  if (!m.comparison) throw new Error('the comparison failed');
  return m.comparison;
}

/** Stops the reading processes: a worker stopping, after its last job. */
export async function stopReadingProcesses(): Promise<void> {
  for (const p of [...all]) p.end(new Error('the worker stopped'));
}

/**
 * A thread of `guestscreen worker` that runs jobs as the main thread does, on a connection of its
 * own (startJobThreads in runtime.ts starts it). It runs no chores: the main thread's worker runs those once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from './config.js';
import { createDeps, startWorker } from './runtime.js';

const { env } = workerData as { env: Record<string, string | undefined> };
const deps = createDeps(loadConfig(env));
const worker = startWorker(deps, 'thread');
parentPort?.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  void (async () => {
    await worker.stop(10_000);
    await deps.database.close();
    parentPort?.postMessage('stopped');
  })();
});
parentPort?.postMessage('started');

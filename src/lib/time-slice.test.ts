import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeSlicer } from './time-slice.js';

test('a long loop that breathes lets a waiting callback run before it ends; one that only awaits does not', async () => {
  const hold = async (breathe: () => Promise<void>) => {
    let ranAt = -1;
    setImmediate(() => (ranAt = i));
    let i = 0;
    const until = performance.now() + 40;
    // Work that resolves at once, as a query through better-sqlite3 does.
    for (; performance.now() < until; i++) {
      await Promise.resolve();
      await breathe();
    }
    return { ranAt, rounds: i };
  };
  const breathing = await hold(timeSlicer(5));
  assert.ok(breathing.ranAt >= 0 && breathing.ranAt < breathing.rounds, 'the callback ran during the loop');
  const holding = await hold(async () => undefined);
  assert.equal(holding.ranAt, -1, 'the callback waited for the loop to end');
});

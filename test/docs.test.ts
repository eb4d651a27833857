import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

describe('the docs', () => {
  it('keep the performance page to where things stand: 150 lines at most, the history in bench/results', () => {
    const lines = readFileSync(new URL('../docs/performance.md', import.meta.url), 'utf8')
      .trimEnd()
      .split('\n').length;
    assert.ok(lines <= 150, `docs/performance.md has ${lines} lines`);
  });
});

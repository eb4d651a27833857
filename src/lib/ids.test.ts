import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { newId, newPortalToken } from './ids.js';

describe('ids and portal tokens', () => {
  it('makes distinct portal tokens of 144 random bits after the time, later ones sorting after earlier ones', async () => {
    const tokens = Array.from({ length: 10_000 }, () => newPortalToken());
    assert.equal(new Set(tokens).size, tokens.length);
    for (const t of tokens) assert.match(t, /^[0-9a-z]{9}[A-Za-z0-9_-]{24}$/);
    const before = newPortalToken();
    await sleep(3);
    const after = newPortalToken();
    assert.ok(before < after, `${before} sorts before ${after}`);
  });

  it('makes prefixed ids that sort by creation', () => {
    const ids = Array.from({ length: 1000 }, () => newId('res'));
    assert.deepEqual([...ids].sort(), ids);
    assert.match(ids[0]!, /^res_[0-9a-z]{26}$/);
  });
});

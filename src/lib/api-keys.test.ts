import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-keys.js';
import { SecretBox } from './secret-box.js';

describe('API keys', () => {
  it('have the gsk_ prefix, 32 random bytes and a valid checksum', () => {
    const key = generateApiKey();
    assert.match(key, /^gsk_[0-9A-Za-z]{49}$/);
    assert.equal(isWellFormedApiKey(key), true);
    assert.notEqual(generateApiKey(), key);
  });

  it('fail the checksum when any character changes', () => {
    const key = generateApiKey();
    for (let i = 4; i < key.length; i += 7) {
      const changed = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
      assert.equal(isWellFormedApiKey(changed), false, `position ${i}`);
    }
  });

  it('are stored as a hash that is not the key', () => {
    const key = generateApiKey();
    assert.match(hashApiKey(key), /^[0-9a-f]{64}$/);
    assert.ok(!hashApiKey(key).includes(key.slice(4, 12)));
  });
});

describe('secret box', () => {
  it('round-trips and refuses a ciphertext moved to another record', () => {
    const box = new SecretBox('x'.repeat(40));
    const sealed = box.seal('gsk_secret', 'api_key:a');
    assert.ok(!sealed.includes('gsk_secret'));
    assert.equal(box.open(sealed, 'api_key:a'), 'gsk_secret');
    assert.throws(() => box.open(sealed, 'api_key:b'));
    assert.throws(() => new SecretBox('y'.repeat(40)).open(sealed, 'api_key:a'));
  });
});

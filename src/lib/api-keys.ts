import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { base62 } from './base62.js';

// gsk_ + 43 base62 characters of 32 random bytes + 6 characters of CRC32 over the body.
// The checksum lets a secret scanner recognise a real key offline and lets the service
// turn away typos without a database round trip.
const PREFIX = 'gsk_';
const BODY_LEN = 43;
const CHECK_LEN = 6;
const KEY_PATTERN = /^gsk_[0-9A-Za-z]{49}$/;

function checksum(body: string): string {
  const c = crc32(body);
  return base62(new Uint8Array([c >>> 24, (c >>> 16) & 255, (c >>> 8) & 255, c & 255]), CHECK_LEN);
}

export function generateApiKey(): string {
  const body = base62(randomBytes(32), BODY_LEN);
  return `${PREFIX}${body}${checksum(body)}`;
}

/** True when the text has the shape and checksum of a key this service issues. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(PREFIX.length, PREFIX.length + BODY_LEN);
  return checksum(body) === key.slice(PREFIX.length + BODY_LEN);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * AES-256-GCM under a key derived from the service secret. The associated data binds a
 * ciphertext to its purpose and record, so a value copied into another row does not decrypt.
 */
export class SecretBox {
  readonly #key: Buffer;
  readonly #digestKey: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'guestscreen', 'secret-box v1', 32));
    this.#digestKey = Buffer.from(hkdfSync('sha256', secret, 'guestscreen', 'digest v1', 32));
  }

  /**
   * A keyed hash (HMAC-SHA256, hex) for finding a record by a personal value without storing
   * the value: the same input gives the same digest, and without the secret it cannot be
   * guessed by hashing candidate e-mails.
   */
  digest(value: string, purpose: string): string {
    return createHmac('sha256', this.#digestKey).update(purpose).update('\0').update(value).digest('hex');
  }

  seal(plaintext: string, aad: string): string {
    return `v1.${this.sealBytes(Buffer.from(plaintext, 'utf8'), aad).toString('base64url')}`;
  }

  open(sealed: string, aad: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown ciphertext version');
    return this.openBytes(Buffer.from(sealed.slice(3), 'base64url'), aad).toString('utf8');
  }

  /**
   * Binary form for files: IV (12 bytes), tag (16), then the ciphertext. Photos pass through
   * here: each is copied once (GCM's final block is empty), not once more for every join.
   */
  sealBytes(plaintext: Buffer, aad: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(aad));
    const body = cipher.update(plaintext);
    const end = cipher.final();
    return Buffer.concat([iv, cipher.getAuthTag(), body, end]);
  }

  /** `raw` may be any view of the sealed bytes (a row's blob as the driver gives it). */
  openBytes(raw: Uint8Array, aad: string): Buffer {
    const sealed = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(sealed.subarray(12, 28));
    const body = decipher.update(sealed.subarray(28));
    const end = decipher.final();
    return end.length ? Buffer.concat([body, end]) : body;
  }
}

/**
 * The configured secret, or the one generated on first start into the data directory
 * (mode 0600) for the embedded default.
 */
export function resolveSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

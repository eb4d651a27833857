import type { AccountRow, KeyInfo } from '../modules/accounts/repo.js';

type Entry = { account: AccountRow; key: KeyInfo };

/**
 * The accounts behind recently seen API keys, by key hash, for a few seconds: the look-up was the
 * one database query of every authenticated request. This process forgets everything at once
 * when an account changes here (clear()); other processes see the change when their entry
 * expires, so the TTL is how long a disabled account or suspension may take to reach them.
 */
export class KeyCache {
  readonly #entries = new Map<string, Entry & { expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
  ) {}

  get(keyHash: string, now: number): Entry | undefined {
    const hit = this.#entries.get(keyHash);
    if (!hit) return undefined;
    if (hit.expires <= now) {
      this.#entries.delete(keyHash);
      return undefined;
    }
    return hit;
  }

  set(keyHash: string, entry: Entry, now: number): void {
    if (this.ttlMs <= 0) return;
    // Oldest first out: Map keeps insertion order.
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(keyHash, { ...entry, expires: now + this.ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}

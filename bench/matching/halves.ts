import { nameTokens } from '../../src/lib/names/names.js';

/**
 * Which half of the labelled set a listed person falls in, by the first token of the family
 * name (FNV-1a): the tuning half, which building the name data and tuning the matcher may look
 * at, or the held-out half, which only the benchmark reads. One family name is never in both.
 */
export function half(listed: string): 'tune' | 'held-out' {
  const family = listed.includes(',') ? listed.slice(0, listed.indexOf(',')) : (listed.split(' ').pop() ?? '');
  const token = nameTokens(family).filter((t) => t.length > 2)[0] ?? nameTokens(family)[0] ?? '';
  let h = 0x811c9dc5;
  for (const ch of token) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h % 2 === 0 ? 'tune' : 'held-out';
}

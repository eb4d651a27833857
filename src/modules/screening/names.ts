import jaroWinkler from 'talisman/metrics/jaro-winkler.js';

/** Case, accents and punctuation removed; tokens sorted, so "SANTOS, Maria" equals "maria santos". */
export function normaliseName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .sort()
    .join(' ');
}

/** Jaro-Winkler similarity of two names after normalisation, 0..1. */
export function nameSimilarity(a: string, b: string): number {
  const x = normaliseName(a);
  const y = normaliseName(b);
  if (!x || !y) return 0;
  return jaroWinkler(x, y);
}

declare module 'talisman/metrics/jaro-winkler.js' {
  /** Jaro-Winkler similarity, 0..1. */
  const jaroWinkler: (a: string, b: string) => number;
  export default jaroWinkler;
}

declare module 'talisman/phonetics/double-metaphone.js' {
  /** The primary and the alternate Double Metaphone code of a word. */
  export default function doubleMetaphone(word: string): [string, string];
}
declare module 'talisman/metrics/damerau-levenshtein.js' {
  /** Edits (insert, delete, substitute, swap two neighbours) from one string to the other. */
  const damerauLevenshtein: (a: string, b: string) => number;
  export default damerauLevenshtein;
  /** The distance, worked out no further than `max`: Infinity past it. */
  export const limited: (max: number, a: string, b: string) => number;
}

declare module 'talisman/metrics/jaro-winkler.js' {
  /** Jaro-Winkler similarity, 0..1. */
  const jaroWinkler: (a: string, b: string) => number;
  export default jaroWinkler;
}

declare module 'talisman/phonetics/double-metaphone.js' {
  /** The primary and the alternate Double Metaphone code of a word. */
  export default function doubleMetaphone(word: string): [string, string];
}

declare module 'talisman/metrics/jaro-winkler.js' {
  /** Jaro-Winkler similarity, 0..1. */
  const jaroWinkler: (a: string, b: string) => number;
  export default jaroWinkler;
}

/**
 * Words that belong to the operator, not to a host: commands, settings (environment variables),
 * libraries, algorithms and the checks' own enum words. A host-facing string matching this is a
 * slip (src/lib/host-messages.ts).
 */
export const operatorWords =
  /guestscreen|GUESTSCREEN_|`|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bMRZ\b|jaro|winkler|metaphone|levenshtein|libphonenumber|\bmrz\b|pdfkit|maxmind|\bnpm\b|\bCLI\b|command line|environment variable|\bdata import\b|\bconfigur|\bAPI\b|\bscore \d|\bINCOMPLETE\b|\bNOT_RUN\b|\bPASS\b|\bFAIL\b|\bnull\b|undefined|\[object|Error:|stack/i;

/**
 * The machine-readable zone's layouts (ICAO Doc 9303 parts 4 to 6): how many lines of how many
 * characters, and which characters each position may hold. The reader uses the kinds to choose
 * between look-alike glyphs (a date holds no O, a name no 0); the test documents are written with them.
 */
import countries from 'i18n-iso-countries';

/** The zone's shapes: how many lines of how many characters, and the size of the document that carries them. */
export type MrzShape = 'TD1' | 'TD2' | 'TD3';

/**
 * The layouts read: the three shapes of ICAO 9303's travel documents, its visas (MRV-A on a
 * passport's page, 2 × 44; MRV-B, 2 × 36: part 7), and France's identity card of 1988 to 2021
 * (FR-ID: 2 × 36 on the card's front, in a layout of its own, still valid for years). A visa and
 * the French card share a shape with TD3 or TD2 and are told from them by their first letters.
 */
export type MrzFormat = MrzShape | 'MRV-A' | 'MRV-B' | 'FR-ID';

/**
 * digit: 0-9; alpha: A-Z and the filler <; alnum: both; check: a digit, or < where the field is
 * empty; passport: the first letter of a TD3 document code (P, or V for a visa); card: that of a
 * TD1 (I, A or C); booklet: that of a 2 × 36 zone (a card's, or V for a visa); visa: V.
 */
export type CharKind = 'digit' | 'alpha' | 'alnum' | 'check' | 'passport' | 'card' | 'booklet' | 'visa';

export const MRZ_SHAPES: Record<MrzFormat, { lines: number; length: number }> = {
  TD1: { lines: 3, length: 30 },
  TD2: { lines: 2, length: 36 },
  TD3: { lines: 2, length: 44 },
  'MRV-A': { lines: 2, length: 44 },
  'MRV-B': { lines: 2, length: 36 },
  'FR-ID': { lines: 2, length: 36 },
};

/** The shape of each layout: what the zone finders look for, and the document's size around the zone. */
export const SHAPE_OF: Record<MrzFormat, MrzShape> = { TD1: 'TD1', TD2: 'TD2', TD3: 'TD3', 'MRV-A': 'TD3', 'MRV-B': 'TD2', 'FR-ID': 'TD2' };

/**
 * The layout a zone read as `shape` is, by its first line's first letters: a V begins a visa's,
 * IDFRA the French card's (ICAO 9303 gives no card of the TD2 shape a document code of ID with
 * France's code but France's own). Anything else is the shape's own layout.
 */
export function layoutOf(shape: MrzFormat, firstLine: string): MrzFormat {
  const s = SHAPE_OF[shape];
  if (s === 'TD3') return firstLine[0] === 'V' ? 'MRV-A' : 'TD3';
  if (s === 'TD2') return firstLine[0] === 'V' ? 'MRV-B' : firstLine.startsWith('IDFRA') ? 'FR-ID' : 'TD2';
  return s;
}

type Run = [number, number, number, CharKind];

/** The second line's first 28 positions, alike in TD2, TD3 and visas: number and its digit, nationality, birth date, sex, expiry. */
const SECOND_LINE_RUNS: Run[] = [
  [1, 0, 9, 'alnum'],
  [1, 9, 10, 'digit'],
  [1, 10, 13, 'alpha'],
  [1, 13, 20, 'digit'],
  [1, 20, 21, 'alpha'],
  [1, 21, 28, 'digit'],
];

/** A visa's runs, its lines `length` long: its optional data (alnum) from 28 to the end. */
const visaRuns = (length: number): Run[] => [[0, 0, 1, 'visa'], [0, 1, length, 'alpha'], ...SECOND_LINE_RUNS];

/** [line, start, end (exclusive), kind] runs; positions not covered are alnum. */
const RUNS: Record<MrzFormat, Run[]> = {
  TD1: [
    [0, 0, 1, 'card'],
    [0, 1, 5, 'alpha'],
    [0, 5, 14, 'alnum'],
    [0, 14, 15, 'check'],
    [0, 15, 30, 'alnum'],
    [1, 0, 6, 'digit'],
    [1, 6, 7, 'digit'],
    [1, 7, 8, 'alpha'],
    [1, 8, 14, 'digit'],
    [1, 14, 15, 'digit'],
    [1, 15, 18, 'alpha'],
    [1, 18, 29, 'alnum'],
    [1, 29, 30, 'digit'],
    [2, 0, 30, 'alpha'],
  ],
  TD2: [[0, 0, 1, 'booklet'], [0, 1, 36, 'alpha'], ...SECOND_LINE_RUNS, [1, 28, 35, 'alnum'], [1, 35, 36, 'digit']],
  'MRV-B': visaRuns(36),
  'MRV-A': visaRuns(44),
  // The year and month, the department and office, and a serial: the card's number of 12.
  'FR-ID': [
    [0, 0, 30, 'alpha'],
    [1, 0, 4, 'digit'],
    [1, 7, 13, 'digit'],
    [1, 13, 27, 'alpha'],
    [1, 27, 34, 'digit'],
    [1, 34, 35, 'alpha'],
    [1, 35, 36, 'digit'],
  ],
  TD3: [[0, 0, 1, 'passport'], [0, 1, 44, 'alpha'], ...SECOND_LINE_RUNS, [1, 28, 42, 'alnum'], [1, 42, 43, 'check'], [1, 43, 44, 'digit']],
};

/** Which characters a position of each kind may hold: what both readers choose among. */
export const ALLOWED: Record<CharKind, (c: string) => boolean> = {
  digit: (c) => c >= '0' && c <= '9',
  check: (c) => c === '<' || (c >= '0' && c <= '9'),
  alpha: (c) => c === '<' || (c >= 'A' && c <= 'Z'),
  alnum: () => true,
  passport: (c) => c === 'P' || c === 'V',
  card: (c) => c === 'I' || c === 'A' || c === 'C',
  booklet: (c) => c === 'I' || c === 'A' || c === 'C' || c === 'V',
  visa: (c) => c === 'V',
};

/** The kind of each position, line by line. */
export function charKinds(format: MrzFormat): CharKind[][] {
  const { lines, length } = MRZ_SHAPES[format];
  const kinds = Array.from({ length: lines }, () => Array<CharKind>(length).fill('alnum'));
  for (const [line, start, end, kind] of RUNS[format]) for (let i = start; i < end; i++) kinds[line]![i] = kind;
  return kinds;
}

/** The 7-3-1 check digit of ICAO 9303: digits as themselves, A-Z as 10-35, the filler as 0. */
export function checkDigit(field: string): string {
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field.charCodeAt(i);
    const value = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 55 : 0;
    sum += value * [7, 3, 1][i % 3]!;
  }
  return String(sum % 10);
}

type CheckedField = { field: 'document_number' | 'birth_date' | 'expiry_date' | 'optional_data'; line: number; start: number; end: number; digit: number };

/** The document number, birth date and expiry where a two-line zone's second line has them (TD2, TD3, visas). */
const SECOND_LINE_CHECKED: CheckedField[] = [
  { field: 'document_number', line: 1, start: 0, end: 9, digit: 9 },
  { field: 'birth_date', line: 1, start: 13, end: 19, digit: 19 },
  { field: 'expiry_date', line: 1, start: 21, end: 27, digit: 27 },
];

/** The ranges [line, start, end) of the fields with check digits, and where their digit is, per format. */
export const CHECKED: Record<MrzFormat, CheckedField[]> = {
  TD1: [
    { field: 'document_number', line: 0, start: 5, end: 14, digit: 14 },
    { field: 'birth_date', line: 1, start: 0, end: 6, digit: 6 },
    { field: 'expiry_date', line: 1, start: 8, end: 14, digit: 14 },
  ],
  TD2: SECOND_LINE_CHECKED,
  TD3: [...SECOND_LINE_CHECKED, { field: 'optional_data', line: 1, start: 28, end: 42, digit: 42 }],
  // A visa's optional data has no check digit, and its zone no composite.
  'MRV-A': SECOND_LINE_CHECKED,
  'MRV-B': SECOND_LINE_CHECKED,
  // The French card gives no expiry: its life runs from the issue month its number begins with.
  'FR-ID': [
    { field: 'document_number', line: 1, start: 0, end: 12, digit: 12 },
    { field: 'birth_date', line: 1, start: 27, end: 33, digit: 33 },
  ],
};

/**
 * Whether a field's check digit holds in its line. A document number that begins with a filler
 * never does, whatever its digit: numbers are written from the left, so a leading filler is a
 * misread (a character lost, the line fitted with a filler in its place) that holds by chance.
 */
export function fieldHolds(line: string, f: CheckedField): boolean {
  return !numberOpensWithFiller(line, f) && checkDigit(line.slice(f.start, f.end)) === line[f.digit];
}

/** Whether `f` is the document number and its line gives it beginning with a filler: a misread, never a number. */
export const numberOpensWithFiller = (line: string, f: CheckedField) => f.field === 'document_number' && line[f.start] === '<';

/** The issuing state on a two-line zone's first line, the nationality on its second (TD2, TD3, visas). */
const SECOND_LINE_CODES: [number, number][] = [
  [0, 2],
  [1, 10],
];

/** Where each format's zone gives a state's code: the issuing state and the nationality, [line, start]. */
export const CODES: Record<MrzFormat, [number, number][]> = {
  TD1: [
    [0, 2],
    [1, 15],
  ],
  TD2: SECOND_LINE_CODES,
  TD3: SECOND_LINE_CODES,
  'MRV-A': SECOND_LINE_CODES,
  'MRV-B': SECOND_LINE_CODES,
  'FR-ID': [[0, 2]],
};

/**
 * The codes a zone may give as its issuing state or a nationality: ISO 3166-1 alpha-3, and the
 * codes ICAO 9303 part 3 adds (Germany's D, the British nationalities, the United Nations',
 * refugees' and stateless persons', the EU's laissez-passer, Kosovo's, and Utopia, the specimens').
 */
const ICAO_CODES = [
  'D',
  'GBD',
  'GBN',
  'GBO',
  'GBP',
  'GBS',
  'UNO',
  'UNA',
  'UNK',
  'XBA',
  'XIM',
  'XCC',
  'XCE',
  'XCO',
  'XEC',
  'XPO',
  'XES',
  'XMP',
  'XOM',
  'XDC',
  'XXA',
  'XXB',
  'XXC',
  'XXX',
  'EUE',
  'RKS',
  'UTO',
];
let codes: Set<string> | undefined;

/** Whether a zone's three letters (fillers included, as `D<<`) are a code some state issues. */
export function knownCode(zone: string): boolean {
  codes ??= new Set([...Object.keys(countries.getAlpha3Codes()), ...ICAO_CODES]);
  return codes.has(zone.replace(/<+$/, ''));
}

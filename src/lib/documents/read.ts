/**
 * Reads an identity document from a photo: finds and reads its machine-readable zone, parses it
 * with the `mrz` package, answers every field with whether its check digit holds, and when it
 * cannot, says what is wrong with the photo in words a guest can act on.
 */
import type { PrintedPage } from './printed.js';
import { parse as parseMrz } from 'mrz';
import { decodePhoto, photoArea } from './image.js';
import { CHECKED, fieldHolds, layoutOf, numberOpensWithFiller, type MrzFormat } from './layout.js';
import { isScreen, screenArea, screenHint, screenSigns, type ScreenSigns } from './screen.js';
import { detectZone, recogniseZone } from './recognise.js';
import { readZone, type Grey, type ZoneReading } from './zone.js';

/** A field's check: valid or invalid by its check digit, or none where the zone gives it none (names). */
export type CheckResult = 'valid' | 'invalid' | 'none';

export interface DocumentField {
  value: string | null;
  check: CheckResult;
  /** A character changed to a look-alike (O/0, I/1, B/8, S/5, Z/2, G/6) because only then did the check digit hold. */
  corrected?: true;
}

export interface ReadDocument {
  format: MrzFormat;
  document_type: DocumentField;
  issuing_state: DocumentField;
  document_number: DocumentField;
  surname: DocumentField;
  given_names: DocumentField;
  nationality: DocumentField;
  birth_date: DocumentField;
  sex: DocumentField;
  expiry_date: DocumentField;
  optional_data: DocumentField;
  composite: CheckResult;
  /** Every check digit holds. */
  valid: boolean;
  /** The zone's lines as read. */
  zone: string[];
  /** The printed page's name and dates against the zone (printed.ts); null where no page was read (an ID card's back). */
  printed?: PrintedPage | null;
  /**
   * Whether the document's print confirms the zone's name: both the surname and the given names
   * found as printed (`printed`: same). False where the name was read from the zone only, which
   * no check digit covers (no page read, or an ID card's back without its front): `valid` says
   * nothing of it. Set where a reading's photos are read together (set.ts).
   */
  name_confirmed?: boolean;
}

/** What is wrong with a photo; `screen_photo`: it is of a screen showing the document (screen.ts), said even where the zone reads. */
export type PhotoProblem = 'screen_photo' | 'too_dark' | 'blurred' | 'glare' | 'zone_cut_off' | 'no_document' | 'zone_unreadable';

export interface DocumentReading {
  document: ReadDocument | null;
  problems: PhotoProblem[];
  /** Where the zone lies in the photo as decoded (after EXIF turning and scaling), for cropping. */
  zone_corners: [number, number][] | null;
  /** The size of the photo as decoded, which zone_corners are in. Not part of the API's answer. */
  picture?: { width: number; height: number };
  /**
   * The zone's name characters as read, for each whether the reader was sure of it ('1') or not
   * ('0': its runner-up glyph came close), and that runner-up: the printed page is believed over
   * the zone only where the zone was unsure and the page prints the runner-up (printed.ts). Not
   * part of the API's answer.
   */
  name_region?: { text: string; sure: string; second: string } | null;
  /**
   * Where the document's portrait is: an ID card's front sent with its back (`card_front`), or
   * `missing` where only the back (which has none) was sent; unset for a passport's page. Not part
   * of the API's answer.
   */
  portrait?: 'card_front' | 'missing';
  /** A weak sign of a screen (screen.ts's screenHint): a note for the host, not a problem for the guest. Not part of the API's answer. */
  screen_hint?: true;
  /** What says the photo is of a screen, or not (screen.ts). Not part of the API's answer. */
  screen?: ScreenSigns | null;
  ms: number;
}

/** A character whose best glyph beat its runner-up by no more than this is one the reader was unsure of. */
const UNSURE_MARGIN = 0.25;

const LOOK_ALIKE: Record<string, string> = { O: '0', '0': 'O', I: '1', '1': 'I', B: '8', '8': 'B', S: '5', '5': 'S', Z: '2', '2': 'Z', G: '6', '6': 'G', D: '0' };

/** Century of a YYMMDD: a birth date is in the past, an expiry within the next few decades. */
function isoDate(yymmdd: string | null | undefined, kind: 'birth' | 'expiry', today: Date): string | null {
  if (!yymmdd || !/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const nowYY = today.getUTCFullYear() % 100;
  const century = kind === 'birth' ? (yy > nowYY ? 1900 : 2000) : yy >= nowYY + 50 ? 1900 : 2000;
  const iso = `${century + yy}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
  return Number.isNaN(Date.parse(iso)) ? null : iso;
}

/**
 * Where a field's check digit fails, one look-alike swap among the characters the reader was
 * least sure of, if exactly one such swap makes it hold. Dates and check digits are read as
 * digits already; this is for the document number and the optional data, where letters and
 * digits mix. A swap that is not unique is not made: the field stays invalid.
 */
function correctByCheckDigits(zone: ZoneReading): Set<string> {
  const corrected = new Set<string>();
  for (const f of CHECKED[zone.format]) {
    if (f.field === 'birth_date' || f.field === 'expiry_date') continue;
    const line = zone.lines[f.line]!;
    const digit = line[f.digit]!;
    if (digit === '<' || fieldHolds(line, f)) continue;
    const fixes: string[] = [];
    for (let i = f.start; i < f.end; i++) {
      const alt = LOOK_ALIKE[line[i]!];
      const c = zone.confidence[f.line]![i]!;
      if (!alt || c.best - c.second > UNSURE_MARGIN) continue;
      const fixed = line.slice(0, i) + alt + line.slice(i + 1);
      if (fieldHolds(fixed, f)) fixes.push(fixed);
    }
    if (fixes.length === 1) {
      zone.lines[f.line] = fixes[0]!;
      corrected.add(f.field);
    }
  }
  return corrected;
}

/** A field's value (null where empty) with its check, marked where a look-alike swap made its check digit hold. */
function fieldOf(corrected: Set<string>, value: string | null | undefined, check: CheckResult, key?: string): DocumentField {
  return { value: value === undefined || value === '' ? null : value, check, ...(key && corrected.has(key) ? { corrected: true as const } : {}) };
}

/** Every check digit the document has holds, and nothing else: a name has none. */
const everyCheckHolds = (doc: ReadDocument) => [doc.document_number, doc.birth_date, doc.expiry_date, doc.optional_data].every((f) => f.check !== 'invalid') && doc.composite !== 'invalid';

/** A name as the zone writes it, its fillers spaces: the words of a name, and the names of a list (`<<` between them), one space apart. */
const zoneText = (s: string | null | undefined) => s?.replace(/</g, ' ').replace(/\s+/g, ' ').trim() || null;

/** A field's check by its digit in the zone: the CHECKED entry of `field` holds, and its value (a date) is one. */
function checkOf(zone: ZoneReading, field: (typeof CHECKED)[MrzFormat][number]['field'], value: string | null = ''): CheckResult {
  const f = CHECKED[zone.format].find((c) => c.field === field);
  if (!f) return 'none';
  return fieldHolds(zone.lines[f.line]!, f) && value !== null ? 'valid' : 'invalid';
}

/**
 * A visa's zone (ICAO 9303 part 7: MRV-A on a passport's page, MRV-B), which the `mrz` package
 * does not parse: its fields by their places. Its document number, birth date and expiry have
 * check digits; its optional data has none, and the zone no composite.
 */
function visaDocument(zone: ZoneReading, corrected: Set<string>, today: Date): ReadDocument | null {
  const [top, bottom] = zone.lines as [string, string];
  if (!/^V[A-Z<][A-Z<]{3}/.test(top) || !/^[A-Z0-9<]+$/.test(top + bottom)) return null;
  const [surname, ...given] = top.slice(5).replace(/<+$/, '').split('<<');
  const field = (value: string | null, check: CheckResult, key?: string) => fieldOf(corrected, value, check, key);
  const code = (s: string) => s.replace(/<+$/, '') || null;
  const birth = isoDate(bottom.slice(13, 19), 'birth', today);
  const expiry = isoDate(bottom.slice(21, 27), 'expiry', today);
  const sex = bottom[20];
  const doc: ReadDocument = {
    format: zone.format,
    document_type: field(top.slice(0, 2).replace(/<$/, ''), 'none'),
    issuing_state: field(code(top.slice(2, 5)), 'none'),
    document_number: field(code(bottom.slice(0, 9)), checkOf(zone, 'document_number'), 'document_number'),
    surname: field(zoneText(surname), 'none'),
    given_names: field(zoneText(given.join('<<')), 'none'),
    nationality: field(code(bottom.slice(10, 13)), 'none'),
    birth_date: field(birth, checkOf(zone, 'birth_date', birth)),
    sex: field(sex === 'M' || sex === 'F' ? sex : sex === '<' || sex === 'X' ? 'X' : null, 'none'),
    expiry_date: field(expiry, checkOf(zone, 'expiry_date', expiry)),
    optional_data: field(code(bottom.slice(28)), 'none', 'optional_data'),
    composite: 'none',
    valid: false,
    zone: zone.lines,
  };
  doc.valid = everyCheckHolds(doc);
  return doc;
}

/**
 * The French identity card's life, which its zone does not give: ten years from the month it was
 * issued (the first four digits of its number), fifteen for a card issued from 2004 to 2013 to an
 * adult (décret n° 2013-1188, which lengthened those cards without reprinting them). Taken to the
 * month's last day: the day of issue is not in the zone.
 */
function frenchCardExpiry(number: string | null | undefined, birth: string | null): string | null {
  if (!number || !/^\d{4}/.test(number)) return null;
  const yy = Number(number.slice(0, 2));
  const month = Number(number.slice(2, 4));
  if (month < 1 || month > 12) return null;
  // The card was issued from 1988 to 2021.
  const year = yy >= 88 ? 1900 + yy : 2000 + yy;
  // Eighteen by the month's first day: a card of the month one came of age keeps ten years.
  const adult = birth !== null && `${Number(birth.slice(0, 4)) + 18}${birth.slice(4)}` <= `${year}-${number.slice(2, 4)}-01`;
  const years = adult && year >= 2004 && year <= 2013 ? 15 : 10;
  // Day 0 of the next month: the month's last day.
  return new Date(Date.UTC(year + years, month, 0)).toISOString().slice(0, 10);
}

/**
 * A zone's read as a document, and where the recogniser lost a character in a line (a gap its
 * characters do not fill), that line refused: the document is not valid, and a name the gap falls
 * in is marked invalid, since no check digit would see the letter it lost (ZHANG read as HANG).
 */
function toDocument(zone: ZoneReading, corrected: Set<string>, today: Date): ReadDocument | null {
  const doc = parseZone(zone, corrected, today);
  if (!doc || !zone.lost?.length) return doc;
  for (const [line, cell] of zone.lost) {
    const cells = NAME_CELLS[zone.format].findIndex(([l, start, end]) => l === line && cell >= start && cell < end);
    if (cells < 0) continue;
    const [, start] = NAME_CELLS[zone.format][cells]!;
    // The French card's second name cells are its given names; elsewhere, what follows the names' <<.
    const given = zone.format === 'FR-ID' ? cells === 1 : zone.lines[line]!.slice(start, cell).includes('<<');
    const name = given ? 'given_names' : 'surname';
    doc[name] = { ...doc[name], check: 'invalid' };
  }
  doc.valid = false;
  return doc;
}

function parseZone(zone: ZoneReading, corrected: Set<string>, today: Date): ReadDocument | null {
  if (zone.format === 'MRV-A' || zone.format === 'MRV-B') return visaDocument(zone, corrected, today);
  let parsed: ReturnType<typeof parseMrz>;
  try {
    parsed = parseMrz(zone.lines);
  } catch {
    return null;
  }
  const { fields, details } = parsed;
  const detail = (name: string) => details.find((d) => d.field === name);
  const checked = (name: string, value?: string | null): CheckResult => {
    const d = detail(`${name}CheckDigit`);
    if (!d) return 'none';
    // A date that is no date fails, whatever its digit says.
    return d.valid && value !== null ? 'valid' : 'invalid';
  };
  const field = (value: string | null | undefined, check: CheckResult, key?: string) => fieldOf(corrected, value, check, key);
  const plain = (name: string): DocumentField => {
    const v = fields[name as keyof typeof fields];
    return field(v ?? null, 'none');
  };
  const zoneOf = (name: string) => {
    const d = detail(name);
    return d ? zone.lines[d.line]!.slice(d.start, d.end) : null;
  };
  const optionalName = zone.format === 'TD3' ? 'personalNumber' : zone.format === 'TD1' ? 'optional1' : 'optional';
  const composite = details.find((d) => d.field === 'compositeCheckDigit');
  const french = zone.format === 'FR-ID';
  // The French card's number is its issue month, office and serial: the package joins them.
  const number = french ? parsed.documentNumber : fields.documentNumber;
  const birth = isoDate(zoneOf('birthDate'), 'birth', today);
  const numberCheck = CHECKED[zone.format].some((f) => numberOpensWithFiller(zone.lines[f.line]!, f)) ? 'invalid' : checked('documentNumber');
  const expiry = french ? frenchCardExpiry(number, birth) : isoDate(zoneOf('expirationDate'), 'expiry', today);
  const doc: ReadDocument = {
    format: zone.format,
    document_type: plain('documentCode'),
    issuing_state: field(zoneOf('issuingState')?.replace(/<+$/, '') ?? null, 'none'),
    // A document number beginning with a filler is a misread, whatever its digit.
    document_number: field(number ?? null, numberCheck, 'document_number'),
    surname: field(zoneText(fields.lastName), 'none'),
    given_names: field(zoneText(fields.firstName), 'none'),
    // Only French citizens hold the French card; its zone gives no nationality.
    nationality: field(french ? 'FRA' : (zoneOf('nationality')?.replace(/<+$/, '') ?? null), 'none'),
    birth_date: field(birth, checked('birthDate', birth)),
    sex: field(fields.sex === 'male' ? 'M' : fields.sex === 'female' ? 'F' : fields.sex ? 'X' : null, 'none'),
    // The French card's expiry comes of its number's first digits, which its check digit covers.
    expiry_date: field(expiry, french ? (expiry === null ? 'invalid' : numberCheck) : checked('expirationDate', expiry)),
    optional_data: field(fields[optionalName as keyof typeof fields] ?? null, zone.format === 'TD3' ? checked('personalNumber') : 'none', 'optional_data'),
    composite: composite ? (composite.valid ? 'valid' : 'invalid') : 'none',
    valid: false,
    zone: zone.lines,
  };
  doc.valid = everyCheckHolds(doc);
  return doc;
}

/** Where each format's zone writes the names: line, first and last column (ICAO 9303); the French card's surname and given names on lines of their own. */
const NAME_CELLS: Record<MrzFormat, [number, number, number][]> = {
  TD3: [[0, 5, 44]],
  TD2: [[0, 5, 36]],
  TD1: [[2, 0, 30]],
  'MRV-A': [[0, 5, 44]],
  'MRV-B': [[0, 5, 36]],
  'FR-ID': [
    [0, 5, 30],
    [1, 13, 27],
  ],
};

function nameRegion(zone: ZoneReading): { text: string; sure: string; second: string } {
  const parts = NAME_CELLS[zone.format].map(([line, start, end]) => {
    const confidence = zone.confidence[line]!.slice(start, end);
    return {
      text: zone.lines[line]!.slice(start, end),
      sure: confidence.map((c) => (c.best - c.second > UNSURE_MARGIN ? '1' : '0')).join(''),
      second: confidence.map((c) => c.secondChar || ' ').join(''),
    };
  });
  // Two parts are joined as a zone writes two names, with two fillers, sure of them.
  return { text: parts.map((p) => p.text).join('<<'), sure: parts.map((p) => p.sure).join('11'), second: parts.map((p) => p.second).join('  ') };
}

/** The spread of grey levels (standard deviation) under which a photo shows nothing but one surface. */
const PLAIN_SPREAD = 12;

/** The share of a photo's pixels blown white (≥ 250) from which light reflected off the document is said to hide it. */
const GLARE_SHARE = 0.04;
/**
 * A photo whose median pixel is this light or lighter shows a white page (a scan, a specimen
 * image, a page filling the frame): its white is the paper, not light reflected off it.
 */
const WHITE_PAPER = 240;

/** What a photo in which no readable zone was found shows: dark, blurred, glare, the zone cut off, no document. `found`: what is known already. */
function photoProblems(img: Grey, zone: ZoneReading | undefined, found: PhotoProblem[]): PhotoProblem[] {
  const { data, width: W, height: H } = img;
  let sum = 0;
  let squares = 0;
  let bright = 0;
  let lap = 0;
  let n = 0;
  const histogram = new Uint32Array(256);
  for (let y = 1; y < H - 1; y += 2)
    for (let x = 1; x < W - 1; x += 2) {
      const i = y * W + x;
      const v = data[i]!;
      sum += v;
      squares += v * v;
      histogram[v]!++;
      if (v >= 250) bright++;
      const l = 4 * v - data[i - 1]! - data[i + 1]! - data[i - W]! - data[i + W]!;
      lap += l * l;
      n++;
    }
  const problems: PhotoProblem[] = [...found];
  const mean = sum / n;
  // Next to nothing but one shade (a wall, a table, a covered lens): no edges to be sharp or
  // blurred, so no document rather than a blurred one.
  const plain = !zone && Math.sqrt(Math.max(0, squares / n - mean * mean)) < PLAIN_SPREAD;
  if (mean < 55) problems.push('too_dark');
  if (lap / n < 40 && !plain) problems.push('blurred');
  let [median, below] = [0, 0];
  while (median < 255 && (below += histogram[median]!) < n / 2) median++;
  if (bright / n > GLARE_SHARE && median < WHITE_PAPER) problems.push('glare');
  if (zone) {
    const margin = zone.pitch;
    if (zone.corners.some(([x, y]) => x < margin || y < margin || x > W - margin || y > H - margin)) problems.push('zone_cut_off');
  }
  if (problems.length === 0) problems.push(zone ? 'zone_unreadable' : 'no_document');
  return problems;
}

/** A zone's lines as a document (its format told by their count and length): what a labelled zone says, for measuring the reader. */
export function zoneDocument(lines: string[], today = new Date()): ReadDocument | null {
  const format = layoutOf(lines.length === 3 ? 'TD1' : lines[0]!.length === 36 ? 'TD2' : 'TD3', lines[0]!);
  const confidence = lines.map((l) => [...l].map(() => ({ best: 1, second: 0, secondChar: '' })));
  return toDocument({ format, lines: [...lines], confidence, corners: [], pitch: 0 }, new Set(), today);
}

/** A templates' read matching OCR-B this well (their mean best match) is trusted where its check digits hold. */
const SURE_TEMPLATES = 0.75;

/** How many of a document's check digits hold (the composite's included), for choosing between two reads of one zone. */
function checksHeld(doc: ReadDocument): number {
  return [doc.document_number, doc.birth_date, doc.expiry_date, doc.optional_data].filter((f) => f.check === 'valid').length + (doc.composite === 'valid' ? 1 : 0);
}

/**
 * The recogniser's read of a zone, with each field that fails its check digit there but holds in
 * the templates' read of the same zone taken from the templates: two readers of other kinds
 * rarely misread the same field, and the check digit says which one did.
 */
function vote(recognised: ZoneReading, templates: ZoneReading): ZoneReading {
  if (recognised.format !== templates.format) return recognised;
  const lines = [...recognised.lines];
  const confidence = recognised.confidence.map((c) => [...c]);
  for (const f of CHECKED[recognised.format]) {
    const r = lines[f.line]!;
    const t = templates.lines[f.line]!;
    if (fieldHolds(r, f) || !fieldHolds(t, f)) continue;
    lines[f.line] = r.slice(0, f.start) + t.slice(f.start, f.digit + 1) + r.slice(f.digit + 1);
    for (let i = f.start; i <= f.digit; i++) confidence[f.line]![i] = templates.confidence[f.line]![i]!;
  }
  return { ...recognised, lines, confidence };
}

/**
 * A zone's reads, each made a document: the first that every check digit confirms, else the one
 * with the most check digits holding (the earlier of equals). A read of `trusted` (the templates'
 * own, matching OCR-B fairly) counts whatever holds; any other only where a check digit holds at
 * least: text that is no zone, fitted to a zone's shape, would be reported as a document whose
 * check digits fail, a misread or an altered document.
 */
function bestRead(zones: ZoneReading[], today: Date, trusted?: ZoneReading): { zone: ZoneReading; document: ReadDocument } | undefined {
  let best: { zone: ZoneReading; document: ReadDocument; held: number } | undefined;
  for (const zone of zones) {
    const copy = { ...zone, lines: [...zone.lines] };
    const document = toDocument(copy, correctByCheckDigits(copy), today);
    if (!document || (zone !== trusted && checksHeld(document) === 0)) continue;
    const held = (document.valid ? 10 : 0) + checksHeld(document);
    if (!best || held > best.held) best = { zone: copy, document, held };
  }
  return best && { zone: best.zone, document: best.document };
}

/**
 * Reads a document photo. Throws ImageRefused (image.ts) for what is no photo at all.
 *
 * A read is always tried, whatever the photo looks like: the templates' read (zone.ts), the
 * recogniser's read of the zone the templates found, voted field by field (recognise.ts), and
 * where neither is confirmed by every check digit, the zone looked for again by the detector
 * (unless `detect` is false: a selfie is looked at for a zone the templates see, no more). The
 * photo's problems (dark, blurred, glare…) are said only when no read is confirmed, as the reason
 * why; a read every check digit confirms is a read.
 */
export async function readDocumentPhoto(data: Buffer, today = new Date(), { detect = true } = {}): Promise<DocumentReading> {
  const started = performance.now();
  const img = await decodePhoto(data);
  const zone = await readZone(img);
  const reads: ZoneReading[] = [];
  // The templates' read, where they matched OCR-B well and every check digit holds, is the read:
  // the recogniser is asked only where they were unsure or a check failed.
  const trusted = zone && zone.score > 0.45 ? zone : undefined;
  let best = zone && zone.score > SURE_TEMPLATES ? bestRead([zone], today, zone) : undefined;
  if (zone && !best?.document.valid) {
    const recognised = await recogniseZone(img, zone);
    reads.push(vote(recognised, zone));
    if (trusted) reads.push(trusted);
    best = bestRead(reads, today, trusted);
  }
  if (!best?.document.valid && detect) {
    const detected = await detectZone(img, (z) => bestRead([z], today)?.document.valid === true);
    const kept = best?.zone;
    best = bestRead([...(kept ? [kept] : []), ...detected], today, kept);
  }
  const document = best?.document ?? null;
  const found = best?.zone ?? zone;
  const corners = found?.corners ?? null;
  const area = screenArea(img.width, img.height, corners);
  const signs = area && screenSigns({ ...area, data: await photoArea(data, area) }, img.width, img.height, corners);
  const screen = isScreen(signs) ? (['screen_photo'] as const) : [];
  // A zone that reads but fails its checks is reported with its fields (each marked), and the photo's problems said too.
  const problems = document?.valid ? [...screen] : photoProblems(img, found, [...screen]);
  return {
    document,
    problems,
    zone_corners: corners,
    picture: { width: img.width, height: img.height },
    name_region: best && document ? nameRegion(best.zone) : null,
    ...(screenHint(signs) ? { screen_hint: true as const } : {}),
    screen: signs,
    ms: Math.round(performance.now() - started),
  };
}

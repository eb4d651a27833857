/**
 * Identity documents for measuring the reader: passports (TD3), ID cards (TD1) and TD2 cards
 * rendered from random but valid data of many countries, with the zone in the OCR-B font, then
 * "photographed": turned, seen in perspective, small in the frame, on a textured table, blurred,
 * lit unevenly, with glare, JPEG-compressed. Every document carries its true zone and the
 * distortions it got, so a reading can be scored field by field.
 *
 *   node --import tsx bench/documents/generate.ts <dir> [count] [seed]
 */
import {
  faker,
  fakerDE,
  fakerES,
  fakerFR,
  fakerIT,
  fakerNL,
  fakerPL,
  fakerPT_BR,
  fakerRU,
  fakerSV,
  fakerTR,
  fakerUK,
  fakerVI,
  fakerZH_CN,
  fakerKO,
  fakerEL,
  fakerFA,
  fakerAR,
  type Faker,
} from '@faker-js/faker';
import anyAscii from 'any-ascii';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { checkDigit, MRZ_SHAPES, SHAPE_OF, type MrzFormat, type MrzShape } from '../../src/lib/documents/layout.js';
import { ocrbPath } from '../../src/lib/documents/glyphs.js';

const COUNTRIES: { code: string; faker: Faker }[] = [
  { code: 'D', faker: fakerDE },
  { code: 'FRA', faker: fakerFR },
  { code: 'ESP', faker: fakerES },
  { code: 'ITA', faker: fakerIT },
  { code: 'NLD', faker: fakerNL },
  { code: 'POL', faker: fakerPL },
  { code: 'RUS', faker: fakerRU },
  { code: 'UKR', faker: fakerUK },
  { code: 'CHN', faker: fakerZH_CN },
  { code: 'VNM', faker: fakerVI },
  { code: 'KOR', faker: fakerKO },
  { code: 'TUR', faker: fakerTR },
  { code: 'BRA', faker: fakerPT_BR },
  { code: 'SWE', faker: fakerSV },
  { code: 'GRC', faker: fakerEL },
  { code: 'IRN', faker: fakerFA },
  { code: 'EGY', faker: fakerAR },
  { code: 'USA', faker },
];

export interface DocumentTruth {
  format: MrzFormat;
  lines: string[];
  surname: string;
  givenNames: string;
  documentNumber: string;
  birthDate: string;
  expiryDate: string;
  sex: 'M' | 'F';
  nationality: string;
}

export interface GeneratedPhoto {
  id: string;
  file: string;
  truth: DocumentTruth;
  /** The distortions this photo got, for scores per distortion. */
  distortions: string[];
  /** An ID card's front, where asked for: its printed name and dates, no zone. */
  front?: string;
  front_distortions?: string[];
}

/** A name as the zone writes it: Latin capitals, everything else a filler. */
const mrzName = (s: string) =>
  anyAscii(s)
    .toUpperCase()
    .replace(/['’.]/g, '')
    .replace(/[^A-Z]+/g, '<')
    .replace(/^<+|<+$/g, '');

const pad = (s: string, n: number) => (s.length >= n ? s.slice(0, n) : s + '<'.repeat(n - s.length));
const yymmdd = (d: Date) => d.toISOString().slice(2, 10).replace(/-/g, '');

/** Random, valid data of one document, and its zone. */
export function documentData(f: Faker, format: MrzFormat): DocumentTruth {
  const country = f.helpers.arrayElement(COUNTRIES);
  const sex = f.helpers.arrayElement(['M', 'F'] as const);
  const local = country.faker;
  const surname = mrzName(local.person.lastName(sex === 'M' ? 'male' : 'female')) || 'DOE';
  const given = [local.person.firstName(sex === 'M' ? 'male' : 'female'), ...(f.number.int(3) === 0 ? [local.person.firstName(sex === 'M' ? 'male' : 'female')] : [])];
  const givenNames = given.map(mrzName).filter(Boolean).join('<') || 'ALEX';
  const code = pad(country.code, 3);
  const number = f.string.alphanumeric({ length: f.number.int({ min: 8, max: 9 }), casing: 'upper' });
  const birth = f.date.birthdate({ min: 18, max: 85, mode: 'age' });
  const expiry = f.date.between({ from: '2027-01-01', to: '2036-12-31' });
  const [docNo, b, e] = [pad(number, 9), yymmdd(birth), yymmdd(expiry)];
  const { length } = MRZ_SHAPES[format];
  let lines: string[];
  let documentNumber = number;
  let expiryDate = `20${e.slice(0, 2)}-${e.slice(2, 4)}-${e.slice(4, 6)}`;
  if (format === 'FR-ID') {
    // France's card of 1988 to 2021 (its own layout): issued in a month of 2014 to 2020, so ten years' life.
    const issued = f.date.between({ from: '2014-01-01', to: '2020-12-31' });
    const office = `${f.number.int({ min: 10, max: 95 })}${f.number.int(9)}`;
    const serial = `${yymmdd(issued).slice(0, 4)}${office}${f.string.numeric(5)}`;
    const l1 = `IDFRA${pad(surname, 25)}${office}${f.string.numeric(3)}`;
    const l2start = `${serial}${checkDigit(serial)}${pad(givenNames.replace(/</g, '<<'), 14)}${b}${checkDigit(b)}${sex}`;
    lines = [l1, l2start + checkDigit(l1 + l2start)];
    documentNumber = serial;
    const end = new Date(Date.UTC(issued.getUTCFullYear() + 10, issued.getUTCMonth() + 1, 0));
    expiryDate = end.toISOString().slice(0, 10);
  } else if (format === 'MRV-A' || format === 'MRV-B') {
    // A visa: issued by another state than the holder's, its optional data without a check digit, no composite.
    const issuer = pad(f.helpers.arrayElement(COUNTRIES.filter((c) => c.code !== country.code)).code, 3);
    const l1 = pad(`V<${issuer}${surname}<<${givenNames}`, length);
    lines = [l1, pad(`${docNo}${checkDigit(docNo)}${code}${b}${checkDigit(b)}${sex}${e}${checkDigit(e)}`, length)];
  } else if (format === 'TD1') {
    const opt1 = pad('', 15);
    const opt2 = pad(f.number.int(2) === 0 ? f.string.numeric(6) : '', 11);
    const l1 = `I<${code}${docNo}${checkDigit(docNo)}${opt1}`;
    const l2start = `${b}${checkDigit(b)}${sex}${e}${checkDigit(e)}${code}${opt2}`;
    const composite = checkDigit(l1.slice(5, 30) + l2start.slice(0, 7) + l2start.slice(8, 15) + l2start.slice(18, 29));
    lines = [l1, l2start + composite, pad(`${surname}<<${givenNames}`, length)];
  } else {
    const personal = format === 'TD3' ? pad(f.number.int(2) === 0 ? f.string.numeric(10) : '', 14) : pad('', 7);
    const personalCheck = format === 'TD3' ? (personal.replace(/</g, '') ? checkDigit(personal) : '<') : '';
    const head = `${docNo}${checkDigit(docNo)}${code}${b}${checkDigit(b)}${sex}${e}${checkDigit(e)}${personal}${personalCheck}`;
    const composite = checkDigit(head.slice(0, 10) + head.slice(13, 20) + head.slice(21));
    const l1 = pad(`${format === 'TD3' ? 'P<' : 'I<'}${code}${surname}<<${givenNames}`, length);
    lines = [l1, head + composite];
  }
  const century = (yy: string, future: boolean) => (future || Number(yy) > 30 ? '19' : '20');
  // The names as the zone holds them: a long one is cut where the line ends.
  const nameField = format === 'TD1' ? lines[2]! : format === 'FR-ID' ? `${lines[0]!.slice(5, 30).replace(/<+$/, '')}<<${lines[1]!.slice(13, 27).replace(/<</g, '<')}` : lines[0]!.slice(5);
  const [zoneSurname = '', zoneGiven = ''] = nameField.replace(/<+$/, '').split('<<');
  return {
    format,
    lines,
    surname: zoneSurname,
    givenNames: zoneGiven,
    documentNumber,
    birthDate: `${century(b.slice(0, 2), false)}${b.slice(0, 2)}-${b.slice(2, 4)}-${b.slice(4, 6)}`,
    expiryDate,
    sex,
    nationality: format === 'FR-ID' ? 'FRA' : country.code,
  };
}

/** Millimetres of each format's card or page, and where its zone's lines start. */
const SIZES: Record<MrzShape, { w: number; h: number }> = { TD1: { w: 85.6, h: 54 }, TD2: { w: 105, h: 74 }, TD3: { w: 125, h: 88 } };

const TITLES: Record<MrzFormat, string> = {
  TD1: 'IDENTITY CARD',
  TD2: 'IDENTITY CARD',
  TD3: 'PASSPORT',
  'MRV-A': 'VISA',
  'MRV-B': 'VISA',
  'FR-ID': "CARTE NATIONALE D'IDENTITÉ",
};

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The document as an SVG at `pxPerMm`: background, photo, printed fields and the zone in OCR-B. */
/**
 * How a press prints a document: the page white or tinted, fine coloured guilloche over the whole
 * page (the zone's band too) or light curves with the zone's band cleared, the zone's ink bolder
 * (a stroke, in pixels) and its print a little smaller or larger than ICAO's 2.54 mm a character.
 * The photos' documents are printed one way; the scans vary it, as the outside documents do.
 */
export interface PrintStyle {
  page: 'tinted' | 'white';
  guilloche: 'light' | 'dense';
  bold: number;
  size: number;
}
const PRINTED: PrintStyle = { page: 'tinted', guilloche: 'light', bold: 0, size: 1 };

function documentSvg(f: Faker, t: DocumentTruth, pxPerMm: number, front = false, portrait?: Buffer, style: PrintStyle = PRINTED): { svg: string; width: number; height: number } {
  const { w, h } = SIZES[SHAPE_OF[t.format]];
  const [W, H] = [Math.round(w * pxPerMm), Math.round(h * pxPerMm)];
  const mm = (v: number) => (v * pxPerMm).toFixed(1);
  const hue = f.number.int(360);
  // Guilloche-like curves, as printed security backgrounds have.
  const rows = style.guilloche === 'dense' ? 60 : 14;
  const waves = Array.from({ length: rows }, (_, i) => {
    const y0 = (H / rows) * i;
    const pts = Array.from({ length: 80 }, (_, k) => `${((W / 79) * k).toFixed(1)},${(y0 + Math.sin(k / 5 + i) * (style.guilloche === 'dense' ? 14 : 8)).toFixed(1)}`).join(' ');
    const colour = style.guilloche === 'dense' ? `hsl(${(hue + i * 7) % 360},55%,70%)` : `hsl(${hue},40%,75%)`;
    return `<polyline points="${pts}" fill="none" stroke="${colour}" stroke-width="${style.guilloche === 'dense' ? 0.8 : 1.2}"/>`;
  }).join('');
  const { lines } = t;
  const pitch = 2.54 * style.size; // ten characters an inch, as printed
  // From a line's top to its baseline, mm: the characters are about 2.5 mm tall at this pitch.
  const charH = 3.2;
  const zoneLeft = (w - lines[0]!.length * pitch) / 2;
  const zoneTop = h - lines.length * 4.3 - 2.2;
  const ink = style.bold ? ` stroke="#141414" stroke-width="${style.bold.toFixed(2)}" stroke-linejoin="round"` : '';
  const zone = lines
    .map((line, i) => `<path d="${ocrbPath(line, Number(mm(zoneLeft)), Number(mm(zoneTop + i * 4.3 * style.size + charH * style.size)), pitch * pxPerMm)}" fill="#141414"${ink}/>`)
    .join('');
  const photo = { x: 4, y: t.format === 'TD1' ? 10 : 12, w: w * 0.26, h: h * (t.format === 'TD1' ? 0.52 : 0.5) };
  const fx = photo.x + photo.w + 4;
  const fields = [
    ['Surname / Nom', t.surname.replace(/</g, ' ')],
    ['Given names / Prénoms', t.givenNames.replace(/</g, ' ')],
    ['Nationality', t.nationality.replace(/</g, '')],
    ['Date of birth', t.birthDate],
    ['Sex', t.sex],
    ['Date of expiry', t.expiryDate],
    ['Document no.', t.documentNumber],
  ];
  const rowH = (zoneTop - photo.y - 2) / fields.length;
  const text = fields
    .map(
      ([label, value], i) =>
        `<text x="${mm(fx)}" y="${mm(photo.y + i * rowH + rowH * 0.35)}" font-family="DejaVu Sans" font-size="${mm(rowH * 0.28)}" fill="#555">${esc(label!)}</text>` +
        `<text x="${mm(fx)}" y="${mm(photo.y + i * rowH + rowH * 0.8)}" font-family="DejaVu Sans" font-weight="bold" font-size="${mm(rowH * 0.4)}" fill="#222">${esc(value!)}</text>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
<rect width="${W}" height="${H}" rx="${mm(3)}" fill="${style.page === 'white' ? '#fdfdfb' : `hsl(${hue},35%,90%)`}"/>${waves}
<text x="${mm(4)}" y="${mm(7)}" font-family="DejaVu Sans" font-weight="bold" font-size="${mm(3.4)}" fill="hsl(${hue},50%,30%)">${esc(TITLES[t.format])} · ${esc(t.nationality.replace(/</g, ''))}</text>
${
  t.format === 'TD1' && !front
    ? '' // An ID card's portrait is on its front: its back holds the zone and no face.
    : portrait
      ? `<image x="${mm(photo.x)}" y="${mm(photo.y)}" width="${mm(photo.w)}" height="${mm(photo.h)}" preserveAspectRatio="xMidYMid slice" href="data:image/jpeg;base64,${portrait.toString('base64')}"/>`
      : `<rect x="${mm(photo.x)}" y="${mm(photo.y)}" width="${mm(photo.w)}" height="${mm(photo.h)}" fill="#b9b4ad"/>
<ellipse cx="${mm(photo.x + photo.w / 2)}" cy="${mm(photo.y + photo.h * 0.42)}" rx="${mm(photo.w * 0.28)}" ry="${mm(photo.h * 0.3)}" fill="#8a7666"/>`
}
${front || style.guilloche === 'dense' ? '' : `<rect x="${mm(1.5)}" y="${mm(zoneTop - 1.2)}" width="${mm(w - 3)}" height="${mm(h - zoneTop)}" fill="#ffffff" fill-opacity="0.55"/>`}
${text}${front ? '' : zone}</svg>`;
  return { svg, width: W, height: H };
}

/** Solves the homography that maps the four `from` points onto the four `to` points (8 unknowns). */
function homography(from: [number, number][], to: [number, number][]): number[] {
  const A: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[p]![c]!)) p = r;
    [A[c], A[p]] = [A[p]!, A[c]!];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const k = A[r]![c]! / A[c]![c]!;
      for (let j = c; j < 9; j++) A[r]![j]! -= k * A[c]![j]!;
    }
  }
  return [...A.map((row, i) => row[8]! / row[i]!), 1];
}

/**
 * The document shown on a phone's or a laptop's screen, as a camera close to it sees the glass:
 * each of the image's pixels lit as three stripes (red, green, blue) over a dark line between rows,
 * inside a black bezel. Photographed, the stripes alias against the camera's own pixels (moiré).
 */
function onScreen(src: Buffer, width: number, height: number, f: Faker): { data: Buffer; width: number; height: number } {
  const bezel = Math.round(width * f.number.float({ min: 0.03, max: 0.08 }));
  const [w, h] = [width + 2 * bezel, height + 2 * bezel];
  const out = Buffer.alloc(w * 3 * h * 3 * 3, 8);
  const glow = f.number.float({ min: 0.9, max: 1.15 });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let sy = 0; sy < 3; sy++)
        for (let c = 0; c < 3; c++) {
          // A stripe carries its channel's whole light: the camera's exposure makes up for the dark two thirds.
          const v = src[(y * width + x) * 3 + c]! * glow * (sy === 2 ? 0.8 : 2.4);
          const [X, Y] = [(x + bezel) * 3 + c, (y + bezel) * 3 + sy];
          out[(Y * w * 3 + X) * 3 + c] = Math.min(255, v + 6);
        }
  return { data: out, width: w * 3, height: h * 3 };
}

/**
 * A phone photo of the document: the scene, then the camera's faults. `screen`: the document shown
 * on a screen; `front`: an ID card's front, its name and dates printed and no zone.
 */
export async function photograph(f: Faker, t: DocumentTruth, out: string, { screen = false, front = false, portrait = undefined as Buffer | undefined } = {}): Promise<string[]> {
  const distortions: string[] = screen ? ['screen'] : [];
  const pxPerMm = 10;
  const page = documentSvg(f, t, pxPerMm, front, portrait);
  const rendered = (await sharp(Buffer.from(page.svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true })).data;
  const { data: src, ...doc } = screen ? onScreen(rendered, page.width, page.height, f) : { data: rendered, width: page.width, height: page.height };
  const [W, H] = f.helpers.arrayElement([
    [2000, 1500],
    [1600, 1200],
    [1500, 2000],
  ] as const);
  // The table: wood-like stripes and noise.
  const scene = Buffer.alloc(W * H * 3);
  const tone = [f.number.int({ min: 90, max: 200 }), f.number.int({ min: 70, max: 160 }), f.number.int({ min: 50, max: 130 })];
  const freq = f.number.float({ min: 0.01, max: 0.05 });
  // Noise from a seeded generator (faker per pixel would take seconds), so a seed gives the same photo.
  let state = f.number.int(2 ** 31);
  const noise = () => ((state = (state * 1103515245 + 12345) >>> 0) >>> 16) / 65536 - 0.5;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const s = Math.sin((x + Math.sin(y * 0.02) * 30) * freq) * 18 + noise() * 24;
      for (let c = 0; c < 3; c++) scene[(y * W + x) * 3 + c] = Math.max(0, Math.min(255, tone[c]! + s));
    }
  // Where the document lies: its width a share of the frame's, turned, perhaps upside down, in perspective.
  const share = f.number.float({ min: 0.45, max: 0.88 });
  if (share < 0.6) distortions.push('small in frame');
  const scale = (Math.min(W, H * 1.3) * share) / doc.width;
  let angle = f.number.float({ min: -15, max: 15 });
  if (Math.abs(angle) > 7) distortions.push('rotated 7-15°');
  if (f.number.int(9) === 0) {
    angle += 180;
    distortions.push('upside down');
  }
  const rad = (angle * Math.PI) / 180;
  const [cx, cy] = [W / 2 + f.number.float({ min: -0.08, max: 0.08 }) * W, H / 2 + f.number.float({ min: -0.08, max: 0.08 }) * H];
  const persp = f.number.int(2) === 0 ? f.number.float({ min: 0.03, max: 0.08 }) : 0;
  if (persp) distortions.push('perspective');
  const corners: [number, number][] = [
    [0, 0],
    [doc.width, 0],
    [doc.width, doc.height],
    [0, doc.height],
  ];
  const placed = corners.map(([x, y], i): [number, number] => {
    const [dx, dy] = [(x - doc.width / 2) * scale, (y - doc.height / 2) * scale];
    // Perspective: the far edge (top) narrower, as a phone held at a slant sees it.
    const squeeze = persp && i < 2 ? 1 - persp : 1;
    const [px, py] = [dx * squeeze, dy * (1 - persp / 2)];
    return [cx + px * Math.cos(rad) - py * Math.sin(rad), cy + px * Math.sin(rad) + py * Math.cos(rad)];
  });
  const Hm = homography(placed, corners);
  const xs = placed.map((p) => p[0]);
  const ys = placed.map((p) => p[1]);
  // A screen's stripes are finer than the camera's pixels. Each camera pixel then sees one colour
  // through its filter (the Bayer mosaic) over the middle of its square, and the colours are made
  // up from the neighbours' afterwards: the stripes beat against both, which is the moiré.
  const bayer = (x: number, y: number) => (y % 2 === 0 ? (x % 2 === 0 ? 0 : 1) : x % 2 === 0 ? 1 : 2);
  const offsets = screen ? [-0.2, 0.2] : [0];
  for (let y = Math.max(0, Math.floor(Math.min(...ys))); y < Math.min(H, Math.ceil(Math.max(...ys))); y++)
    for (let x = Math.max(0, Math.floor(Math.min(...xs))); x < Math.min(W, Math.ceil(Math.max(...xs))); x++) {
      const sum = [0, 0, 0];
      let hits = 0;
      for (const oy of offsets)
        for (const ox of offsets) {
          const [sx, sy] = [x + ox, y + oy];
          const w = Hm[6]! * sx + Hm[7]! * sy + Hm[8]!;
          const u = (Hm[0]! * sx + Hm[1]! * sy + Hm[2]!) / w;
          const v = (Hm[3]! * sx + Hm[4]! * sy + Hm[5]!) / w;
          if (u < 0 || v < 0 || u >= doc.width - 1 || v >= doc.height - 1) continue;
          const [u0, v0] = [Math.floor(u), Math.floor(v)];
          const [fu, fv] = [u - u0, v - v0];
          hits++;
          for (let c = 0; c < 3; c++) {
            const at = (uu: number, vv: number) => src[(vv * doc.width + uu) * 3 + c]!;
            sum[c]! += (at(u0, v0) * (1 - fu) + at(u0 + 1, v0) * fu) * (1 - fv) + (at(u0, v0 + 1) * (1 - fu) + at(u0 + 1, v0 + 1) * fu) * fv;
          }
        }
      if (hits === offsets.length ** 2) for (let c = 0; c < 3; c++) scene[(y * W + x) * 3 + c] = Math.min(255, sum[c]! / hits);
    }
  if (screen) {
    const mosaic = new Float32Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) mosaic[y * W + x] = scene[(y * W + x) * 3 + bayer(x, y)]!;
    for (let y = 1; y < H - 1; y++)
      for (let x = 1; x < W - 1; x++)
        for (let c = 0; c < 3; c++) {
          let [total, n] = [0, 0];
          for (let dy = -1; dy <= 1; dy++)
            for (let dx = -1; dx <= 1; dx++)
              if (bayer(x + dx, y + dy) === c) {
                total += mosaic[(y + dy) * W + x + dx]!;
                n++;
              }
          scene[(y * W + x) * 3 + c] = total / n;
        }
  }
  // Light: a gradient across the frame, sometimes dim; and sometimes a glare spot.
  const dim = f.number.int(5) === 0 ? f.number.float({ min: 0.45, max: 0.65 }) : 1;
  if (dim < 1) distortions.push('dim light');
  const [gx, gy] = [f.number.float({ min: -0.35, max: 0.35 }), f.number.float({ min: -0.35, max: 0.35 })];
  const glare =
    f.number.int(4) === 0
      ? {
          x: f.number.float({ min: 0.2, max: 0.8 }) * W,
          y: f.number.float({ min: 0.2, max: 0.8 }) * H,
          r: Math.min(W, H) * f.number.float({ min: 0.05, max: 0.12 }),
          k: f.number.float({ min: 0.3, max: 0.6 }),
        }
      : undefined;
  if (glare) distortions.push('glare');
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const light = dim * (1 + gx * (x / W - 0.5) + gy * (y / H - 0.5));
      const spot = glare ? glare.k * Math.exp(-((x - glare.x) ** 2 + (y - glare.y) ** 2) / (2 * glare.r ** 2)) : 0;
      for (let c = 0; c < 3; c++) {
        const i = (y * W + x) * 3 + c;
        scene[i] = Math.min(255, scene[i]! * light + 255 * spot);
      }
    }
  let img = sharp(scene, { raw: { width: W, height: H, channels: 3 } });
  const blur = f.number.int(3) === 0 ? f.number.float({ min: 0.8, max: 1.6 }) : f.number.float({ min: 0.3, max: 0.6 });
  if (blur > 0.7) distortions.push('blurred');
  img = img.blur(blur);
  const quality = f.number.int({ min: 55, max: 92 });
  if (quality < 70) distortions.push('JPEG quality < 70');
  await img.jpeg({ quality }).toFile(out);
  if (distortions.length === 0) distortions.push('none');
  return distortions;
}

/**
 * A document scanned or rendered flat, as the outside documents are: no table, no camera; the
 * page filling the frame or on a scanner's white, 800 to 1,400 pixels wide, turned a degree or
 * two at most, printed in one of the styles above, saved as a JPEG.
 */
export async function scan(f: Faker, t: DocumentTruth, out: string): Promise<string[]> {
  const style: PrintStyle = {
    page: f.helpers.arrayElement(['tinted', 'white'] as const),
    guilloche: f.helpers.arrayElement(['light', 'dense'] as const),
    bold: f.helpers.arrayElement([0, 0, 0.8, 1.6]),
    size: f.number.float({ min: 0.9, max: 1.04 }),
  };
  const distortions = ['scan'];
  if (style.page === 'white') distortions.push('white page');
  if (style.guilloche === 'dense') distortions.push('guilloche behind the zone');
  if (style.bold) distortions.push('bold print');
  if (style.size < 0.95) distortions.push('small print');
  const page = documentSvg(f, t, 12, false, undefined, style);
  let img = sharp(Buffer.from(page.svg)).flatten({ background: '#ffffff' });
  const margin = f.number.int(2) === 0 ? 0 : Math.round(page.width * f.number.float({ min: 0.03, max: 0.12 }));
  if (margin) img = sharp(await img.extend({ top: margin, bottom: margin, left: margin, right: margin, background: '#ffffff' }).png().toBuffer());
  else distortions.push('full frame');
  const angle = f.number.int(3) === 0 ? f.number.float({ min: -2, max: 2 }) : 0;
  if (angle) img = sharp(await img.rotate(angle, { background: '#ffffff' }).png().toBuffer());
  const width = f.number.int({ min: 800, max: 1400 });
  img = img.resize({ width });
  await img.jpeg({ quality: f.number.int({ min: 70, max: 98 }) }).toFile(out);
  return distortions;
}

const REF_DATE = '2026-11-26T00:00:00Z';

/**
 * `count` photos in `dir`, the same ones for the same seed; then, each from a seed of its own so
 * that the first `count` do not change: with `fronts`, a photo of each ID card's front (`front`
 * beside its `file`), and `screens` more photos of documents shown on a screen. With
 * `portraits` (JPEG photos of faces), the i-th document carries the i-th face (the others a
 * drawn silhouette). Then `scans` documents scanned or rendered flat, printed in varied styles
 * (scan). Writes labels.json beside them.
 */
export async function generateDocuments(dir: string, count: number, seed = 1, { screens = 0, fronts = false, portraits = [] as Buffer[], scans = 0 } = {}): Promise<GeneratedPhoto[]> {
  mkdirSync(dir, { recursive: true });
  faker.seed(seed);
  COUNTRIES.forEach((c, i) => c.faker.seed(seed * 100 + i));
  // Ages are drawn back from a fixed day, not from today: a seed gives the same documents on any day.
  for (const f of [faker, ...COUNTRIES.map((c) => c.faker)]) f.setDefaultRefDate(REF_DATE);
  const photos: GeneratedPhoto[] = [];
  for (let i = 0; i < count; i++) {
    const format = (['TD3', 'TD1', 'TD3', 'TD2'] as const)[i % 4]!;
    const truth = documentData(faker, format);
    const id = `doc-${String(i).padStart(4, '0')}`;
    const file = path.join(dir, `${id}.jpg`);
    photos.push({ id, file, truth, distortions: await photograph(faker, truth, file, { portrait: portraits[i] }) });
  }
  faker.seed(seed + 2_000_003);
  if (fronts)
    for (const p of photos.filter((x) => x.truth.format === 'TD1')) {
      p.front = p.file.replace(/\.jpg$/, '-front.jpg');
      p.front_distortions = await photograph(faker, p.truth, p.front, { front: true, portrait: portraits[photos.indexOf(p)] });
    }
  faker.seed(seed + 1_000_003);
  for (let i = 0; i < screens; i++) {
    const truth = documentData(faker, (['TD3', 'TD1', 'TD2'] as const)[i % 3]!);
    const id = `screen-${String(i).padStart(4, '0')}`;
    const file = path.join(dir, `${id}.jpg`);
    photos.push({ id, file, truth, distortions: await photograph(faker, truth, file, { screen: true }) });
  }
  if (scans) faker.seed(seed + 3_000_017);
  for (let i = 0; i < scans; i++) {
    const truth = documentData(faker, (['TD3', 'TD1', 'TD3', 'TD2'] as const)[i % 4]!);
    const id = `scan-${String(i).padStart(4, '0')}`;
    const file = path.join(dir, `${id}.jpg`);
    photos.push({ id, file, truth, distortions: await scan(faker, truth, file) });
  }
  writeFileSync(path.join(dir, 'labels.json'), JSON.stringify(photos, null, 1));
  return photos;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, count = '20', seed = '1', screens = '0', scans = '0'] = process.argv.slice(2);
  if (!dir) throw new Error('usage: generate.ts <dir> [count] [seed] [screens] [scans]');
  const photos = await generateDocuments(dir, Number(count), Number(seed), { screens: Number(screens), fronts: true, scans: Number(scans) });
  process.stdout.write(`${photos.length} photos in ${dir}\n`);
}

/**
 * Whether a document photo is of a screen showing the document rather than of the document: a
 * guest who holds up a picture of someone else's passport. A screen lights each pixel as red,
 * green and blue stripes finer than the camera's pixels, and the camera sees each of its pixels
 * through one colour filter: the two grids beat, and the photo carries fine bands of colour
 * (moiré) across the whole document, where print shows colour only in its inks and black text
 * carries none. Over a few squares of the document's page, a Fourier transform of each gives two
 * signs, at periods of 2 to 16 pixels: the power of the colour difference against that of the
 * brightness, and the colour's strongest single period against its median one (a moiré is one
 * period over the whole page).
 *
 * What it proves: a photo it flags has colour bands no print shows, so a retake is asked for.
 * What it does not: a screen photographed blurred, from far, or one whose bands fall finer than
 * the photo's pixels passes, and so does a printout of a screen photo; the thresholds were set
 * and measured on generated photos (bench/documents), not on real screens.
 */
import FFT from 'fft.js';

const SIDE = 256;
const fft = new FFT(SIDE);
/** The Hann window, so a square's edges add no detail of their own. */
const HANN = Float64Array.from({ length: SIDE }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (SIDE - 1)));

/**
 * A photo is of a screen where its squares' median colour share passes SCREEN_SHARE: the guest is
 * asked for a photo of the document in hand. The screens the benchmark photographs and catches
 * reach well past it, while printed documents (photographed, scanned, rendered flat on white or
 * tinted pages under coloured guilloche, and the specimen documents of public repositories)
 * stayed under it: sending back a guest who photographed their own passport is the worse
 * mistake. The flat print of an ID card's back came closest (the colour's detail is measured
 * against the brightness's, and flat print has little). Past HINT_SHARE, or with one colour
 * period SCREEN_PEAK times the median one (a moiré's single beat, but also a guilloche's regular
 * lines), the sign is weak: a note for the host, never a retake (screenHint).
 */
export const SCREEN_SHARE = 4;
export const HINT_SHARE = 2;
export const SCREEN_PEAK = 150_000;

/** The frequencies of a square at periods of 2 to 16 pixels: 1 where a square's detail is counted. */
const BAND = (() => {
  const band = new Uint8Array(SIDE * SIDE);
  for (let x = 0; x < SIDE; x++)
    for (let y = 0; y < SIDE; y++) {
      const [fx, fy] = [x < SIDE / 2 ? x : x - SIDE, y < SIDE / 2 ? y : y - SIDE];
      const r2 = fx * fx + fy * fy;
      band[x * SIDE + y] = r2 >= (SIDE / 16) ** 2 && r2 <= (SIDE / 2) ** 2 ? 1 : 0;
    }
  return band;
})();
const BAND_SIZE = BAND.reduce((n, b) => n + b, 0);

/**
 * The power of one square's detail at periods of 2 to 16 pixels and, with `peak`, its strongest
 * period's against the median one's (the median by a typed array's own sort: a square has some
 * 50,000 such periods).
 */
function detail(square: Float32Array, peak: boolean): { power: number; peak: number } {
  let mean = 0;
  for (const v of square) mean += v;
  mean /= SIDE * SIDE;
  const rows = new Float64Array(SIDE * SIDE * 2);
  const input = fft.createComplexArray() as number[];
  const out = fft.createComplexArray() as number[];
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      input[2 * x] = (square[y * SIDE + x]! - mean) * HANN[x]! * HANN[y]!;
      input[2 * x + 1] = 0;
    }
    fft.transform(out, input);
    rows.set(out, y * SIDE * 2);
  }
  const band = peak ? new Float64Array(BAND_SIZE) : undefined;
  let n = 0;
  let power = 0;
  for (let x = 0; x < SIDE; x++) {
    for (let y = 0; y < SIDE; y++) {
      input[2 * y] = rows[y * SIDE * 2 + 2 * x]!;
      input[2 * y + 1] = rows[y * SIDE * 2 + 2 * x + 1]!;
    }
    fft.transform(out, input);
    for (let y = 0; y < SIDE; y++) {
      if (!BAND[x * SIDE + y]) continue;
      const p = out[2 * y]! ** 2 + out[2 * y + 1]! ** 2;
      power += p;
      if (band) band[n++] = p;
    }
  }
  if (!band) return { power, peak: 0 };
  band.sort();
  return { power, peak: band[band.length - 1]! / Math.max(1e-9, band[band.length >> 1]!) };
}

/**
 * Where to look: squares on the page above the zone where it was found (`zone`: its corners,
 * clockwise from its top left as the document reads, in the picture given), else about the
 * picture's middle. Their top left corners, those that fit.
 */
function squares(width: number, height: number, zone: [number, number][] | null): [number, number][] {
  const points: [number, number][] = [];
  if (zone) {
    const [tl, tr] = zone as [[number, number], [number, number]];
    const length = Math.hypot(tr[0] - tl[0], tr[1] - tl[1]);
    const u = [(tr[0] - tl[0]) / length, (tr[1] - tl[1]) / length];
    const up = [u[1]!, -u[0]!];
    const middle = [(tl[0] + tr[0]) / 2, (tl[1] + tr[1]) / 2];
    for (const a of [0.15, 0.3, 0.45]) for (const b of [-0.25, 0, 0.25]) points.push([middle[0]! + up[0]! * a * length + u[0]! * b * length, middle[1]! + up[1]! * a * length + u[1]! * b * length]);
  } else for (const a of [-0.12, 0, 0.12]) for (const b of [-0.12, 0, 0.12]) points.push([width * (0.5 + a), height * (0.5 + b)]);
  return points.map(([x, y]): [number, number] => [Math.round(x - SIDE / 2), Math.round(y - SIDE / 2)]).filter(([x, y]) => x >= 0 && y >= 0 && x + SIDE <= width && y + SIDE <= height);
}

/** What the squares of the document's page say (medians): the share of colour in their detail, and the colour's strongest period against its median. */
export interface ScreenSigns {
  colour_share: number;
  colour_peak: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** The box that holds the squares the screen check looks at, in the picture decodePhoto made; null where no square fits. */
export function screenArea(width: number, height: number, zone: [number, number][] | null): { left: number; top: number; width: number; height: number } | null {
  const at = squares(width, height, zone);
  if (!at.length) return null;
  const [left, top] = [Math.min(...at.map((p) => p[0])), Math.min(...at.map((p) => p[1]))];
  return { left, top, width: Math.max(...at.map((p) => p[0])) + SIDE - left, height: Math.max(...at.map((p) => p[1])) + SIDE - top };
}

/**
 * The screen's signs in a photo's colours: `area`, the pixels (RGB) of the box screenArea gives,
 * cut from the picture decodePhoto made (image.ts's photoArea); null where no square fits.
 */
export function screenSigns(area: { data: Uint8Array; left: number; top: number; width: number }, width: number, height: number, zone: [number, number][] | null): ScreenSigns | null {
  const at = squares(width, height, zone);
  if (!at.length) return null;
  const looks = at.map(([x0, y0]) => {
    const luma = new Float32Array(SIDE * SIDE);
    const colour = new Float32Array(SIDE * SIDE);
    for (let y = 0; y < SIDE; y++)
      for (let x = 0; x < SIDE; x++) {
        const i = ((y0 - area.top + y) * area.width + x0 - area.left + x) * 3;
        const [r, g, b] = [area.data[i]!, area.data[i + 1]!, area.data[i + 2]!];
        luma[y * SIDE + x] = 0.3 * r + 0.59 * g + 0.11 * b;
        // Red and blue against green: the differences a Bayer mosaic's beat shows most.
        colour[y * SIDE + x] = 2 * (r - g) + (b - g);
      }
    const c = detail(colour, true);
    return { share: (c.power + 1) / (detail(luma, false).power + 1), peak: c.peak };
  });
  return { colour_share: median(looks.map((l) => l.share)), colour_peak: median(looks.map((l) => l.peak)) };
}

export const isScreen = (s: ScreenSigns | null) => !!s && s.colour_share > SCREEN_SHARE;

/** A weak sign of a screen: for the host to look at the photo, not for the guest to take it again. */
export const screenHint = (s: ScreenSigns | null) => !!s && !isScreen(s) && (s.colour_share > HINT_SHARE || s.colour_peak > SCREEN_PEAK);

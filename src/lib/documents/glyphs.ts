/**
 * The OCR-B glyphs of the machine-readable zone, from the public-domain font in assets/fonts
 * (Matthew Skala's OCR-B, as Debian's fonts-ocr-b ships it): as SVG paths, for the test
 * documents, and as small grey templates the reader compares each character cell with.
 */
import opentype from 'opentype.js';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { packageFile } from '../packages.js';

export const MRZ_ALPHABET = '<0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A cell in font units: the advance across; from below the baseline to above the digits, which stand taller than the letters. */
export const CELL = { width: 723, bottom: -120, top: 860 } as const;
/** Template size in pixels. */
export const GRID = { w: 18, h: 24 } as const;

let font: opentype.Font | undefined;
function ocrb(): opentype.Font {
  if (!font) {
    const file = readFileSync(packageFile('assets/fonts/OCRB.otf'));
    font = opentype.parse(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  }
  return font;
}

/** SVG path data of `text` in OCR-B with its baseline at (x, y), `pitch` pixels a character. */
export function ocrbPath(text: string, x: number, y: number, pitch: number): string {
  return ocrb()
    .getPath(text, x, y, (pitch * 1000) / CELL.width)
    .toPathData(2);
}

export interface Template {
  char: string;
  /** Zero-mean, unit-norm grey values (ink positive), GRID.w × GRID.h. */
  values: Float32Array;
}

let templates: Promise<Template[]> | undefined;

/** One template per character of the zone's alphabet, rendered once a process and kept. */
export function glyphTemplates(): Promise<Template[]> {
  templates ??= (async () => {
    // Rendered large, then scaled down with a little blur: the shapes a camera sees.
    const scale = 8;
    return Promise.all(
      [...MRZ_ALPHABET].map(async (char) => {
        // In font units, y down from the baseline (opentype's paths are so): the cell's top is at -CELL.top.
        const d = ocrb().getPath(char, 0, 0, 1000).toPathData(1);
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${GRID.w * scale}" height="${GRID.h * scale}" viewBox="0 ${-CELL.top} ${CELL.width} ${CELL.top - CELL.bottom}" preserveAspectRatio="none"><rect x="0" y="${-CELL.top}" width="${CELL.width}" height="${CELL.top - CELL.bottom}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`;
        const { data } = await sharp(Buffer.from(svg)).flatten({ background: '#fff' }).resize(GRID.w, GRID.h, { fit: 'fill' }).blur(0.5).greyscale().raw().toBuffer({ resolveWithObject: true });
        return { char, values: normalise(Float32Array.from(data, (v) => 255 - v)) };
      }),
    );
  })();
  return templates;
}

/** Zero mean, unit length: a template and a cell compare by their dot product (normalised cross-correlation). */
export function normalise(v: Float32Array): Float32Array {
  let mean = 0;
  for (const x of v) mean += x;
  mean /= v.length;
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    v[i]! -= mean;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

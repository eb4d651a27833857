/**
 * A photo as the reader takes it: JPEG, PNG, WebP or BMP, known by its bytes whatever its name,
 * turned as its EXIF orientation says, scaled down when large, in shades of grey. A JPEG cut short
 * is read as far as it goes, as viewers show it. Anything else is refused with what is wrong in
 * words (the route answers it as a 4xx), before a pixel is decoded where that can be told.
 */
import type sharpModule from 'sharp';
import type { Grey } from './zone.js';
import { SHAPE_OF, type MrzFormat, type MrzShape } from './layout.js';

/** The largest upload read, in bytes (a phone's full-size JPEG is 3 to 8 MB). */
export const MAX_IMAGE_BYTES = 15 * 1024 * 1024;
/** More pixels than any phone camera takes: a larger image is a decompression bomb, not a photo. */
export const MAX_IMAGE_PIXELS = 60_000_000;
/**
 * A bitmap's pixels are decoded in JavaScript, four bytes each: no more of them than the largest
 * upload holds at a byte a pixel (a grey scan), so a compressed bitmap cannot ask for more.
 */
export const MAX_BMP_PIXELS = 16_000_000;
/** The long side the reader works at: the zone's characters stay 12 px or more on a document a third of the frame wide. */
const WORK_SIDE = 2400;

/** Why a file is no photo the reader takes: a size too small is not a wrong type, and is answered as such. */
export type Refusal = 'empty' | 'too_large' | 'type' | 'damaged' | 'too_small' | 'too_many_pixels';

export class ImageRefused extends Error {
  constructor(
    message: string,
    readonly reason: Refusal = 'damaged',
  ) {
    super(message);
  }
}

/** A file's type from its first bytes: the photos the reader opens, and those it refuses by name. */
export function fileKind(data: Buffer): 'jpeg' | 'png' | 'webp' | 'bmp' | 'heic' | 'pdf' | 'gif' | undefined {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (data.subarray(4, 8).toString('latin1') === 'ftyp' && /^(heic|heix|hevc|mif1|msf1)$/.test(data.subarray(8, 12).toString('latin1'))) return 'heic';
  if (data.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (data.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  if (data.length >= 26 && data.subarray(0, 2).toString('latin1') === 'BM' && BMP_HEADERS.has(data.readUInt32LE(14))) return 'bmp';
  return undefined;
}

/** The sizes a bitmap's second header has: OS/2's core header (12 bytes), Windows' (40) and its later versions. */
const BMP_HEADERS = new Set([12, 40, 52, 56, 64, 108, 124]);

/**
 * What the file's headers say, without decoding it (the API process checks uploads with this;
 * the pixels are decoded where jobs run): its type and size in pixels, or the refusal in words.
 */
export function inspectPhoto(data: Buffer): { type: 'image/jpeg' | 'image/png' | 'image/webp' | 'image/bmp'; width: number; height: number } {
  if (data.length === 0) throw new ImageRefused('the file is empty', 'empty');
  if (data.length > MAX_IMAGE_BYTES) throw new ImageRefused(`the file is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`, 'too_large');
  const kind = fileKind(data);
  if (kind === 'heic') throw new ImageRefused(HEIC, 'type');
  if (kind === 'pdf') throw new ImageRefused('the file is a PDF, not a photo: send a JPEG, PNG or WebP image', 'type');
  if (kind === 'gif') throw new ImageRefused('GIF images are not read: send a JPEG, PNG or WebP photo', 'type');
  if (!kind) throw new ImageRefused('the file is not a JPEG, PNG, WebP or BMP image', 'type');
  const size = kind === 'png' ? pngSize(data) : kind === 'jpeg' ? jpegSize(data) : kind === 'bmp' ? bmpSize(data) : webpSize(data);
  if (!size) throw new ImageRefused(`the ${kind.toUpperCase()} file is damaged or cut short`);
  const { width, height } = size;
  if (kind === 'bmp' && width * height > MAX_BMP_PIXELS)
    throw new ImageRefused(`the bitmap has ${width} × ${height} pixels, more than ${MAX_BMP_PIXELS / 1e6} million: send it as a JPEG or PNG`, 'too_many_pixels');
  if (width * height > MAX_IMAGE_PIXELS)
    throw new ImageRefused(`the image has ${width} × ${height} pixels, more than ${MAX_IMAGE_PIXELS / 1e6} million: send the camera's own photo`, 'too_many_pixels');
  // A zone cut out on its own (two lines of 44 characters) is about eight times as wide as high.
  if (Math.max(width, height) < 200 || Math.min(width, height) < 60)
    throw new ImageRefused(`the image is ${width} × ${height} pixels, too small: a photo needs 200 pixels or more on its long side and 60 on its short side`, 'too_small');
  return { type: `image/${kind}`, width, height };
}

const HEIC = 'HEIC photos are not read: send a JPEG (on an iPhone, Settings › Camera › Formats › Most Compatible, or share the photo as JPEG)';

function pngSize(d: Buffer) {
  if (d.length < 33 || d.subarray(12, 16).toString('latin1') !== 'IHDR') return undefined;
  // A PNG ends with its IEND chunk: without it the file was cut short.
  if (d.subarray(d.length - 8, d.length - 4).toString('latin1') !== 'IEND') return undefined;
  return { width: d.readUInt32BE(16), height: d.readUInt32BE(20) };
}

/** A JPEG's size from its frame header. One cut short after it (no end marker) is read as far as it goes. */
function jpegSize(d: Buffer) {
  let i = 2;
  while (i + 9 < d.length) {
    if (d[i] !== 0xff) return undefined;
    const marker = d[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    const length = d.readUInt16BE(i + 2);
    // A start of frame (SOF0 to SOF15 but for DHT, JPG and DAC) holds the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { height: d.readUInt16BE(i + 5), width: d.readUInt16BE(i + 7) };
    i += 2 + length;
  }
  return undefined;
}

/** A bitmap's size from its headers, when its pixels start inside the file (a height below zero: rows top down). */
function bmpSize(d: Buffer) {
  if (d.readUInt32LE(10) >= d.length) return undefined;
  if (d.readUInt32LE(14) === 12) return { width: d.readUInt16LE(18), height: d.readUInt16LE(20) };
  return { width: Math.abs(d.readInt32LE(18)), height: Math.abs(d.readInt32LE(22)) };
}

function webpSize(d: Buffer) {
  if (d.length < 30 || d.readUInt32LE(4) + 8 > d.length) return undefined;
  const chunk = d.subarray(12, 16).toString('latin1');
  if (chunk === 'VP8 ') return { width: d.readUInt16LE(26) & 0x3fff, height: d.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = d.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    if (d[20]! & 0x02) throw new ImageRefused('the image is animated: send a single photo');
    return { width: d.readUIntLE(24, 3) + 1, height: d.readUIntLE(27, 3) + 1 };
  }
  return undefined;
}

/**
 * Options of every decoding of a photo: a bomb is not opened, an animation gives its first frame.
 * A JPEG cut short is decoded as far as it goes (the rest grey), as every viewer shows it: libvips
 * stops on no error at all, since any level that stops on errors stops on a truncation too. A PNG
 * or WebP cut short, or a file no picture at all, was refused by its headers already.
 */
const DECODE = { failOn: 'none', limitInputPixels: MAX_IMAGE_PIXELS, pages: 1 } as const;

/**
 * The photo opened by sharp (libvips). A bitmap, which libvips does not read, is decoded by
 * bmp-ts into its pixels first (its headers were checked by inspectPhoto: no bomb gets here).
 */
async function opened(data: Buffer, options: sharpModule.SharpOptions = DECODE): Promise<sharpModule.Sharp> {
  const { default: sharp } = await import('sharp');
  if (fileKind(data) !== 'bmp') return sharp(data, options);
  const { rgb, width, height } = await bitmapPixels(data);
  return sharp(rgb, { raw: { width, height, channels: 3 }, limitInputPixels: options.limitInputPixels ?? MAX_IMAGE_PIXELS });
}

/** A bitmap's pixels, kept while its bytes are: a reading opens one photo several times (its size, the picture, an area of it). */
const BITMAPS = new WeakMap<Buffer, Promise<{ rgb: Buffer; width: number; height: number }>>();
function bitmapPixels(data: Buffer): Promise<{ rgb: Buffer; width: number; height: number }> {
  let pixels = BITMAPS.get(data);
  if (!pixels) {
    pixels = import('bmp-ts').then(({ decode }) => {
      const bmp = decode(data);
      // bmp-ts gives each pixel as alpha, blue, green, red.
      const rgb = Buffer.alloc(bmp.width * bmp.height * 3);
      for (let i = 0, o = 0; o < rgb.length; i += 4, o += 3) {
        rgb[o] = bmp.data[i + 3]!;
        rgb[o + 1] = bmp.data[i + 2]!;
        rgb[o + 2] = bmp.data[i + 1]!;
      }
      return { rgb, width: bmp.width, height: bmp.height };
    });
    BITMAPS.set(data, pixels);
  }
  return pixels;
}

/** The picture the reader works on: turned as its EXIF says, scaled to WORK_SIDE at most, without alpha. */
async function workingPicture(data: Buffer) {
  return (await opened(data)).rotate().resize({ width: WORK_SIDE, height: WORK_SIDE, fit: 'inside', withoutEnlargement: true }).removeAlpha();
}

/**
 * Decodes the photo for the reader, in grey. sharp (libvips) loads here, in the processes that
 * read, never in the API's. The colours are not kept: what needs them (the screen check, the
 * crop) cuts its own part out of the photo again, and a whole picture in colour was the largest
 * thing a reading held.
 */
export async function decodePhoto(data: Buffer): Promise<Grey & { original: { width: number; height: number } }> {
  const { width, height } = await openable(data);
  const original = { width, height };
  try {
    // Turned to grey after the scaling, as the reader's thresholds were set on (greyscale() would
    // turn it before, into a grey a level or so apart).
    const { data: pixels, info } = await (await workingPicture(data)).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.length), width: info.width, height: info.height, original };
  } catch {
    throw new ImageRefused('the image could not be read: it is damaged or cut short');
  }
}

/** The photo's size (and EXIF orientation) once its headers and sharp's own reading of them agree it can be opened; ImageRefused otherwise. */
async function openable(data: Buffer): Promise<{ width: number; height: number; orientation: number }> {
  inspectPhoto(data);
  let meta: sharpModule.Metadata;
  try {
    meta = await (await opened(data, { ...DECODE, limitInputPixels: false })).metadata();
  } catch {
    throw new ImageRefused('the image could not be read: it is damaged or not a picture');
  }
  const [width, height] = [meta.width ?? 0, meta.height ?? 0];
  if (width * height > MAX_IMAGE_PIXELS)
    throw new ImageRefused(`the image has ${width} × ${height} pixels, more than ${MAX_IMAGE_PIXELS / 1e6} million: send the camera's own photo`, 'too_many_pixels');
  if ((meta.pages ?? 1) > 1) throw new ImageRefused('the image is animated: send a single photo');
  return { width, height, orientation: meta.orientation ?? 1 };
}

/**
 * Decodes a photo in colour (RGB, 3 bytes a pixel), turned as its EXIF says and scaled to `side`
 * pixels at most on its long side: what faces are looked for in (lib/faces); only `box` of that
 * picture where given (a small face looked at again from more of the photo's pixels). `original`:
 * the photo's own size, turned as its EXIF says.
 */
export async function decodeColour(
  data: Buffer,
  side: number,
  box?: { left: number; top: number; width: number; height: number },
): Promise<{ data: Uint8Array; width: number; height: number; original: { width: number; height: number } }> {
  const { width, height, orientation } = await openable(data);
  // EXIF orientations 5 to 8 turn the photo a quarter.
  const original = orientation >= 5 ? { width: height, height: width } : { width, height };
  try {
    const picture = (await opened(data)).rotate().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true }).removeAlpha().toColourspace('srgb');
    const { data: pixels, info } = await (box ? picture.extract(box) : picture).raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.length), width: info.width, height: info.height, original };
  } catch {
    throw new ImageRefused('the image could not be read: it is damaged or cut short');
  }
}

/** The colours (RGB, 3 bytes a pixel) of a box of the picture decodePhoto made. */
export async function photoArea(data: Buffer, box: { left: number; top: number; width: number; height: number }): Promise<Uint8Array> {
  const pixels = await (await workingPicture(data)).toColourspace('srgb').extract(box).raw().toBuffer();
  return new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.length);
}

/**
 * A photo as the host is shown it, and as the selfie is compared with it: turned as its EXIF says
 * and then by `turn` degrees (an ID card's front upright, as its words tell), at the reader's size
 * at most (the card's front is photographed whole: its portrait is a small part of it, and the
 * comparison looks at it closely), as a JPEG.
 */
export async function hostPhoto(data: Buffer, turn = 0): Promise<Buffer> {
  // One pipeline: the EXIF turn on opening, the card's after the scaling. No picture in between is
  // encoded and opened again, which held two more copies of the photo at the reader's size.
  return (await workingPicture(data)).rotate(turn, { background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer();
}

/**
 * A document's size as ICAO 9303 gives it, against its zone: how many zone widths wide it is (the
 * zone is its characters times 2.54 mm, centred) and its height against its width.
 */
const DOCUMENT_SHAPE: Record<MrzShape, { widthPerZone: number; heightPerWidth: number }> = {
  TD1: { widthPerZone: 85.6 / 76.2, heightPerWidth: 54 / 85.6 },
  TD2: { widthPerZone: 105 / 91.44, heightPerWidth: 74 / 105 },
  TD3: { widthPerZone: 125 / 111.76, heightPerWidth: 88 / 125 },
};
/** The crop's width: enough for a host to compare the portrait and the printed page. */
const CROP_WIDTH = 1200;

/**
 * The document cut out of its photo and turned upright, as a JPEG, from where its zone was found
 * (`corners`: the zone's, in the picture decodePhoto made, clockwise from its top left as the
 * document reads; `picture`: that picture's size). The document is taken to stand on its zone,
 * as wide as its format makes it against the zone, with a small margin; perspective is not undone.
 */
export async function cropDocument(data: Buffer, corners: [number, number][], picture: { width: number; height: number }, format: MrzFormat): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const [tl, tr, , bl] = corners as [[number, number], [number, number], [number, number], [number, number]];
  const zoneWidth = Math.hypot(tr[0] - tl[0], tr[1] - tl[1]);
  const u = [(tr[0] - tl[0]) / zoneWidth, (tr[1] - tl[1]) / zoneWidth] as const;
  // Down the page, square to the zone's lines (in a picture, y grows downwards).
  const down = [-u[1], u[0]] as const;
  const shape = DOCUMENT_SHAPE[SHAPE_OF[format]];
  const width = zoneWidth * shape.widthPerZone * 1.04;
  const height = zoneWidth * shape.widthPerZone * shape.heightPerWidth * 1.06;
  const zoneHeight = (bl[0] - tl[0]) * down[0] + (bl[1] - tl[1]) * down[1];
  // The zone's bottom edge, at its middle, and the document's bottom a little below it.
  const bottom = [(tl[0] + tr[0]) / 2 + down[0] * (zoneHeight + height * 0.03), (tl[1] + tr[1]) / 2 + down[1] * (zoneHeight + height * 0.03)];
  const quad = [
    [bottom[0]! - (u[0] * width) / 2 - down[0] * height, bottom[1]! - (u[1] * width) / 2 - down[1] * height],
    [bottom[0]! + (u[0] * width) / 2 - down[0] * height, bottom[1]! + (u[1] * width) / 2 - down[1] * height],
    [bottom[0]! + (u[0] * width) / 2, bottom[1]! + (u[1] * width) / 2],
    [bottom[0]! - (u[0] * width) / 2, bottom[1]! - (u[1] * width) / 2],
  ];
  // The picture as the reader saw it, cut to the box that holds the document, then turned so
  // that the zone's lines run left to right: only the document's box is kept and turned.
  const boxLeft = Math.min(picture.width - 1, Math.max(0, Math.floor(Math.min(...quad.map((p) => p[0]!)))));
  const boxTop = Math.min(picture.height - 1, Math.max(0, Math.floor(Math.min(...quad.map((p) => p[1]!)))));
  const boxWidth = Math.max(1, Math.min(picture.width, Math.ceil(Math.max(...quad.map((p) => p[0]!)))) - boxLeft);
  const boxHeight = Math.max(1, Math.min(picture.height, Math.ceil(Math.max(...quad.map((p) => p[1]!)))) - boxTop);
  const box = await (await workingPicture(data)).toColourspace('srgb').extract({ left: boxLeft, top: boxTop, width: boxWidth, height: boxHeight }).raw().toBuffer({ resolveWithObject: true });
  const angle = (Math.atan2(u[1], u[0]) * 180) / Math.PI;
  const turned = await sharp(box.data, { raw: { width: box.info.width, height: box.info.height, channels: box.info.channels } })
    .rotate(-angle, { background: '#ffffff' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // sharp turns about the box's centre onto a canvas that holds the whole turned box.
  const [c, s] = [Math.cos((-angle * Math.PI) / 180), Math.sin((-angle * Math.PI) / 180)];
  const [cx, cy] = [boxLeft + boxWidth / 2, boxTop + boxHeight / 2];
  const moved = quad.map(([x, y]) => [c * (x! - cx) - s * (y! - cy) + turned.info.width / 2, s * (x! - cx) + c * (y! - cy) + turned.info.height / 2] as const);
  const left = Math.max(0, Math.floor(Math.min(...moved.map((p) => p[0]))));
  const top = Math.max(0, Math.floor(Math.min(...moved.map((p) => p[1]))));
  const right = Math.min(turned.info.width, Math.ceil(Math.max(...moved.map((p) => p[0]))));
  const lower = Math.min(turned.info.height, Math.ceil(Math.max(...moved.map((p) => p[1]))));
  return sharp(turned.data, { raw: { width: turned.info.width, height: turned.info.height, channels: turned.info.channels } })
    .extract({ left, top, width: Math.max(1, right - left), height: Math.max(1, lower - top) })
    .resize({ width: CROP_WIDTH, withoutEnlargement: true })
    .jpeg({ quality: 82 })
    .toBuffer();
}

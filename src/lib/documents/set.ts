/**
 * A reading's photos read together: a passport's page, or an ID card's two sides in either
 * order. The zone is taken from the photo where it reads best; the printed page is compared with
 * it (a passport's above its zone, cut out of the same photo; an ID card's front, the other
 * photo); a screen seen on either side is said.
 */
import { cropDocument } from './image.js';
import { readCardFront, readPrintedPage } from './printed.js';
import { readDocumentPhoto, type DocumentReading } from './read.js';

export interface SetReading {
  reading: DocumentReading;
  /** The document cut out of the photo its zone was read from (a JPEG), for the host. */
  crop: Buffer | null;
  /** Why the printed page could not be read, where it could not: the zone's reading stands without it. */
  pageError?: string;
}

/** Reads the photos of one document. Throws ImageRefused (image.ts) for a photo that is no photo. */
export async function readDocumentSet(photos: Buffer[], today: Date): Promise<SetReading> {
  let best: DocumentReading | undefined;
  let zoneIn: Buffer | undefined;
  let screen = false;
  for (const data of photos) {
    const reading = await readDocumentPhoto(data, today);
    screen ||= reading.problems.includes('screen_photo');
    if (!best || (reading.document && (!best.document || (reading.document.valid && !best.document.valid)))) [best, zoneIn] = [reading, data];
    if (best.document?.valid) break;
  }
  if (!best || !zoneIn) throw new Error('no photo to read');
  // Either side photographed on a screen is said, whichever side the zone was read from.
  if (screen && !best.problems.includes('screen_photo')) best.problems.unshift('screen_photo');
  const doc = best.document;
  const crop = doc && best.zone_corners && best.picture ? await cropDocument(zoneIn, best.zone_corners, best.picture, doc.format).catch(() => null) : null;
  let pageError: string | undefined;
  if (doc) {
    const front = photos.find((p) => p !== zoneIn);
    const page = doc.format === 'TD1' ? front && readCardFront(front, doc, best.name_region) : crop && readPrintedPage(crop, doc, best.name_region);
    doc.printed = page ? await page.catch((err: unknown) => ((pageError = (err as Error).message), null)) : null;
  }
  return { reading: best, crop, ...(pageError ? { pageError } : {}) };
}

/**
 * A reading's photos read together: a passport's page, or an ID card's two sides in either
 * order. The zone is taken from the photo where it reads best; the printed page is compared with
 * it (a passport's above its zone, cut out of the same photo; an ID card's front, the other
 * photo); a screen seen on either side is said.
 */
import { cropDocument, hostPhoto } from './image.js';
import { readCardFront, readPrintedPage } from './printed.js';
import { readDocumentPhoto, type DocumentReading } from './read.js';

export interface SetReading {
  reading: DocumentReading;
  /**
   * What the host is shown of the document (a JPEG): the page cut out of the photo its zone was
   * read from, or for an ID card, its front (the side with the portrait), as sent; the back's
   * cut-out where no front was sent.
   */
  crop: Buffer | null;
  /** Why the printed page could not be read, where it could not: the zone's reading stands without it. */
  pageError?: string;
}

/** Reads the photos of one document. Throws ImageRefused (image.ts) for a photo that is no photo. */
export async function readDocumentSet(photos: Buffer[], today: Date): Promise<SetReading> {
  let best: DocumentReading | undefined;
  let zoneIn: Buffer | undefined;
  let screen = false;
  let hint = false;
  // The templates and the recogniser first, on each photo; the detector (the costliest look, and
  // one an ID card's front, which has no zone, would always get) only where no photo read so.
  for (const detect of photos.length > 1 ? [false, true] : [true]) {
    for (const data of photos) {
      const reading = await readDocumentPhoto(data, today, { detect });
      screen ||= reading.problems.includes('screen_photo');
      hint ||= reading.screen_hint === true;
      if (!best || (reading.document && (!best.document || (reading.document.valid && !best.document.valid)))) [best, zoneIn] = [reading, data];
      if (best.document?.valid) break;
    }
    if (best?.document?.valid) break;
  }
  if (!best || !zoneIn) throw new Error('no photo to read');
  // Either side photographed on a screen is said, whichever side the zone was read from.
  if (screen && !best.problems.includes('screen_photo')) best.problems.unshift('screen_photo');
  if (hint && !best.problems.includes('screen_photo')) best.screen_hint = true;
  const doc = best.document;
  const front = photos.find((p) => p !== zoneIn);
  // An ID card's portrait is on its front, not on the back its zone is read from.
  if (doc?.format === 'TD1') best.portrait = front ? 'card_front' : 'missing';
  const zoneCrop = doc && best.zone_corners && best.picture ? await cropDocument(zoneIn, best.zone_corners, best.picture, doc.format).catch(() => null) : null;
  let pageError: string | undefined;
  // How the card's front lies in its photo, as its printed words tell: it is kept upright.
  const seen = { turn: 0 };
  if (doc) {
    const page = doc.format === 'TD1' ? front && readCardFront(front, doc, best.name_region, seen) : zoneCrop && readPrintedPage(zoneCrop, doc, best.name_region);
    doc.printed = page ? await page.catch((err: unknown) => ((pageError = (err as Error).message), null)) : null;
    doc.name_confirmed = doc.printed?.surname.agrees === 'same' && doc.printed.given_names.agrees === 'same';
  }
  const crop = doc?.format === 'TD1' && front ? await hostPhoto(front, seen.turn).catch(() => zoneCrop) : zoneCrop;
  return { reading: best, crop, ...(pageError ? { pageError } : {}) };
}

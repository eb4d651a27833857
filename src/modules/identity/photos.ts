/** The photos of a reading as they arrive and as they are kept: checked from their headers, sealed to the account, the reading and the image. */
import type { Deps } from '../../deps.js';
import { ImageRefused, inspectPhoto, type Refusal } from '../../lib/documents/image.js';
import { AppError, badRequest, type ErrorCode } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { ImageRow } from './repo.js';

/** The camera's frames a selfie may come with, at most: a second or two of a phone's camera. */
export const MOST_FRAMES = 8;

/** How many days after check-out a document's photos and a selfie are kept, unless the account says otherwise (its screening settings' `document_photo_days`). */
export const DOCUMENT_PHOTO_DAYS = 30;

export interface Photo {
  side: 'front' | 'back' | 'selfie' | 'frame';
  data: Buffer;
  /** The form part it came in, when not named after its side: errors name it. */
  part?: string;
}

export const imageAad = (accountId: string, verificationId: string, imageId: string) => `identity_image:${accountId}:${verificationId}:${imageId}`;

/** Each refusal as HTTP says it: a photo too small is a photo of the right type that cannot be used (422), not a wrong type (415). */
const REFUSAL_CODES: Record<Refusal, ErrorCode> = {
  empty: 'bad_request',
  too_large: 'payload_too_large',
  type: 'unsupported_media_type',
  damaged: 'unsupported_media_type',
  too_small: 'unprocessable',
  too_many_pixels: 'unprocessable',
};

/** The photos as sent, checked from their headers: a 4xx naming the problem, or their types. */
export function checkPhotos(photos: Photo[], needs: 'front' | 'selfie' = 'front'): (Photo & { type: string })[] {
  if (needs === 'front' && !photos.some((p) => p.side === 'front')) throw badRequest('front: a photo of the document is required (multipart/form-data, a file part named front)');
  if (!photos.some((p) => p.side === 'selfie') && (needs === 'selfie' || photos.some((p) => p.side === 'frame')))
    throw badRequest("selfie: a photo of the guest's face is required with selfie_frames (a file part named selfie)");
  if (photos.filter((p) => p.side === 'frame').length > MOST_FRAMES) throw badRequest(`selfie_frames: at most ${MOST_FRAMES} frames`);
  return photos.map((p) => {
    try {
      return { ...p, type: inspectPhoto(p.data).type };
    } catch (err) {
      if (err instanceof ImageRefused) throw new AppError(REFUSAL_CODES[err.reason], `${p.part ?? p.side}: ${err.message}`);
      throw err;
    }
  });
}

/** The side of a reading's document cut out of its photo (the reading job adds it). */
export const CROP_SIDE = 'document' as const;

/** A photo's row, its bytes sealed to the account, the reading and the image. */
export function sealedImage(deps: Deps, accountId: string, verificationId: string, side: ImageRow['side'], type: string, data: Buffer, now: string) {
  const id = newId('img');
  return {
    id,
    verification_id: verificationId,
    account_id: accountId,
    side,
    content_type: type,
    size: data.length,
    data_enc: deps.secrets.sealBytes(data, imageAad(accountId, verificationId, id)),
    created_at: now,
  };
}

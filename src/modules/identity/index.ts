/** What the identity module offers the modules above it: they import nothing else of it. */
export { portalSelfie, submitSelfie, type PortalSelfie } from './faces.js';
export { DOCUMENT_PHOTO_DAYS, MOST_FRAMES, type Photo } from './photos.js';
export { latestReading, latestReadingRef, type ReadingRef } from './reading.js';
export { ReadDocument, SelfieRecord } from './schemas.js';
export { photoRefusal, portalReading, submitDocument, type PortalReading } from './service.js';

import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { authErrors, ErrorResponse } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import { MAX_IMAGE_BYTES } from '../../lib/documents/image.js';
import { AppError, badRequest } from '../../lib/errors.js';
import { MOST_FRAMES } from './photos.js';
import { ReadDocument as Document, FaceSection, LivenessSection, PhotoComparison, PhotoProblemView as Problem } from './schemas.js';
import { compareOnce } from './faces.js';
import * as identity from './service.js';

const tags = ['Identity documents'];
const Verification = Type.Object(
  {
    id: Type.String(),
    reservation_id: Nullable(Type.String()),
    status: StringEnum(['pending', 'finished', 'failed']),
    document: Nullable(Document),
    problems: Type.Array(Problem, { description: 'what kept the photo from being read whole; empty when every check digit holds' }),
    error: Nullable(Type.String({ description: 'why the photos could not be read at all (failed)' })),
    ms: Nullable(Type.Integer({ description: 'how long the reading took' })),
    created_at: Type.String(),
    finished_at: Nullable(Type.String()),
    images_deleted_at: Nullable(Type.String()),
    face: Nullable(FaceSection),
    liveness: Nullable(LivenessSection),
  },
  { title: 'IdentityVerification' },
);

type Part = 'front' | 'back' | 'image' | 'selfie' | 'selfie_frames' | 'image_a' | 'image_b';
/** The part that may come several times: the camera's frames, in the order taken. */
const REPEATED = 'selfie_frames';
/** All of a request's images together, at most: a document's two sides and a selfie at full size, and its frames. */
const MOST_BYTES = 3 * MAX_IMAGE_BYTES;

/** The request's image parts, by name (the frames in order); anything else in the form is refused with its name. */
async function readImages(request: FastifyRequest, allowed: Part[]): Promise<Map<string, Buffer[]>> {
  if (!request.isMultipart()) throw new AppError('unsupported_media_type', `the body must be multipart/form-data with ${allowed.map((a) => `a file part named ${a}`).join(' and ')}`);
  const images = new Map<string, Buffer[]>();
  let current: string = allowed[0]!;
  let total = 0;
  try {
    for await (const part of request.parts()) {
      current = part.fieldname.slice(0, 40);
      if (!(allowed as string[]).includes(part.fieldname)) throw badRequest(`${part.fieldname.slice(0, 40)}: unknown part (expected ${allowed.join(' or ')})`);
      if (part.type !== 'file') throw badRequest(`${part.fieldname}: must be a file part`);
      if (images.has(part.fieldname) && part.fieldname !== REPEATED) throw badRequest(`${part.fieldname}: sent twice`);
      const data = await part.toBuffer();
      total += data.length;
      if (total > MOST_BYTES) throw new AppError('payload_too_large', `${part.fieldname}: the images together are larger than ${MOST_BYTES / 1024 / 1024} MB`);
      images.set(part.fieldname, [...(images.get(part.fieldname) ?? []), data]);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT')
      throw new AppError(
        'payload_too_large',
        `${current}: the file is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB (at most ${allowed.includes(REPEATED) ? allowed.length - 1 + MOST_FRAMES : allowed.length} ${allowed.length === 1 ? 'image' : 'images'} a request)`,
      );
    throw badRequest(`the multipart body could not be read: ${(err as Error).message}`);
  }
  return images;
}

const IMAGE_ERRORS = { ...authErrors, 413: Type.Ref(ErrorResponse), 422: Type.Ref(ErrorResponse), 503: Type.Ref(ErrorResponse) };

/** Identity documents read from their photos: a reservation's (read as a job) and one-off reads. */
export const identityRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Per request: a document's two sides, a selfie and its frames at most (the routes name what each takes).
    await app.register(multipart, { limits: { fileSize: MAX_IMAGE_BYTES, files: 3 + MOST_FRAMES, fields: 0, parts: 3 + MOST_FRAMES, headerPairs: 50 } });

    app.post(
      '/reservations/:id/identity-documents',
      {
        schema: {
          tags,
          operationId: 'submitIdentityDocument',
          summary: "Send photos of the guest's passport or ID card to be read (multipart/form-data: front, and back for an ID card), with a selfie to compare with its portrait",
          description: `Answers 202 at once; the reading runs as a job (a second or two) and the reservation is screened again when it ends. JPEG, PNG, WebP or BMP, known by their bytes whatever their names (a JPEG cut short is read as far as it goes), 15 MB at most each; HEIC is refused with how to send a JPEG. With a selfie part, the guest's face is compared with the document's portrait, and with selfie_frames (up to ${MOST_FRAMES} parts of that name, a camera's frames in the order taken) the liveness signals look for a head turn and a blink across them: the verification's face and liveness sections.`,
          consumes: ['multipart/form-data'],
          params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
          response: { 202: Type.Object({ id: Type.String(), status: Type.Literal('pending') }), ...IMAGE_ERRORS },
        },
      },
      async (request, reply) => {
        await identity.assertReservation(deps, request.account, request.params.id);
        const images = await readImages(request, ['front', 'back', 'selfie', REPEATED]);
        const photos = [...images].flatMap(([part, data]) => data.map((d) => ({ side: part === REPEATED ? ('frame' as const) : (part as 'front' | 'back' | 'selfie'), data: d, part })));
        return reply.code(202).send(await identity.submitDocument(deps, request.account, request.params.id, 'api', photos));
      },
    );

    app.get(
      '/identity-verifications/:id',
      {
        schema: {
          tags,
          operationId: 'getIdentityVerification',
          summary: 'A reading of identity document photos: status, the fields read with their check digits, the photo problems in words',
          params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
          response: { 200: Verification, ...authErrors },
        },
      },
      async (request) => identity.getVerification(deps, request.account, request.params.id),
    );

    app.post(
      '/identity/read',
      {
        schema: {
          tags,
          operationId: 'readIdentityDocument',
          summary: 'Read one photo of a passport or ID card and answer what it says, with no reservation (multipart/form-data: image)',
          description:
            'For a check-in kiosk or a PMS app: answers when the reading is done, waiting up to 30 s (GUESTSCREEN_IDENTITY_READ_WAIT_SECONDS). A photo still being read when the wait ends is answered 202 with its id and a Location to ask (GET /v1/identity-verifications/{id}, which answers it once done and forgets it then; kept 15 minutes at most); 503 with Retry-After when no worker got to it (none running, or all busy). Nothing is kept once answered: neither the photo nor what was read.',
          consumes: ['multipart/form-data'],
          response: { 200: Verification, 202: Type.Object({ id: Type.String(), status: Type.Literal('pending') }), ...IMAGE_ERRORS },
        },
      },
      async (request, reply) => {
        const images = await readImages(request, ['image']);
        const image = images.get('image')?.[0];
        if (!image) throw badRequest('image: a photo is required (multipart/form-data, a file part named image)');
        const answer = await identity.readOnce(deps, request.account, image);
        if (answer.status !== 'pending') return answer;
        return reply.code(202).header('location', `/v1/identity-verifications/${answer.id}`).header('retry-after', '5').send(answer);
      },
    );

    app.post(
      '/identity/compare',
      {
        schema: {
          tags,
          operationId: 'compareFaces',
          summary: 'Compare the faces of two photos (multipart/form-data: image_a, image_b): the same person, not the same person, or cannot tell',
          description:
            'Answers when the comparison is done (up to 30 s; 503 when no worker runs), with the similarity, the calibrated threshold and the verdict. Nothing is kept: neither the photos nor the faces’ descriptors.',
          consumes: ['multipart/form-data'],
          response: { 200: PhotoComparison, ...IMAGE_ERRORS },
        },
      },
      async (request) => {
        const images = await readImages(request, ['image_a', 'image_b']);
        const [a, b] = [images.get('image_a')?.[0], images.get('image_b')?.[0]];
        if (!a || !b) throw badRequest(`${a ? 'image_b' : 'image_a'}: a photo is required (multipart/form-data, file parts named image_a and image_b)`);
        return compareOnce(deps, request.account, a, b);
      },
    );
  };

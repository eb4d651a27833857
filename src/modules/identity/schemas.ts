/** The shapes of what is read from an identity document, as the API answers them. */
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/validation.js';

const Check = StringEnum(['valid', 'invalid', 'none'], {
  description:
    "valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see",
});
const Field = Type.Object({
  value: Nullable(Type.String()),
  check: Check,
  corrected: Type.Optional(Type.Boolean({ description: 'a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold' })),
});
const PrintedName = Type.Object({
  printed: Nullable(Type.String({ description: 'the name as printed on the page, where found' })),
  agrees: StringEnum(['same', 'differs', 'unread'], {
    description: 'same: printed as the zone says; differs: printed a letter or two apart (a misread or an altered document); unread: not found on the page',
  }),
});

/** What was read from a document's zone: the API's `document`, and the decision record's. */
export const ReadDocument = Type.Object(
  {
    format: StringEnum(['TD1', 'TD2', 'TD3', 'MRV-A', 'MRV-B', 'FR-ID'], {
      description:
        "TD3: passport data page (2 × 44); TD2: 2 × 36; TD1: ID card (3 × 30); MRV-A and MRV-B: visas (2 × 44, 2 × 36); FR-ID: France's identity card of 1988 to 2021 (2 × 36, its own layout: no nationality, and an expiry worked out from the issue month its number begins with)",
    }),
    document_type: Field,
    issuing_state: Field,
    document_number: Field,
    surname: Field,
    given_names: Field,
    nationality: Field,
    birth_date: Type.Object({ ...Field.properties, value: Nullable(Type.String({ description: 'YYYY-MM-DD' })) }),
    sex: Field,
    expiry_date: Type.Object({ ...Field.properties, value: Nullable(Type.String({ description: 'YYYY-MM-DD' })) }),
    optional_data: Field,
    composite: Check,
    valid: Type.Boolean({ description: 'every check digit the document has holds; a name has none (see name_confirmed)' }),
    name_confirmed: Type.Optional(
      Type.Boolean({
        description:
          "true: the name printed on the document (a passport's page, an ID card's front) was read and is the zone's, surname and given names; false: the name was read from the machine-readable zone only, which has no check digit for it (no printed page read, or an ID card's back sent alone), so a letter misread in it passes every check. Absent from readings made before it was kept",
      }),
    ),
    zone: Type.Array(Type.String(), { description: "the machine-readable zone's lines as read" }),
    printed: Type.Optional(
      Nullable(
        Type.Object(
          {
            surname: PrintedName,
            given_names: PrintedName,
            birth_date: StringEnum(['same', 'unread'], { description: "same: the zone's birth date is among the dates printed on the page" }),
            expiry_date: StringEnum(['same', 'unread'], { description: "same: the zone's expiry date is among the dates printed on the page" }),
          },
          { description: "the printed page's (an ID card's front's) name and dates against the zone's; null where no page was read (an ID card's back sent without its front)" },
        ),
      ),
    ),
  },
  { title: 'ReadDocument' },
);
export const PhotoProblemView = Type.Object({
  code: StringEnum(['screen_photo', 'too_dark', 'blurred', 'glare', 'zone_cut_off', 'no_document', 'zone_unreadable'], {
    description: 'screen_photo: the photo is of a screen showing the document (said even where the zone reads); the others: why no zone could be read',
  }),
  message: Type.String({ description: 'what is wrong with the photo and how to take it again, in words for the guest' }),
});

const FaceProblemCode = StringEnum(['no_face', 'several_faces', 'face_too_small', 'too_dark', 'eyes_closed']);
const Verdict = StringEnum(['same_person', 'not_same_person', 'cannot_tell'], {
  description: 'same_person: closer than the threshold calibrated at 1 % false matches; not_same_person: farther than almost any two photos of one person; cannot_tell: in between, or a face missing',
});

/** A selfie compared with the document's portrait: the API's `face`. */
export const FaceSection = Type.Object(
  {
    status: StringEnum(['pending', 'finished', 'failed']),
    similarity: Nullable(Type.Number({ description: '0 to 1, 1 less the distance between the two faces’ descriptors; null while pending or where a face is missing' })),
    threshold: Nullable(Type.Number({ description: 'the similarity from which the faces are taken for one person (calibrated by npm run bench:faces)' })),
    verdict: Nullable(Verdict),
    strength: Nullable(StringEnum(['very_likely', 'likely', 'too_close', 'unlikely', 'no_face', 'several_faces'])),
    words: Type.String({ description: 'the verdict in words: "very likely the same person", "cannot tell: …"' }),
    reasons: Type.Array(
      Type.Object({
        code: StringEnum(['no_face', 'several_faces', 'face_too_small', 'too_dark', 'eyes_closed', 'no_document_face']),
        message: Type.String(),
      }),
      { description: 'what kept the comparison from saying more, and what the guest can take again' },
    ),
    error: Nullable(Type.String({ description: 'why the selfie could not be compared at all (failed)' })),
  },
  { title: 'FaceComparison', description: 'the selfie compared with the document’s portrait; null without a selfie' },
);

/** The liveness signals of a selfie: the API's `liveness`. */
export const LivenessSection = Type.Object(
  {
    signals: Type.Array(
      Type.Object({
        code: StringEnum(['one_face', 'not_the_document', 'head_turn', 'blink', 'screen']),
        result: StringEnum(['passed', 'failed', 'not_checked']),
        shows: Type.String({ description: 'what the signal shows when it passes, and no more' }),
        message: Type.String({ description: 'what was seen, in words' }),
      }),
    ),
    frames: Type.Integer({ description: 'how many of the camera’s frames came with the selfie' }),
    words: Type.String({ description: 'what the signals are and are not: signs of a live person, not proof' }),
  },
  { title: 'Liveness', description: 'the selfie’s liveness signals, each with what it shows; null without a selfie, or until compared' },
);

/** A one-off comparison of two photos (POST /v1/identity/compare). */
export const PhotoComparison = Type.Object(
  {
    similarity: Nullable(Type.Number({ description: '0 to 1; null where a photo shows no face' })),
    threshold: Type.Number(),
    same_person: Nullable(Type.Boolean({ description: 'true or false where the faces say so clearly; null where it cannot be told (see reasons)' })),
    verdict: Verdict,
    words: Type.String(),
    reasons: Type.Array(Type.Object({ code: FaceProblemCode, image: StringEnum(['image_a', 'image_b']), message: Type.String() })),
  },
  { title: 'FaceComparisonResult' },
);

/** A selfie's comparison as a screening run's decision record keeps it: no photo, no descriptor. */
export const SelfieRecord = Type.Object(
  {
    face: Type.Object({
      similarity: Nullable(Type.Number()),
      threshold: Type.Number(),
      verdict: Verdict,
      strength: StringEnum(['very_likely', 'likely', 'too_close', 'unlikely', 'no_face', 'several_faces']),
      problems: Type.Array(FaceProblemCode),
      document_face: Type.Boolean(),
    }),
    liveness: Type.Object({
      signals: Type.Array(Type.Object({ code: Type.String(), result: StringEnum(['passed', 'failed', 'not_checked']) })),
      frames: Type.Integer(),
    }),
  },
  { description: "the guest's selfie against the document's portrait as the run saw it; null or absent without a compared selfie" },
);

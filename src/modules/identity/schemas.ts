/** The shapes of what is read from an identity document, as the API answers them. */
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/validation.js';

const Check = StringEnum(['valid', 'invalid', 'none'], { description: "valid or invalid by the field's check digit; none where the zone gives it none (names, codes)" });
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
    format: StringEnum(['TD1', 'TD2', 'TD3'], { description: 'TD3: passport data page (2 × 44); TD2: 2 × 36; TD1: ID card (3 × 30)' }),
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
    valid: Type.Boolean({ description: 'every check digit the document has holds' }),
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

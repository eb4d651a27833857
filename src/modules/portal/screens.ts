import type { Screen } from '../settings/screens.js';

/**
 * What each of the 22 guest-portal screens asks, as data: the portal's page renders a screen's
 * fields, and its answer is validated against them. Screens whose data source or payment
 * provider lives elsewhere (background and credit checks, the add-on searches, the deposit)
 * ask for the guest's consent or acknowledgement; what the checks do with it is theirs.
 */
export type FieldKind = 'text' | 'email' | 'tel' | 'url' | 'date' | 'time' | 'select' | 'textarea' | 'checkbox' | 'file';

export interface Field {
  name: string;
  label: string;
  kind: FieldKind;
  /** Must be given whenever the screen is saved (an optional screen can still be skipped whole). */
  required?: boolean;
  options?: readonly (readonly [value: string, label: string])[];
  help?: string;
  maxLength?: number;
}

export interface ScreenDef {
  title: string;
  intro: string;
  fields: readonly Field[];
}

const consent = (label: string): Field => ({ name: 'consent', label, kind: 'checkbox', required: true });

export const DOCUMENT_TYPES = [
  ['passport', 'Passport'],
  ['id_card', 'National identity card'],
  ['driving_licence', 'Driving licence'],
  ['residence_permit', 'Residence permit'],
] as const;

export const SCREEN_DEFS: Record<Screen, ScreenDef> = {
  AboutYou: {
    title: 'About you',
    intro: 'Confirm who is staying and how your host can reach you.',
    fields: [
      { name: 'first_name', label: 'First name', kind: 'text', required: true, maxLength: 100 },
      { name: 'last_name', label: 'Last name', kind: 'text', required: true, maxLength: 100 },
      { name: 'email', label: 'E-mail', kind: 'email', required: true, maxLength: 254 },
      { name: 'phone', label: 'Mobile phone', kind: 'tel', required: true, maxLength: 40, help: 'With the country code, such as +44 20 7946 0958.' },
    ],
  },
  AuthorityReporting: {
    title: 'Registration with the authorities',
    intro: 'The law where you are staying asks your host to register every guest with the local authorities. Your host submits what you give here.',
    fields: [
      { name: 'nationality', label: 'Nationality', kind: 'text', required: true, maxLength: 100 },
      { name: 'birth_date', label: 'Date of birth', kind: 'date', required: true },
      { name: 'birth_place', label: 'Place of birth', kind: 'text', required: true, maxLength: 200 },
      { name: 'address', label: 'Home address', kind: 'text', required: true, maxLength: 200 },
    ],
  },
  BuildingScreen: {
    title: 'The building',
    intro: 'This home is in a building with rules of its own for residents and their visitors.',
    fields: [
      { name: 'acknowledged', label: "I will follow the building's rules for residents and visitors.", kind: 'checkbox', required: true },
      { name: 'vehicle_plate', label: 'Licence plate, if you will park at the building', kind: 'text', maxLength: 20 },
    ],
  },
  BackgroundCheck: {
    title: 'Background check',
    intro: 'Your host screens guests for this stay with a criminal background check. The result goes only to your host.',
    fields: [consent('I consent to a criminal background check for this booking.')],
  },
  CreditCheck: {
    title: 'Credit check',
    intro: 'Your host screens guests for this stay with a credit check. The result goes only to your host.',
    fields: [consent('I consent to a credit check for this booking.')],
  },
  IDVerification: {
    title: 'Your identity document',
    intro: 'Enter the details exactly as they are printed on your passport or identity card.',
    fields: [
      { name: 'document_type', label: 'Document', kind: 'select', required: true, options: DOCUMENT_TYPES },
      { name: 'document_number', label: 'Document number', kind: 'text', required: true, maxLength: 50 },
      { name: 'first_name', label: 'First name(s) on the document', kind: 'text', required: true, maxLength: 100 },
      { name: 'last_name', label: 'Last name on the document', kind: 'text', required: true, maxLength: 100 },
      { name: 'nationality', label: 'Nationality', kind: 'text', required: true, maxLength: 100 },
      { name: 'birth_date', label: 'Date of birth', kind: 'date', required: true },
      { name: 'expiry_date', label: 'Expiry date', kind: 'date', required: true },
      { name: 'issue_date', label: 'Issue date', kind: 'date' },
      {
        name: 'mrz',
        label: 'Machine-readable lines',
        kind: 'textarea',
        maxLength: 200,
        help: 'Optional: the two or three lines of letters, digits and < signs at the bottom of the photo page.',
      },
    ],
  },
  IDCollection: {
    title: 'A copy of your identity document',
    intro: 'Upload a photo or scan of your document. It is stored encrypted and only your host can open it.',
    fields: [
      { name: 'document_front', label: 'Front, or the photo page', kind: 'file', required: true },
      { name: 'document_back', label: 'Back, for an identity card', kind: 'file' },
    ],
  },
  SecurityDeposit: {
    title: 'Security deposit',
    intro: "A refundable security deposit is held for this stay, as set out in your booking. Your host's payment provider collects it; this page takes no card details.",
    fields: [{ name: 'acknowledged', label: 'I agree to the security deposit for this stay.', kind: 'checkbox', required: true }],
  },
  UsageAgreement: {
    title: 'Rental agreement',
    intro: 'Your host asks every guest to accept the rental agreement sent with your booking.',
    fields: [
      { name: 'accepted', label: 'I have read the rental agreement and accept it.', kind: 'checkbox', required: true },
      { name: 'signature', label: 'Type your full name as your signature', kind: 'text', required: true, maxLength: 200 },
    ],
  },
  Coronavirus: {
    title: 'Health declaration',
    intro: 'Your host asks every party to confirm its health before arrival.',
    fields: [{ name: 'declared', label: 'To the best of my knowledge, no one in my party has symptoms of an infectious illness.', kind: 'checkbox', required: true }],
  },
  CustomScreen: {
    title: 'A note for your host',
    intro: 'Anything your host should know before you arrive: special requests, accessibility needs, who is travelling with you.',
    fields: [{ name: 'note', label: 'Your note', kind: 'textarea', maxLength: 2000 }],
  },
  FileUpload: {
    title: 'Documents',
    intro: 'Your host asked for a document for this stay. It is stored encrypted and only your host can open it.',
    fields: [{ name: 'document', label: 'Document', kind: 'file', required: true }],
  },
  GuestList: {
    title: 'Who is coming',
    intro: 'The names of everyone else staying, so your host knows who to expect.',
    fields: [], // rows are drawn from the booking's number of guests: see guestRows()
  },
  HouseRules: {
    title: 'House rules',
    intro: 'Your host asks every guest to follow the house rules sent with your booking.',
    fields: [{ name: 'accepted', label: 'I have read the house rules and will follow them, and no more guests will stay than booked.', kind: 'checkbox', required: true }],
  },
  LongTerm: {
    title: 'A longer stay',
    intro: 'For stays of a month or more, your host asks a little more about you.',
    fields: [
      { name: 'occupation', label: 'Occupation and employer', kind: 'text', required: true, maxLength: 200 },
      { name: 'reason', label: 'What brings you here for this long', kind: 'textarea', required: true, maxLength: 2000 },
    ],
  },
  PurposeOfStay: {
    title: 'Purpose of your stay',
    intro: 'What brings you here?',
    fields: [
      {
        name: 'purpose',
        label: 'Purpose',
        kind: 'select',
        required: true,
        options: [
          ['leisure', 'Holiday or leisure'],
          ['business', 'Business'],
          ['family', 'Visiting family or friends'],
          ['event', 'An event (wedding, concert, conference)'],
          ['relocation', 'Moving to the area'],
          ['medical', 'Medical'],
          ['other', 'Other'],
        ],
      },
      { name: 'details', label: 'Details', kind: 'textarea', maxLength: 2000 },
    ],
  },
  TimeInfoEdit: {
    title: 'Arrival and departure',
    intro: 'When do you expect to arrive and leave?',
    fields: [
      { name: 'arrival_time', label: 'Arrival time', kind: 'time', required: true },
      { name: 'departure_time', label: 'Departure time', kind: 'time' },
    ],
  },
  SexOffendersAddon: {
    title: 'Registry search',
    intro: 'Your host checks guests against public sex-offender registries.',
    fields: [consent('I consent to a search of public sex-offender registries for this booking.')],
  },
  SocialVerificationAddon: {
    title: 'Social profile',
    intro: 'Your host verifies guests through a public social-media profile.',
    fields: [
      { name: 'profile_url', label: 'Link to one of your public profiles', kind: 'url', required: true, maxLength: 500 },
      consent('I consent to a review of this public profile for this booking.'),
    ],
  },
  SanctionsSearchAddon: {
    title: 'Sanctions search',
    intro: 'Your host checks guests against international sanctions lists.',
    fields: [consent('I consent to a search of sanctions lists for this booking.')],
  },
  FraudDetectionAddon: {
    title: 'Fraud check',
    intro: 'Your host checks the details of every booking for signs of fraud.',
    fields: [consent('I consent to a fraud check of the details I give for this booking.')],
  },
  AdverseMediaSearchAddon: {
    title: 'News search',
    intro: 'Your host checks guests against news reports.',
    fields: [consent('I consent to a search of news reports about me for this booking.')],
  },
};

/** The guest list's rows: one for each other guest booked (one when the booking does not say), at most 10. */
export function guestRows(numberOfGuests: number | null): Field[] {
  const others = numberOfGuests && numberOfGuests > 1 ? Math.min(numberOfGuests - 1, 10) : 1;
  const required = Boolean(numberOfGuests && numberOfGuests > 1);
  return Array.from({ length: others }, (_, i) => [
    { name: `guest_${i + 1}_name`, label: `Guest ${i + 2}: full name`, kind: 'text' as const, required, maxLength: 200 },
    { name: `guest_${i + 1}_email`, label: `Guest ${i + 2}: e-mail`, kind: 'email' as const, maxLength: 254 },
  ]).flat();
}

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/**
 * Less than this holds no picture at all (a whole 1×1 PNG takes 67 bytes, a JPEG or a PDF page
 * more): an empty file, or one that is only a type's first bytes.
 */
export const MIN_FILE_BYTES = 64;
export const FILE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'application/pdf'] as const;

export interface Upload {
  field: string;
  filename: string;
  /** What the browser said the file is; the file's own first bytes decide. */
  contentType: string;
  data: Buffer;
}

/** The file's type from its first bytes, for the types the portal takes. */
export function sniffType(data: Buffer): (typeof FILE_TYPES)[number] | undefined {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (data.subarray(4, 8).toString('latin1') === 'ftyp' && /^(heic|heix|mif1|msf1)$/.test(data.subarray(8, 12).toString('latin1'))) return 'image/heic';
  if (data.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  return undefined;
}

/** A stored upload as an answer refers to it. */
export interface FileRef {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

export type Answer = Record<string, string | boolean | FileRef>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ().-]{6,}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

const validDay = (v: string) => DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/**
 * Checks a submitted form against a screen's fields. Returns the answer (new files not yet
 * stored: the caller stores them and puts their references in; a file field left empty keeps
 * the file saved before) and one problem per field, each naming the field's label.
 */
export function readForm(
  fields: readonly Field[],
  form: Record<string, string>,
  uploads: readonly Upload[],
  before: Answer = {},
): { answer: Answer; files: Upload[]; problems: { field: string; message: string }[] } {
  const answer: Answer = {};
  const files: Upload[] = [];
  const problems: { field: string; message: string }[] = [];
  const problem = (f: Field, message: string) => problems.push({ field: f.name, message: `${f.label}: ${message}` });
  for (const f of fields) {
    if (f.kind === 'file') {
      const upload = uploads.find((u) => u.field === f.name);
      const kept = before[f.name];
      const type = upload && sniffType(upload.data);
      if (!upload) {
        if (kept && typeof kept === 'object') answer[f.name] = kept;
        else if (f.required) problem(f, 'choose a file.');
      } else if (upload.data.length > MAX_FILE_BYTES) problem(f, `the file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB.`);
      else if (upload.data.length > 0 && !type) problem(f, 'upload a JPEG, PNG, WebP or HEIC image, or a PDF.');
      else if (!type || upload.data.length < MIN_FILE_BYTES) problem(f, 'the file is empty or cut short. Choose the photo or scan again.');
      else files.push({ ...upload, contentType: type });
      continue;
    }
    if (f.kind === 'checkbox') {
      const on = form[f.name] !== undefined && form[f.name] !== '';
      if (f.required && !on) problem(f, 'tick the box to continue.');
      else answer[f.name] = on;
      continue;
    }
    const value = (form[f.name] ?? '').trim();
    if (!value) {
      if (f.required) problem(f, 'this is required.');
      continue;
    }
    if (f.maxLength && value.length > f.maxLength) problem(f, `at most ${f.maxLength} characters.`);
    else if (f.kind === 'email' && !EMAIL.test(value)) problem(f, 'enter a valid e-mail address.');
    else if (f.kind === 'tel' && !PHONE.test(value)) problem(f, 'a phone number has only digits, spaces and + ( ) . -');
    else if (f.kind === 'date' && !validDay(value)) problem(f, 'enter a date as YYYY-MM-DD.');
    else if (f.kind === 'time' && !TIME.test(value)) problem(f, 'enter a time as HH:MM.');
    else if (f.kind === 'url' && !/^https?:\/\/[^\s]+\.[^\s]+$/i.test(value)) problem(f, 'enter a link starting with https://');
    else if (f.kind === 'select' && !f.options?.some(([v]) => v === value)) problem(f, 'choose one of the options.');
    else answer[f.name] = value;
  }
  return { answer, files, problems };
}

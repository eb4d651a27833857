import { countryCode, type GuestPhrase, type Translator, type Values } from '../../i18n/index.js';
import { fileKind, MAX_IMAGE_BYTES } from '../../lib/documents/image.js';

/**
 * The guest-portal screens, in the order a guest meets them: the spec's 22, and ours, Selfie (the
 * guest's face compared with the document's portrait: docs/identity-documents.md).
 */
export const SCREENS = [
  'AboutYou',
  'AuthorityReporting',
  'BuildingScreen',
  'BackgroundCheck',
  'CreditCheck',
  'IDVerification',
  'IDCollection',
  'Selfie',
  'SecurityDeposit',
  'UsageAgreement',
  'Coronavirus',
  'CustomScreen',
  'FileUpload',
  'GuestList',
  'HouseRules',
  'LongTerm',
  'PurposeOfStay',
  'TimeInfoEdit',
  'SexOffendersAddon',
  'SocialVerificationAddon',
  'SanctionsSearchAddon',
  'FraudDetectionAddon',
  'AdverseMediaSearchAddon',
] as const;

export type Screen = (typeof SCREENS)[number];

/**
 * What each of the 22 guest-portal screens asks, as data: the portal's page renders a screen's
 * fields, and its answer is validated against them. Screens whose data source or payment
 * provider lives elsewhere (background and credit checks, the add-on searches, the deposit)
 * ask for the guest's consent or acknowledgement; what the checks do with it is theirs.
 */
export type FieldKind = 'text' | 'email' | 'tel' | 'url' | 'date' | 'time' | 'select' | 'textarea' | 'checkbox' | 'file' | 'country';

/** A field of a screen. Its words (label, help, options) are keys of the guest catalogues (src/i18n). */
export interface Field {
  name: string;
  label: GuestPhrase;
  kind: FieldKind;
  /** Must be given whenever the screen is saved (an optional screen can still be skipped whole). */
  required?: boolean;
  options?: readonly (readonly [value: string, label: GuestPhrase])[];
  help?: GuestPhrase;
  maxLength?: number;
  /** Values for the label's arguments (the guest list's row number). */
  labelValues?: Values;
  /** A file field that asks the phone's camera for a photo (the selfie's front camera) rather than any file. */
  capture?: 'user';
  /** A photo the reader reads (a document's side, a selfie): JPEG, PNG, WebP or BMP only, as the API takes them. */
  photo?: true;
  /**
   * Asked of every guest but those of this nationality (ISO alpha-2): SIBA asks nothing more of a
   * Portuguese guest. Hidden on the portal once the guest's nationality is this one.
   */
  unlessNationality?: string;
  /** Needed whenever it is asked (`unlessNationality`): checked by the authority's rules, not as `required`, and not labelled optional. */
  neededIfAsked?: true;
}

export interface ScreenDef {
  title: GuestPhrase;
  intro: GuestPhrase;
  fields: readonly Field[];
}

const consent = (label: GuestPhrase): Field => ({ name: 'consent', label, kind: 'checkbox', required: true });

export const DOCUMENT_TYPES = [
  ['passport', 'option.document_type.passport'],
  ['id_card', 'option.document_type.id_card'],
  ['driving_licence', 'option.document_type.driving_licence'],
  ['residence_permit', 'option.document_type.residence_permit'],
] as const;

export const SCREEN_DEFS: Record<Screen, ScreenDef> = {
  AboutYou: {
    title: 'screen.AboutYou.title',
    intro: 'screen.AboutYou.intro',
    fields: [
      { name: 'first_name', label: 'field.AboutYou.first_name', kind: 'text', required: true, maxLength: 100 },
      { name: 'last_name', label: 'field.AboutYou.last_name', kind: 'text', required: true, maxLength: 100 },
      { name: 'email', label: 'field.AboutYou.email', kind: 'email', required: true, maxLength: 254 },
      { name: 'phone', label: 'field.AboutYou.phone', kind: 'tel', required: true, maxLength: 40, help: 'help.AboutYou.phone' },
    ],
  },
  AuthorityReporting: {
    title: 'screen.AuthorityReporting.title',
    intro: 'screen.AuthorityReporting.intro',
    fields: [
      { name: 'nationality', label: 'field.AuthorityReporting.nationality', kind: 'country', required: true, maxLength: 100 },
      { name: 'birth_date', label: 'field.AuthorityReporting.birth_date', kind: 'date', required: true },
      { name: 'birth_place', label: 'field.AuthorityReporting.birth_place', kind: 'text', required: true, maxLength: 200 },
      { name: 'address', label: 'field.AuthorityReporting.address', kind: 'text', required: true, maxLength: 200 },
    ],
  },
  BuildingScreen: {
    title: 'screen.BuildingScreen.title',
    intro: 'screen.BuildingScreen.intro',
    fields: [
      { name: 'acknowledged', label: 'field.BuildingScreen.acknowledged', kind: 'checkbox', required: true },
      { name: 'vehicle_plate', label: 'field.BuildingScreen.vehicle_plate', kind: 'text', maxLength: 20 },
    ],
  },
  BackgroundCheck: {
    title: 'screen.BackgroundCheck.title',
    intro: 'screen.BackgroundCheck.intro',
    fields: [consent('field.BackgroundCheck.consent')],
  },
  CreditCheck: {
    title: 'screen.CreditCheck.title',
    intro: 'screen.CreditCheck.intro',
    fields: [consent('field.CreditCheck.consent')],
  },
  IDVerification: {
    title: 'screen.IDVerification.title',
    intro: 'screen.IDVerification.intro',
    fields: [
      { name: 'document_type', label: 'field.IDVerification.document_type', kind: 'select', required: true, options: DOCUMENT_TYPES },
      { name: 'document_number', label: 'field.IDVerification.document_number', kind: 'text', required: true, maxLength: 50 },
      { name: 'first_name', label: 'field.IDVerification.first_name', kind: 'text', required: true, maxLength: 100 },
      { name: 'last_name', label: 'field.IDVerification.last_name', kind: 'text', required: true, maxLength: 100 },
      { name: 'nationality', label: 'field.IDVerification.nationality', kind: 'country', required: true, maxLength: 100 },
      { name: 'birth_date', label: 'field.IDVerification.birth_date', kind: 'date', required: true },
      { name: 'expiry_date', label: 'field.IDVerification.expiry_date', kind: 'date', required: true },
      { name: 'issue_date', label: 'field.IDVerification.issue_date', kind: 'date' },
      {
        name: 'mrz',
        label: 'field.IDVerification.mrz',
        kind: 'textarea',
        maxLength: 200,
        help: 'help.IDVerification.mrz',
      },
    ],
  },
  IDCollection: {
    title: 'screen.IDCollection.title',
    intro: 'screen.IDCollection.intro',
    fields: [
      { name: 'document_front', label: 'field.IDCollection.document_front', kind: 'file', required: true, photo: true },
      { name: 'document_back', label: 'field.IDCollection.document_back', kind: 'file', photo: true },
    ],
  },
  Selfie: {
    title: 'screen.Selfie.title',
    intro: 'screen.Selfie.intro',
    fields: [{ name: 'selfie', label: 'field.Selfie.selfie', kind: 'file', required: true, capture: 'user', help: 'help.Selfie.selfie', photo: true }],
  },
  SecurityDeposit: {
    title: 'screen.SecurityDeposit.title',
    intro: 'screen.SecurityDeposit.intro',
    fields: [{ name: 'acknowledged', label: 'field.SecurityDeposit.acknowledged', kind: 'checkbox', required: true }],
  },
  UsageAgreement: {
    title: 'screen.UsageAgreement.title',
    intro: 'screen.UsageAgreement.intro',
    fields: [
      { name: 'accepted', label: 'field.UsageAgreement.accepted', kind: 'checkbox', required: true },
      { name: 'signature', label: 'field.UsageAgreement.signature', kind: 'text', required: true, maxLength: 200 },
    ],
  },
  Coronavirus: {
    title: 'screen.Coronavirus.title',
    intro: 'screen.Coronavirus.intro',
    fields: [{ name: 'declared', label: 'field.Coronavirus.declared', kind: 'checkbox', required: true }],
  },
  CustomScreen: {
    title: 'screen.CustomScreen.title',
    intro: 'screen.CustomScreen.intro',
    fields: [{ name: 'note', label: 'field.CustomScreen.note', kind: 'textarea', maxLength: 2000 }],
  },
  FileUpload: {
    title: 'screen.FileUpload.title',
    intro: 'screen.FileUpload.intro',
    fields: [{ name: 'document', label: 'field.FileUpload.document', kind: 'file', required: true }],
  },
  GuestList: {
    title: 'screen.GuestList.title',
    intro: 'screen.GuestList.intro',
    fields: [], // rows are drawn from the booking's number of guests: see guestRows()
  },
  HouseRules: {
    title: 'screen.HouseRules.title',
    intro: 'screen.HouseRules.intro',
    fields: [{ name: 'accepted', label: 'field.HouseRules.accepted', kind: 'checkbox', required: true }],
  },
  LongTerm: {
    title: 'screen.LongTerm.title',
    intro: 'screen.LongTerm.intro',
    fields: [
      { name: 'occupation', label: 'field.LongTerm.occupation', kind: 'text', required: true, maxLength: 200 },
      { name: 'reason', label: 'field.LongTerm.reason', kind: 'textarea', required: true, maxLength: 2000 },
    ],
  },
  PurposeOfStay: {
    title: 'screen.PurposeOfStay.title',
    intro: 'screen.PurposeOfStay.intro',
    fields: [
      {
        name: 'purpose',
        label: 'field.PurposeOfStay.purpose',
        kind: 'select',
        required: true,
        options: [
          ['leisure', 'option.purpose.leisure'],
          ['business', 'option.purpose.business'],
          ['family', 'option.purpose.family'],
          ['event', 'option.purpose.event'],
          ['relocation', 'option.purpose.relocation'],
          ['medical', 'option.purpose.medical'],
          ['other', 'option.purpose.other'],
        ],
      },
      { name: 'details', label: 'field.PurposeOfStay.details', kind: 'textarea', maxLength: 2000 },
    ],
  },
  TimeInfoEdit: {
    title: 'screen.TimeInfoEdit.title',
    intro: 'screen.TimeInfoEdit.intro',
    fields: [
      { name: 'arrival_time', label: 'field.TimeInfoEdit.arrival_time', kind: 'time', required: true },
      { name: 'departure_time', label: 'field.TimeInfoEdit.departure_time', kind: 'time' },
    ],
  },
  SexOffendersAddon: {
    title: 'screen.SexOffendersAddon.title',
    intro: 'screen.SexOffendersAddon.intro',
    fields: [consent('field.SexOffendersAddon.consent')],
  },
  SocialVerificationAddon: {
    title: 'screen.SocialVerificationAddon.title',
    intro: 'screen.SocialVerificationAddon.intro',
    fields: [{ name: 'profile_url', label: 'field.SocialVerificationAddon.profile_url', kind: 'url', required: true, maxLength: 500 }, consent('field.SocialVerificationAddon.consent')],
  },
  SanctionsSearchAddon: {
    title: 'screen.SanctionsSearchAddon.title',
    intro: 'screen.SanctionsSearchAddon.intro',
    fields: [consent('field.SanctionsSearchAddon.consent')],
  },
  FraudDetectionAddon: {
    title: 'screen.FraudDetectionAddon.title',
    intro: 'screen.FraudDetectionAddon.intro',
    fields: [consent('field.FraudDetectionAddon.consent')],
  },
  AdverseMediaSearchAddon: {
    title: 'screen.AdverseMediaSearchAddon.title',
    intro: 'screen.AdverseMediaSearchAddon.intro',
    fields: [consent('field.AdverseMediaSearchAddon.consent')],
  },
};

/** The guest list's rows: one for each other guest booked (one when the booking does not say), at most 10. */
export function guestRows(numberOfGuests: number | null): Field[] {
  const others = numberOfGuests && numberOfGuests > 1 ? Math.min(numberOfGuests - 1, 10) : 1;
  const required = Boolean(numberOfGuests && numberOfGuests > 1);
  return Array.from({ length: others }, (_, i) => [
    { name: `guest_${i + 1}_name`, label: 'field.GuestList.name' as const, labelValues: { n: i + 2 }, kind: 'text' as const, required, maxLength: 200 },
    { name: `guest_${i + 1}_email`, label: 'field.GuestList.email' as const, labelValues: { n: i + 2 }, kind: 'email' as const, maxLength: 254 },
  ]).flat();
}

/** What the portal keeps beside an accepted text (house rules, rental agreement), as a host names it. */
const KEPT_WITH_TERMS: Record<string, string> = { terms_version: 'Version accepted', terms_updated_at: 'Text last changed', terms_text: 'Text accepted' };

/** The field a stored answer belongs to (the guest list's rows included), if any. */
export function fieldOf(screen: Screen, name: string): Field | undefined {
  return (
    SCREEN_DEFS[screen]?.fields.find((f) => f.name === name) ??
    (screen === 'GuestList' ? guestRows(11).find((f) => f.name === name) : screen === 'AuthorityReporting' ? authorityField(name) : undefined)
  );
}

/**
 * A stored answer in words of the language given, for the host who reads it: its field's label
 * and its value as the guest chose it (an option's label, a country's name, a date as people
 * write it, yes or no in English, the console's language).
 */
export function answerInWords(screen: Screen, name: string, value: unknown, t: Translator): { label: string; value: string } {
  const field = fieldOf(screen, name);
  if (!field && name in KEPT_WITH_TERMS) return { label: KEPT_WITH_TERMS[name]!, value: name === 'terms_updated_at' ? t.dateTime(String(value)) : String(value) };
  const label = field ? t.t(field.label, field.labelValues) : name.replaceAll('_', ' ');
  // A box the guest ticked is a statement they agreed to: the statement is the answer.
  if (field?.kind === 'checkbox') return { label: value === true ? 'Agreed' : 'Not agreed', value: label };
  if (value === true || value === false) return { label, value: value ? 'yes' : 'no' };
  const text = String(value ?? '');
  const option = field?.options?.find(([v]) => v === text);
  if (option) return { label, value: t.t(option[1]) };
  if (field?.kind === 'country') return { label, value: t.countryName(text) ?? text };
  if (field?.kind === 'date') return { label, value: t.date(text) };
  return { label, value: text };
}

/** The largest file a guest may send, the same as the API's for a photo: one limit, said alike everywhere. */
export const MAX_FILE_BYTES = MAX_IMAGE_BYTES;
/**
 * Less than this holds no picture at all (a whole 1×1 PNG takes 67 bytes, a JPEG or a PDF page
 * more): an empty file, or one that is only a type's first bytes.
 */
export const MIN_FILE_BYTES = 64;
export const FILE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/bmp', 'image/heic', 'application/pdf'] as const;

export interface Upload {
  field: string;
  filename: string;
  /** What the browser said the file is; the file's own first bytes decide. */
  contentType: string;
  data: Buffer;
}

/** The file's type from its first bytes, for the types the portal takes. */
export function sniffType(data: Buffer): (typeof FILE_TYPES)[number] | undefined {
  const kind = fileKind(data);
  return kind && kind !== 'gif' ? KIND_TYPES[kind] : undefined;
}

const KIND_TYPES = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', bmp: 'image/bmp', heic: 'image/heic', pdf: 'application/pdf' } as const;

/** A stored upload as an answer refers to it. */
export interface FileRef {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

export type Answer = Record<string, string | boolean | FileRef>;

/** A text an answer holds under a field's name, if it holds one. */
export const answerText = (a: Answer | undefined, k: string) => (typeof a?.[k] === 'string' ? a[k] : undefined);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ().-]{6,}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

const validDay = (v: string) => DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/**
 * Checks a submitted form against a screen's fields. Returns the answer (new files not yet
 * stored: the caller stores them and puts their references in; a file field left empty keeps
 * the file saved before) and one problem per field, each naming the field's label, in the
 * guest's language. Nationalities are kept as their ISO 3166 alpha-2 code.
 */
export function readForm(
  t: Translator,
  fields: readonly Field[],
  form: Record<string, string>,
  uploads: readonly Upload[],
  before: Answer = {},
  today = new Date().toISOString().slice(0, 10),
): { answer: Answer; files: Upload[]; problems: { field: string; message: string }[] } {
  const answer: Answer = {};
  const files: Upload[] = [];
  const problems: { field: string; message: string }[] = [];
  const problem = (f: Field, key: GuestPhrase, values: Values = {}) =>
    problems.push({ field: f.name, message: t.t('problem.field', { label: t.t(f.label, f.labelValues), problem: t.t(key, values) }) });
  const mb = MAX_FILE_BYTES / 1024 / 1024;
  for (const f of fields) {
    if (f.kind === 'file') {
      const upload = uploads.find((u) => u.field === f.name);
      const kept = before[f.name];
      const type = upload && sniffType(upload.data);
      if (!upload) {
        if (kept && typeof kept === 'object') answer[f.name] = kept;
        else if (f.required) problem(f, 'problem.file_missing');
      } else if (upload.data.length > MAX_FILE_BYTES) problem(f, 'problem.file_large', { mb });
      else if (upload.data.length > 0 && !type) problem(f, 'problem.file_type');
      else if (!type || upload.data.length < MIN_FILE_BYTES) problem(f, 'problem.file_empty');
      else files.push({ ...upload, contentType: type });
      continue;
    }
    if (f.kind === 'checkbox') {
      const on = form[f.name] !== undefined && form[f.name] !== '';
      if (f.required && !on) problem(f, 'problem.tick');
      else answer[f.name] = on;
      continue;
    }
    const value = (form[f.name] ?? '').trim();
    if (!value) {
      if (f.required) problem(f, 'problem.required');
      continue;
    }
    const country = f.kind === 'country' ? countryCode(value) : undefined;
    if (f.maxLength && value.length > f.maxLength) problem(f, 'problem.too_long', { max: f.maxLength });
    else if (f.kind === 'email' && !EMAIL.test(value)) problem(f, 'problem.email');
    else if (f.kind === 'tel' && !PHONE.test(value)) problem(f, 'problem.phone');
    else if (f.kind === 'date' && !validDay(value)) problem(f, 'problem.date');
    else if (f.kind === 'date' && f.name !== 'expiry_date' && value > today) problem(f, 'problem.future');
    else if (f.kind === 'time' && !TIME.test(value)) problem(f, 'problem.time');
    else if (f.kind === 'url' && !/^https?:\/\/[^\s]+\.[^\s]+$/i.test(value)) problem(f, 'problem.url');
    else if (f.kind === 'select' && !f.options?.some(([v]) => v === value)) problem(f, 'problem.select');
    else if (f.kind === 'country' && !country) problem(f, 'problem.country');
    else answer[f.name] = country ?? value;
  }
  // A document is issued after its holder is born and before it expires: a date that breaks
  // this was mistyped, whatever the screening later makes of it.
  const expiry = typeof answer.expiry_date === 'string' ? answer.expiry_date : undefined;
  const expiryField = fields.find((f) => f.name === 'expiry_date');
  if (expiry && expiryField) {
    if (typeof answer.birth_date === 'string' && answer.birth_date >= expiry)
      problem(
        fields.find((f) => f.name === 'birth_date')!,
        'problem.birth_after_expiry',
      );
    if (typeof answer.issue_date === 'string' && answer.issue_date >= expiry)
      problem(
        fields.find((f) => f.name === 'issue_date')!,
        'problem.issue_after_expiry',
      );
  }
  return { answer, files, problems };
}

/** The police systems whose guests' fields are asked: Spain's SES.HOSPEDAJES, Italy's Alloggiati Web, Portugal's SIBA. */
export const SYSTEMS = ['ses', 'alloggiati', 'siba'] as const;
export type System = (typeof SYSTEMS)[number];

/** The most guests a booking reports, the one who booked included (the guest list's bound). */
export const MAX_GUESTS = 11;

/** How many guests a booking reports: its number of guests, at least the one who booked. */
export const guestCount = (numberOfGuests: number | null) => Math.min(Math.max(numberOfGuests ?? 1, 1), MAX_GUESTS);

/** A guest's field name: the one who booked answers `first_name`, the second guest `guest_1_first_name`. */
export const fieldName = (guest: number, name: string) => (guest === 0 ? name : `guest_${guest}_${name}`);

const SES_DOCUMENTS = [
  ['es_nif', 'option.authority_document.es_nif'],
  ['es_nie', 'option.authority_document.es_nie'],
  ['passport', 'option.document_type.passport'],
  ['other', 'option.authority_document.other'],
] as const;

const SEXES = [
  ['female', 'option.sex.female'],
  ['male', 'option.sex.male'],
  ['other', 'option.sex.other'],
] as const;

/** A minor's relationship to the adult who booked, and SES's TIPO_PARENTESCO code for it. */
const RELATIONSHIPS = [
  ['spouse', 'option.relationship.spouse'],
  ['child', 'option.relationship.child'],
  ['grandchild', 'option.relationship.grandchild'],
  ['sibling', 'option.relationship.sibling'],
  ['nephew', 'option.relationship.nephew'],
  ['ward', 'option.relationship.ward'],
  ['other', 'option.relationship.other'],
] as const;

/** A police system's field, as asked of each guest. */
export type Spec = Omit<Field, 'name' | 'label' | 'labelValues'> & { name: string; label: GuestPhrase; only?: 'companions' | 'lead' };

/** SES.HOSPEDAJES's person, as altaParteHospedaje.xsd bounds its fields. */
const SES_FIELDS: Spec[] = [
  { name: 'first_name', label: 'field.Authority.first_name', kind: 'text', required: true, maxLength: 50 },
  { name: 'last_name', label: 'field.Authority.last_name', kind: 'text', required: true, maxLength: 50 },
  { name: 'second_last_name', label: 'field.Authority.second_last_name', kind: 'text', maxLength: 50, help: 'help.Authority.second_last_name' },
  { name: 'sex', label: 'field.Authority.sex', kind: 'select', required: true, options: SEXES },
  { name: 'birth_date', label: 'field.Authority.birth_date', kind: 'date', required: true },
  { name: 'nationality', label: 'field.Authority.nationality', kind: 'country', required: true, maxLength: 100 },
  { name: 'document_type', label: 'field.Authority.document_type', kind: 'select', options: SES_DOCUMENTS, help: 'help.Authority.document_type' },
  { name: 'document_number', label: 'field.Authority.document_number', kind: 'text', maxLength: 15 },
  { name: 'document_support', label: 'field.Authority.document_support', kind: 'text', maxLength: 9, help: 'help.Authority.document_support' },
  { name: 'residence_country', label: 'field.Authority.residence_country', kind: 'country', required: true, maxLength: 100 },
  { name: 'address', label: 'field.Authority.address', kind: 'text', required: true, maxLength: 100 },
  { name: 'city', label: 'field.Authority.city', kind: 'text', required: true, maxLength: 100, help: 'help.Authority.city' },
  { name: 'postal_code', label: 'field.Authority.postal_code', kind: 'text', required: true, maxLength: 20 },
  { name: 'phone', label: 'field.Authority.phone', kind: 'tel', maxLength: 20, help: 'help.Authority.contact' },
  { name: 'email', label: 'field.Authority.email', kind: 'email', maxLength: 250 },
  { name: 'relationship', label: 'field.Authority.relationship', kind: 'select', options: RELATIONSHIPS, help: 'help.Authority.relationship', only: 'companions' },
];

const ALLOGGIATI_DOCUMENTS = [
  ['id_card', 'option.document_type.id_card'],
  ['passport', 'option.document_type.passport'],
  ['driving_licence', 'option.document_type.driving_licence'],
] as const;

/**
 * Alloggiati Web's row: the head of a family or group gives a document, where it was issued,
 * and every guest a place of birth (a comune when born in Italy).
 */
const ALLOGGIATI_FIELDS: Spec[] = [
  { name: 'first_name', label: 'field.Authority.first_name', kind: 'text', required: true, maxLength: 30 },
  { name: 'last_name', label: 'field.Authority.last_name', kind: 'text', required: true, maxLength: 50 },
  { name: 'sex', label: 'field.Authority.sex', kind: 'select', required: true, options: SEXES.slice(0, 2) },
  { name: 'birth_date', label: 'field.Authority.birth_date', kind: 'date', required: true },
  { name: 'birth_country', label: 'field.Authority.birth_country', kind: 'country', required: true, maxLength: 100 },
  { name: 'birth_place', label: 'field.Authority.birth_place', kind: 'text', maxLength: 100, help: 'help.Authority.birth_place' },
  { name: 'nationality', label: 'field.Authority.nationality', kind: 'country', required: true, maxLength: 100 },
  { name: 'document_type', label: 'field.Authority.document_type', kind: 'select', required: true, options: ALLOGGIATI_DOCUMENTS, only: 'lead' },
  { name: 'document_number', label: 'field.Authority.document_number', kind: 'text', required: true, maxLength: 20, only: 'lead' },
  { name: 'document_country', label: 'field.Authority.document_country', kind: 'country', required: true, maxLength: 100, only: 'lead' },
  { name: 'document_place', label: 'field.Authority.document_place', kind: 'text', maxLength: 100, help: 'help.Authority.document_place', only: 'lead' },
  { name: 'relationship', label: 'field.Authority.relationship', kind: 'select', options: RELATIONSHIPS, help: 'help.Authority.relationship', only: 'companions' },
];

const SIBA_DOCUMENTS = [
  ['passport', 'option.document_type.passport'],
  ['id_card', 'option.document_type.id_card'],
  ['other', 'option.authority_document.other'],
] as const;

/**
 * SIBA's bulletin, as bal.xsd bounds it: every guest's name and nationality, and of a guest who is
 * not Portuguese (Portuguese citizens are not reported) the rest. The place of birth is optional
 * in the XSD, and so here.
 */
const SIBA_FIELDS: Spec[] = [
  { name: 'first_name', label: 'field.Authority.first_name', kind: 'text', required: true, maxLength: 40 },
  { name: 'last_name', label: 'field.Authority.last_name', kind: 'text', required: true, maxLength: 40 },
  { name: 'nationality', label: 'field.Authority.nationality', kind: 'country', required: true, maxLength: 100, help: 'help.Authority.siba_nationality' },
  { name: 'birth_date', label: 'field.Authority.birth_date', kind: 'date', unlessNationality: 'PT', neededIfAsked: true },
  { name: 'birth_place', label: 'field.Authority.birth_place', kind: 'text', maxLength: 30, unlessNationality: 'PT' },
  { name: 'document_type', label: 'field.Authority.document_type', kind: 'select', options: SIBA_DOCUMENTS, unlessNationality: 'PT', neededIfAsked: true },
  { name: 'document_number', label: 'field.Authority.document_number', kind: 'text', maxLength: 16, unlessNationality: 'PT', neededIfAsked: true },
  { name: 'document_country', label: 'field.Authority.document_country', kind: 'country', maxLength: 100, unlessNationality: 'PT', neededIfAsked: true },
  { name: 'residence_country', label: 'field.Authority.residence_country', kind: 'country', maxLength: 100, unlessNationality: 'PT', neededIfAsked: true },
  { name: 'city', label: 'field.Authority.residence_place', kind: 'text', maxLength: 30, unlessNationality: 'PT', neededIfAsked: true },
];

/** Whether a field is needed of a guest of this nationality (ISO alpha-2; '' when not given yet). */
export const neededOf = (spec: Pick<Spec, 'required' | 'unlessNationality' | 'neededIfAsked'>, nationality: string) =>
  Boolean(spec.required || (spec.neededIfAsked && spec.unlessNationality !== nationality));

const SPECS: Record<System, Spec[]> = { ses: SES_FIELDS, alloggiati: ALLOGGIATI_FIELDS, siba: SIBA_FIELDS };

/** What a police system asks of each guest, its fields in order. */
export const authoritySpecs = (system: System): readonly Spec[] => SPECS[system];

/** Whether a field of a police system's is asked of a guest (some are the lead guest's only, some the companions'). */
export const askedOf = (spec: Spec, guest: number) => !((spec.only === 'companions' && guest === 0) || (spec.only === 'lead' && guest > 0));

/** The screen's fields for a system and a booking's guests: each guest's, the one who booked first. */
export function authorityFields(system: System, numberOfGuests: number | null): Field[] {
  const out: Field[] = [];
  for (let g = 0; g < guestCount(numberOfGuests); g++) {
    for (const { only, ...spec } of SPECS[system]) {
      if (!askedOf({ only, ...spec }, g)) continue;
      out.push({ ...spec, name: fieldName(g, spec.name), labelValues: { n: g + 1 } });
    }
  }
  return out;
}

/** A field of the report by its name on the form ("guest_1_phone"), in any system's list. */
export function authorityField(name: string): Field | undefined {
  const m = /^guest_(\d+)_(.+)$/.exec(name);
  const [guest, base] = m ? [Number(m[1]), m[2]!] : [0, name];
  for (const system of SYSTEMS) {
    const spec = SPECS[system].find((x) => x.name === base && askedOf(x, guest));
    if (spec) {
      const { only: _only, ...field } = spec;
      return { ...field, name, labelValues: { n: guest + 1 } };
    }
  }
  return undefined;
}

/**
 * What each police system needs of every guest of a stay, asked by the portal's
 * AuthorityReporting screen: the fields (the guest who booked first, then each other guest of
 * the booking), the authority's own rules checked on the form, and the answers turned into what
 * the authority's file takes. The words are the guest catalogues' (six languages).
 */
import countries from 'i18n-iso-countries';
import { ageOn } from '../../lib/time.js';
import type { GuestPhrase, Translator } from '../../i18n/index.js';
import type { Answer, Field } from '../portal/screens.js';
import type { SesPerson } from './ses-files.js';
import { alloggiatiTablesAsOf, comuneCode, municipalityCode, stateCode } from './tables.js';
import type { GuestRow } from './alloggiati-files.js';
import type { System } from './establishments.js';

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
const SES_DOCUMENT_CODES: Record<string, string> = { es_nif: 'NIF', es_nie: 'NIE', passport: 'PAS', other: 'OTRO' };

const SEXES = [
  ['female', 'option.sex.female'],
  ['male', 'option.sex.male'],
  ['other', 'option.sex.other'],
] as const;
const SES_SEX_CODES: Record<string, string> = { female: 'M', male: 'H', other: 'O' };

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
const SES_RELATIONSHIP_CODES: Record<string, string> = { spouse: 'CY', child: 'HJ', grandchild: 'NI', sibling: 'HR', nephew: 'SB', ward: 'TU', other: 'OT' };

type Spec = Omit<Field, 'name' | 'label' | 'labelValues'> & { name: string; label: GuestPhrase; only?: 'companions' | 'lead' };

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

const SPECS: Record<System, Spec[]> = { ses: SES_FIELDS, alloggiati: ALLOGGIATI_FIELDS };
const asked = (spec: Spec, guest: number) => !((spec.only === 'companions' && guest === 0) || (spec.only === 'lead' && guest > 0));

/** The screen's fields for a system and a booking's guests: each guest's, the one who booked first. */
export function authorityFields(system: System, numberOfGuests: number | null): Field[] {
  const out: Field[] = [];
  for (let g = 0; g < guestCount(numberOfGuests); g++) {
    for (const { only, ...spec } of SPECS[system]) {
      if (!asked({ only, ...spec }, g)) continue;
      out.push({ ...spec, name: fieldName(g, spec.name), labelValues: { n: g + 1 } });
    }
  }
  return out;
}

export interface GuestProblem {
  /** The form's field name. */
  field: string;
  /** The field's own label phrase, and what is wrong, as a phrase of the catalogues. */
  label: GuestPhrase;
  guest: number;
  problem: GuestPhrase;
}

const str = (a: Answer, k: string) => (typeof a[k] === 'string' ? a[k].trim() : '');

/**
 * What a guest's answers lack for the system (`dataDir`: where an imported code table is), by the authority's own rules beyond each field's
 * (SES: an adult's document, its support number for a DNI or NIE, the second surname for a DNI,
 * a phone or an e-mail, a Spanish municipality as INE names it, a minor's relationship).
 */
export function guestProblems(system: System, answer: Answer, guest: number, arrival: string, dataDir?: string): GuestProblem[] {
  const problems: GuestProblem[] = [];
  const v = (name: string) => str(answer, fieldName(guest, name));
  const add = (name: string, problem: GuestPhrase) => {
    const spec = SPECS[system].find((s) => s.name === name)!;
    problems.push({ field: fieldName(guest, name), label: spec.label, guest, problem });
  };
  for (const spec of SPECS[system]) if (spec.required && asked(spec, guest) && !v(spec.name)) add(spec.name, 'problem.required');
  if (system === 'alloggiati') {
    const birth = v('birth_date');
    if (v('birth_country') === 'IT' && !v('birth_place')) add('birth_place', 'problem.authority.birth_place');
    if (guest === 0 && v('document_country') === 'IT' && !v('document_place')) add('document_place', 'problem.authority.document_place');
    // With the authority's tables imported, each place is one it knows, as it was on the day.
    if (dataDir && alloggiatiTablesAsOf(dataDir) && birth) {
      if (v('birth_country') === 'IT' && v('birth_place') && !comuneCode(dataDir, v('birth_place'), birth)) add('birth_place', 'problem.authority.comune');
      if (guest === 0 && v('document_country') === 'IT' && v('document_place') && !comuneCode(dataDir, v('document_place'), arrival)) add('document_place', 'problem.authority.comune');
      for (const name of ['birth_country', 'nationality', ...(guest === 0 ? ['document_country'] : [])])
        if (v(name) && !stateCode(dataDir, v(name), name === 'birth_country' ? birth : arrival)) add(name, 'problem.authority.state');
    }
    return problems;
  }
  const birth = v('birth_date');
  const adult = !birth || ageOn(birth, arrival) >= 18;
  const type = v('document_type');
  if (adult && !type) add('document_type', 'problem.authority.document_adult');
  if (adult && !v('document_number')) add('document_number', 'problem.authority.document_adult');
  if ((type === 'es_nif' || type === 'es_nie') && !v('document_support')) add('document_support', 'problem.authority.document_support');
  if (type === 'es_nif' && !v('second_last_name')) add('second_last_name', 'problem.authority.second_last_name');
  if (type === 'es_nif' || type === 'es_nie') {
    const number = v('document_number').toUpperCase();
    if (number && !validSpanishId(number, type)) add('document_number', 'problem.authority.document_number');
  }
  if (!v('phone') && !v('email')) add('phone', 'problem.authority.contact');
  if (v('residence_country') === 'ES' && v('city') && !municipalityCode(dataDir, v('city'), v('postal_code'))) add('city', 'problem.authority.municipality');
  if (guest > 0 && birth && !adult && !v('relationship')) add('relationship', 'problem.authority.relationship');
  return problems;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** A DNI (8 digits and its letter) or NIE (X, Y or Z, 7 digits and its letter), its letter checked. */
export function validSpanishId(number: string, type: 'es_nif' | 'es_nie'): boolean {
  const m = type === 'es_nif' ? /^(\d{8})([A-Z])$/.exec(number) : /^([XYZ])(\d{7})([A-Z])$/.exec(number);
  if (!m) return false;
  const digits = type === 'es_nif' ? m[1]! : `${'XYZ'.indexOf(m[1]!)}${m[2]}`;
  return DNI_LETTERS[Number(digits) % 23] === m.at(-1);
}

/** A guest's name as the host reads it in a report. */
export const guestName = (answer: Answer, guest: number) => [str(answer, fieldName(guest, 'first_name')), str(answer, fieldName(guest, 'last_name'))].filter(Boolean).join(' ');

/** Whether a guest beyond the first was answered at all (an empty row is a guest the booking counted but nobody named). */
export const guestGiven = (system: System, answer: Answer, guest: number) => guest === 0 || SPECS[system].some((s) => str(answer, fieldName(guest, s.name)) !== '');

const alpha3 = (code: string) => countries.alpha2ToAlpha3(code) ?? code;

/** A guest's answers as SES's person: its codes, alpha-3 countries, the municipality's INE code in Spain. */
export function sesPerson(answer: Answer, guest: number, dataDir?: string): SesPerson {
  const v = (name: string) => str(answer, fieldName(guest, name)) || undefined;
  const type = v('document_type');
  const country = v('residence_country') ?? '';
  return {
    nombre: v('first_name') ?? '',
    apellido1: v('last_name') ?? '',
    apellido2: v('second_last_name'),
    tipoDocumento: type ? SES_DOCUMENT_CODES[type] : undefined,
    numeroDocumento: type ? v('document_number')?.toUpperCase() : undefined,
    soporteDocumento: type === 'es_nif' || type === 'es_nie' ? v('document_support')?.toUpperCase() : undefined,
    fechaNacimiento: v('birth_date') ?? '',
    nacionalidad: v('nationality') ? alpha3(v('nationality')!) : undefined,
    sexo: v('sex') ? SES_SEX_CODES[v('sex')!] : undefined,
    direccion: {
      direccion: v('address') ?? '',
      ...(country === 'ES' ? { codigoMunicipio: municipalityCode(dataDir, v('city') ?? '', v('postal_code') ?? '') } : { nombreMunicipio: v('city') }),
      codigoPostal: v('postal_code') ?? '',
      pais: alpha3(country),
    },
    telefono: v('phone'),
    correo: v('email'),
    parentesco: v('relationship') ? SES_RELATIONSHIP_CODES[v('relationship')!] : undefined,
  };
}

/** A field of the report by its name on the form ("guest_1_phone"), in any system's list. */
export function authorityField(name: string): Field | undefined {
  const m = /^guest_(\d+)_(.+)$/.exec(name);
  const [guest, base] = m ? [Number(m[1]), m[2]!] : [0, name];
  for (const system of ['ses', 'alloggiati'] as const) {
    const spec = SPECS[system].find((x) => x.name === base && asked(x, guest));
    if (spec) {
      const { only: _only, ...field } = spec;
      return { ...field, name, labelValues: { n: guest + 1 } };
    }
  }
  return undefined;
}

/**
 * The fields a guest still has to give, by their names on the form ("Phone": a report is one
 * guest's, so no guest's number), in a list of the translator's language.
 */
export function missingInWords(names: readonly string[], t: Translator): string {
  const words = names.map((name) => {
    if (name === 'check_in_date') return "the booking's check-in date";
    if (name === 'check_out_date') return "the booking's check-out date";
    const field = authorityField(name);
    return field ? t.t(field.label, { n: 1 }) : name.replaceAll('_', ' ');
  });
  return t.list(words);
}

const ALLOGGIATI_DOCUMENT_CODES: Record<string, string> = { id_card: 'IDENT', passport: 'PASOR', driving_licence: 'PATEN' };

/** A stay's guests as Alloggiati Web's rows need them, or what of them its tables do not know (field names). */
export function alloggiatiRows(answer: Answer, guests: number, stay: { arrival: string; nights: number }, dataDir: string): { rows: GuestRow[]; unknown: string[] } {
  const unknown: string[] = [];
  const rows: GuestRow[] = [];
  // A family when a companion is a relative of the guest who booked, else a group; alone, 16.
  const family = Array.from({ length: guests - 1 }, (_, i) => str(answer, fieldName(i + 1, 'relationship'))).some((r) => r && r !== 'other');
  for (let g = 0; g < guests; g++) {
    const v = (name: string) => str(answer, fieldName(g, name));
    const birth = v('birth_date');
    const need = <T>(name: string, value: T | undefined): T | undefined => {
      if (value === undefined) unknown.push(fieldName(g, name));
      return value;
    };
    const bornInItaly = v('birth_country') === 'IT';
    const comune = bornInItaly ? need('birth_place', comuneCode(dataDir, v('birth_place'), birth)) : undefined;
    const row: GuestRow = {
      type: guests === 1 ? '16' : g === 0 ? (family ? '17' : '18') : family ? '19' : '20',
      arrival: stay.arrival,
      days: Math.min(Math.max(stay.nights, 1), 30),
      surname: v('last_name'),
      givenNames: v('first_name'),
      sex: v('sex') === 'male' ? '1' : '2',
      birthDate: birth,
      birthComune: comune?.code,
      birthProvince: comune?.province,
      birthState: need('birth_country', stateCode(dataDir, v('birth_country'), birth)) ?? '',
      citizenship: need('nationality', stateCode(dataDir, v('nationality'), stay.arrival)) ?? '',
    };
    if (g === 0) {
      const issuedInItaly = v('document_country') === 'IT';
      row.documentType = ALLOGGIATI_DOCUMENT_CODES[v('document_type')];
      row.documentNumber = v('document_number');
      row.documentPlace = issuedInItaly
        ? need('document_place', comuneCode(dataDir, v('document_place'), stay.arrival))?.code
        : need('document_country', stateCode(dataDir, v('document_country'), stay.arrival));
    }
    rows.push(row);
  }
  return { rows, unknown };
}

/**
 * What each police system needs of every guest of a stay, beyond the fields its portal screen
 * asks (those are the guests module's, src/modules/guests/fields.ts): the authority's own rules
 * checked on the form, and the answers turned into what the authority's file takes. The words
 * are the guest catalogues' (six languages).
 */
import countries from 'i18n-iso-countries';
import { ageOn } from '../../lib/time.js';
import type { GuestPhrase, Translator } from '../../i18n/index.js';
import { askedOf, authorityField, authoritySpecs, fieldName, neededOf, type Answer, type System } from '../guests/index.js';
import type { SesPerson } from './ses-files.js';
import { sibaCountry, type SibaBulletin } from './siba-files.js';
import { alloggiatiTablesAsOf, comuneCode, municipalityCode, stateCode } from './tables.js';
import type { GuestRow } from './alloggiati-files.js';

const SES_DOCUMENT_CODES: Record<string, string> = { es_nif: 'NIF', es_nie: 'NIE', passport: 'PAS', other: 'OTRO' };
const SES_SEX_CODES: Record<string, string> = { female: 'M', male: 'H', other: 'O' };
const SES_RELATIONSHIP_CODES: Record<string, string> = { spouse: 'CY', child: 'HJ', grandchild: 'NI', sibling: 'HR', nephew: 'SB', ward: 'TU', other: 'OT' };

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
    const spec = authoritySpecs(system).find((s) => s.name === name)!;
    problems.push({ field: fieldName(guest, name), label: spec.label, guest, problem });
  };
  for (const spec of authoritySpecs(system)) if (spec.required && askedOf(spec, guest) && !v(spec.name)) add(spec.name, 'problem.required');
  if (system === 'siba') {
    // A Portuguese guest gives the name and nationality only: not reported.
    for (const spec of authoritySpecs(system)) if (!spec.required && neededOf(spec, v('nationality')) && !v(spec.name)) add(spec.name, 'problem.authority.siba_needed');
    return problems;
  }
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
export const guestGiven = (system: System, answer: Answer, guest: number) => guest === 0 || authoritySpecs(system).some((s) => str(answer, fieldName(guest, s.name)) !== '');

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

/** SIBA reports foreign guests only: a Portuguese citizen is not reported (Lei 23/2007, art. 15). */
export const sibaExempt = (answer: Answer, guest: number) => str(answer, fieldName(guest, 'nationality')) === 'PT';

const SIBA_DOCUMENT_CODES: Record<string, SibaBulletin['Tipo_Documento']> = { passport: 'P', id_card: 'B', other: 'O' };

/** A guest's answers as SIBA's bulletin: the surname as `Apelido`, countries as its ICAO codes, the stay's dates as booked. */
export function sibaBulletin(answer: Answer, guest: number, stay: { arrival: string; departure: string | null }): SibaBulletin {
  const v = (name: string) => str(answer, fieldName(guest, name));
  return {
    Apelido: v('last_name'),
    Nome: v('first_name') || undefined,
    Nacionalidade: sibaCountry(v('nationality')),
    Data_Nascimento: v('birth_date'),
    Local_Nascimento: v('birth_place') || undefined,
    Documento_Identificacao: v('document_number').toUpperCase(),
    Pais_Emissor_Documento: sibaCountry(v('document_country')),
    Tipo_Documento: SIBA_DOCUMENT_CODES[v('document_type')] ?? 'O',
    Data_Entrada: stay.arrival,
    Data_Saida: stay.departure ?? undefined,
    Pais_Residencia_Origem: sibaCountry(v('residence_country')),
    Local_Residencia_Origem: v('city'),
  };
}

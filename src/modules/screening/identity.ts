import type { Deps } from '../../deps.js';
import type { ReservationRow } from '../../db/schema.js';

/** What a guest's identity document says, as the API, the portal and the checks name it. */
export const IDENTIFICATION_FIELDS = [
  'first_name',
  'last_name',
  'middle_name',
  'document_number',
  'document_type',
  'nationality',
  'sex',
  'address',
  'birth_date',
  'expiry_date',
  'issue_date',
  'mrz',
] as const;

export type Identification = Partial<Record<(typeof IDENTIFICATION_FIELDS)[number], string>>;

const identificationAad = (r: Pick<ReservationRow, 'account_id' | 'id'>) => `identification:${r.account_id}:${r.id}`;

export function sealIdentification(deps: Deps, r: Pick<ReservationRow, 'account_id' | 'id'>, value: Identification): string | null {
  return Object.keys(value).length === 0 ? null : deps.secrets.seal(JSON.stringify(value), identificationAad(r));
}

export function openIdentification(deps: Deps, r: Pick<ReservationRow, 'account_id' | 'id' | 'identification_enc'>): Identification {
  return r.identification_enc ? (JSON.parse(deps.secrets.open(r.identification_enc, identificationAad(r))) as Identification) : {};
}

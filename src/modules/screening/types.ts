import type { PhotoProblem, ReadDocument } from '../../lib/documents/read.js';
import type { SelfieCheck } from '../../lib/faces/selfie.js';
import type { Identification } from './identity.js';
import type { PaymentEvent } from './schemas.js';

export const CHECK_NAMES = [
  'general_risk',
  'background_check',
  'credit_check',
  'blacklist',
  'payment_verification',
  'identification_document',
  'fraud_detection',
  'adverse_media',
  'social_verification',
  'sanctions',
  'house_rules',
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];
export type CheckStatus = 'PASS' | 'REVIEW' | 'FAIL' | 'INCOMPLETE' | 'DISABLED';

/**
 * How much a finding says on its own about the guest (docs/verdicts.md): `decisive` declines at
 * any risk tolerance, `context` is recorded and never moves the verdict.
 */
export const STRENGTHS = ['context', 'weak', 'moderate', 'strong', 'decisive'] as const;
export type Strength = (typeof STRENGTHS)[number];

/** One thing a check noticed, in a host's words, with how much it weighs. */
export interface Finding {
  code: string;
  text: string;
  strength: Strength;
  recommendation?: string;
}

export interface CheckResult {
  status: CheckStatus;
  value: string;
  help: string;
  findings: Finding[];
  /** The strongest of the findings; absent when the check found nothing or could not run. */
  strength?: Strength;
}

export type RiskTolerance = 'low' | 'balanced' | 'high';

export interface ScreeningSettings {
  riskTolerance: RiskTolerance;
  minimumAge: number;
  disabledChecks: CheckName[];
  /** The name matcher's score from which a listed name (blocklist, sanctions) is a possible match. */
  nameMatchThreshold: number;
  /** The kinds of identity document the account accepts, as read from their photos. */
  acceptedDocuments: DocumentKind[];
  /** Days after check-out that a document's photos are kept; what was read stays with the reservation. */
  documentPhotoDays: number;
}

/** What a document's code (ICAO 9303) makes it: P a passport, I, A and C an identity card, V a visa. */
export const DOCUMENT_KINDS = ['passport', 'id_card', 'visa'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
export const documentKind = (code: string | null | undefined): DocumentKind | null =>
  !code ? null : code.startsWith('P') ? 'passport' : code.startsWith('V') ? 'visa' : /^[IAC]/.test(code) ? 'id_card' : null;

/** Everything the checks may look at, gathered once per run; checks are pure functions of it. */
export interface Snapshot {
  now: string;
  reservation: {
    id: string;
    pms: string;
    status: string;
    source: string | null;
    listing_id: string | null;
    listing_nickname: string | null;
    check_in_date: string | null;
    check_out_date: string | null;
    nights: number | null;
    total_price: number | null;
    number_of_guests: number | null;
    created_at: string;
    guest: { first_name: string | null; last_name: string | null; full_name: string | null; email: string | null; phone: string | null; location: string | null };
  };
  identification: Identification;
  /** The identity document read from the guest's photo (modules/identity): the latest reading, or undefined when none was sent. */
  document?:
    | {
        verification_id: string;
        read: ReadDocument | null;
        problems: PhotoProblem[];
        face?: SelfieCheck | null;
        /** A weak sign that the photo is of a screen (lib/documents/screen.ts): a note for the host. */
        screen_hint?: boolean;
      }
    | undefined;
  payments: (PaymentEvent & { occurred_at: string })[];
  history: { reservations: number; medianTotalPrice: number | null; medianNights: number | null; sameContactLast24h: number };
  guestPortalCompleted: boolean;
  skipGuestPortal: boolean;
  settings: ScreeningSettings;
  /** Blocklist entries that could match: same e-mail, phone or document, and every named entry. */
  blocklist: { id: string; name: string | null; email: string | null; phone: string | null; document_number: string | null; reason: string }[];
  /** Possible matches of the guest on the imported sanctions lists; null when none is imported. */
  sanctions?:
    | {
        source: string;
        entryId: string;
        listedName: string;
        primaryName: string;
        score: number;
        /** What the list says of the person beside the name, against the guest's document: the same, another, or not listed. */
        birthDate: 'same' | 'other' | 'unknown';
        birthYear: 'same' | 'other' | 'unknown';
        document: 'same' | 'unknown';
        explanation: string;
      }[]
    | null;
  /** The sanctions lists the guest was matched against, with their dates (named in the check's answer and so in each decision record). */
  sanctionsLists?: { source: string; dataDate: string }[];
  /** Possible matches the host dismissed as a different person (left out of `sanctions`). */
  sanctionsDismissed?: { source: string; entryId: string; primaryName: string }[];
  /** Articles of the imported news corpus naming the guest; null when none is imported. */
  adverseMedia?: { title: string; link: string; publishedAt: string | null; riskCategories: string[]; topics: { topic: string; words: string }[]; summary: string }[] | null;
  /** The country of each public address the payments came from (DB-IP's country database). */
  ipCountries?: { ip: string; country: string | null }[];
  /** Imported threat feeds listing an address the payments came from; null when no feed is imported. */
  ipThreats?: { ip: string; source: string; title: string; tags: string[] }[] | null;
  /** The account's enabled business rules, in name order. */
  rules: { name: string; expression: string; action: 'review' | 'decline' | 'approve' }[];
}

export type Check = (s: Snapshot) => CheckResult;

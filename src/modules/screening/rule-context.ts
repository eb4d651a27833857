import { Environment } from '@marcbachmann/cel-js';
import type { PrintedPage } from '../../lib/documents/printed.js';
import { parsePhoneNumberFromString } from '../../lib/phone.js';
import { ageOn } from '../../lib/time.js';
import { CHECK_NAMES, type CheckResult, type Snapshot } from './types.js';
import { threeDSecureFailed } from './checks/payment.js';

/**
 * The variables a rule sees. Every field is always present: a missing text is "", a missing
 * number 0 (ages and lead times unknown are -1), so conditions never fail on absent data.
 * Integers are CEL ints, prices CEL doubles. Documented with examples in docs/rules.md.
 */
const SCHEMA = {
  reservation: {
    id: 'string',
    pms: 'string',
    status: 'string',
    source: 'string',
    listing_id: 'string',
    listing_nickname: 'string',
    number_of_guests: 'int',
    nights: 'int',
    total_price: 'double',
    check_in_date: 'string',
    check_out_date: 'string',
    lead_days: 'int',
    check_in_weekday: 'string',
  },
  guest: { first_name: 'string', last_name: 'string', full_name: 'string', email: 'string', email_domain: 'string', phone: 'string', phone_country: 'string', location: 'string' },
  identification: { document_type: 'string', nationality: 'string', age: 'int', expiry_date: 'string' },
  // What was read from the document's photo (modules/identity); read is false until a photo was read.
  document: {
    read: 'bool',
    valid: 'bool',
    format: 'string',
    document_type: 'string',
    issuing_state: 'string',
    nationality: 'string',
    sex: 'string',
    birth_date: 'string',
    expiry_date: 'string',
    age: 'int',
    problems: 'list<string>',
    printed_name: 'string',
  },
  // The guest's selfie against the document's portrait (lib/faces): face_match is same_person,
  // not_same_person, cannot_tell, or '' without a compared selfie; similarity 0-1 (0 without one);
  // liveness the signals that passed (one_face, not_the_document, head_turn, blink, screen).
  identity: { face_match: 'string', similarity: 'double', threshold: 'double', liveness: 'list<string>', liveness_failed: 'list<string>' },
  checks: Object.fromEntries(CHECK_NAMES.map((c) => [c, { status: 'string', value: 'string' }])),
  payments: {
    events: 'int',
    failed: 'int',
    three_d_secure_failed: 'bool',
    card_countries: 'list<string>',
    billing_countries: 'list<string>',
    charged: 'double',
  },
  risk: { score: 'int', color: 'string', status: 'string' },
} as const;

/** The days of the week as reservation.check_in_weekday spells them, Monday first. */
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** The day of the week of a date (YYYY-MM-DD), '' where there is none. */
const weekdayOf = (date: string | null | undefined): string => (date ? (WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7] ?? '') : '');

export const RULE_ENV = (() => {
  const env = new Environment();
  for (const [name, schema] of Object.entries(SCHEMA)) env.registerVariable({ name, schema: schema });
  return env;
})();

export type RuleContext = Record<keyof typeof SCHEMA, Record<string, unknown>>;

/** Every field a rule can name, with its CEL type: 'reservation.nights' → 'int'. */
export const RULE_FIELD_TYPES: Map<string, string> = (() => {
  const out = new Map<string, string>();
  const walk = (prefix: string, node: unknown) => {
    if (typeof node === 'string') out.set(prefix, node);
    else for (const [k, v] of Object.entries(node as Record<string, unknown>)) walk(prefix ? `${prefix}.${k}` : k, v);
  };
  walk('', SCHEMA);
  return out;
})();

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The known field nearest a name CEL did not know, by the whole path or its last part. */
export function nearestField(name: string): string | undefined {
  let best: { path: string; d: number } | undefined;
  for (const path of RULE_FIELD_TYPES.keys()) {
    const d = Math.min(editDistance(name, path), editDistance(name, path.slice(path.lastIndexOf('.') + 1)));
    if (!best || d < best.d) best = { path, d };
  }
  return best && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.path : undefined;
}

/**
 * null when the expression is a valid boolean rule; otherwise CEL's message, first line, with a
 * word of help where one is clear: the field meant, or CEL's spelling of "and" and "or".
 */
export function compileProblem(expression: string): string | null {
  const result = RULE_ENV.check(expression) as { valid: boolean; type?: string; error?: Error };
  if (result.valid) return result.type === 'bool' ? null : `the expression is of type ${result.type}; a rule must be true or false`;
  const message = (result.error?.message ?? 'invalid expression').split('\n')[0]!.trim();
  const unknown = /^(?:Unknown variable|No such key): (\w+)/.exec(message)?.[1];
  if (unknown) {
    const near = nearestField(unknown);
    return `${message}: “${unknown}” is not a field a rule knows${near ? `; did you mean ${near}?` : ' (the fields are in docs/rules.md)'}`;
  }
  if (/^Unexpected character: [|&]/.test(message)) return `${message}: write “||” for or, “&&” for and`;
  return message;
}

const int = (n: number | null | undefined, missing = 0) => BigInt(Math.trunc(n ?? missing));
const txt = (s: string | null | undefined) => s ?? '';

/** An age on the day, or -1 without a birth date. */
const ageOrNone = (birth: string | undefined, day: string) => (birth ? ageOn(birth, day) : -1);

/** `document.*`: what the photo's zone says, its dates only where their check digits hold. */
function documentContext(s: Snapshot, day: string): Record<string, unknown> {
  const d = s.document?.read;
  const held = (f: { value: string | null; check: string } | undefined) => (f?.value && f.check === 'valid' ? f.value : '');
  return {
    read: Boolean(d),
    valid: d?.valid ?? false,
    format: d?.format ?? '',
    document_type: txt(d?.document_type.value),
    issuing_state: txt(d?.issuing_state.value),
    nationality: txt(d?.nationality.value),
    sex: txt(d?.sex.value),
    birth_date: held(d?.birth_date),
    expiry_date: held(d?.expiry_date),
    age: BigInt(ageOrNone(held(d?.birth_date) || undefined, day)),
    problems: [...(s.document?.problems ?? [])],
    printed_name: printedName(d?.printed),
  };
}

/** `identity.*`: the selfie's comparison with the document's portrait, and the liveness signals. */
function identityContext(s: Snapshot): Record<string, unknown> {
  const f = s.document?.face;
  const signals = (result: string) => (f?.liveness.signals ?? []).filter((x) => x.result === result).map((x) => x.code as string);
  return {
    face_match: f?.face.verdict ?? '',
    similarity: f?.face.similarity ?? 0,
    threshold: f?.face.threshold ?? 0,
    liveness: signals('passed'),
    liveness_failed: signals('failed'),
  };
}

/** The printed page's name against the zone's: same, differs, unread, or '' where no page was read. */
function printedName(p: PrintedPage | null | undefined): string {
  if (!p) return '';
  const names = [p.surname.agrees, p.given_names.agrees];
  return names.includes('differs') ? 'differs' : names.every((a) => a === 'same') ? 'same' : 'unread';
}

/** Builds the rule context from a screening snapshot and the check results of that run. */
export function ruleContext(s: Snapshot, details: Record<string, CheckResult>, risk: { score: number; color: string; status: string }): RuleContext {
  const r = s.reservation;
  const today = s.now.slice(0, 10);
  const lead = r.check_in_date ? Math.floor((Date.parse(`${r.check_in_date}T00:00:00Z`) - Date.parse(r.created_at)) / 86_400_000) : -1;
  const phone = r.guest.phone ? parsePhoneNumberFromString(r.guest.phone) : undefined;
  return {
    reservation: {
      id: r.id,
      pms: r.pms,
      status: r.status,
      source: txt(r.source),
      listing_id: txt(r.listing_id),
      listing_nickname: txt(r.listing_nickname),
      number_of_guests: int(r.number_of_guests),
      nights: int(r.nights),
      total_price: r.total_price ?? 0,
      check_in_date: txt(r.check_in_date),
      check_out_date: txt(r.check_out_date),
      lead_days: BigInt(lead),
      check_in_weekday: weekdayOf(r.check_in_date),
    },
    guest: {
      first_name: txt(r.guest.first_name),
      last_name: txt(r.guest.last_name),
      full_name: txt(r.guest.full_name),
      email: txt(r.guest.email),
      email_domain: r.guest.email?.split('@')[1] ?? '',
      phone: txt(r.guest.phone),
      phone_country: phone?.country ?? '',
      location: txt(r.guest.location),
    },
    identification: {
      document_type: txt(s.identification.document_type),
      nationality: txt(s.identification.nationality),
      age: BigInt(ageOrNone(s.identification.birth_date, r.check_in_date ?? today)),
      expiry_date: txt(s.identification.expiry_date),
    },
    document: documentContext(s, r.check_in_date ?? today),
    identity: identityContext(s),
    checks: Object.fromEntries(CHECK_NAMES.map((c) => [c, { status: details[c]?.status ?? 'INCOMPLETE', value: details[c]?.value ?? '' }])),
    payments: {
      events: BigInt(s.payments.length),
      failed: BigInt(s.payments.filter((p) => p.event_status === 'failed').length),
      three_d_secure_failed: threeDSecureFailed(s.payments),
      card_countries: [...new Set(s.payments.map((p) => p.card_country).filter((c): c is string => Boolean(c)))],
      billing_countries: [...new Set(s.payments.map((p) => p.billing_country_code).filter((c): c is string => Boolean(c)))],
      charged: s.payments.filter((p) => p.event_status === 'succeeded' && (p.event_type === 'charge' || p.event_type === 'capture')).reduce((n, p) => n + (p.amount ?? 0), 0),
    },
    risk: { score: BigInt(risk.score), color: risk.color, status: risk.status },
  };
}

export interface RuleDef {
  name: string;
  expression: string;
  action: 'review' | 'decline' | 'approve';
}

/** The rules whose condition holds; a rule that errors at run time is reported, never fired. */
export function evaluateRules(rules: RuleDef[], ctx: RuleContext): { fired: RuleDef[]; errors: { name: string; error: string }[] } {
  const fired: RuleDef[] = [];
  const errors: { name: string; error: string }[] = [];
  for (const rule of rules) {
    try {
      if (RULE_ENV.evaluate(rule.expression, ctx) === true) fired.push(rule);
    } catch (err) {
      errors.push({ name: rule.name, error: (err as Error).message.split('\n')[0] ?? 'error' });
    }
  }
  return { fired, errors };
}

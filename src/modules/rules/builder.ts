import { CHECK_NAMES, RULE_FIELD_TYPES, WEEKDAYS } from '../screening/index.js';

/**
 * Rules without code: a condition is a field of the rule context, a comparison and a value; a rule
 * is conditions that must all hold, or any one. The builder writes the CEL a rule stores and reads
 * back the CEL it wrote (or a hand-written rule of the same shape), so a rule opens in the form
 * it was made in. Anything else stays CEL.
 */

type FieldType = 'int' | 'double' | 'string' | 'bool';

export interface RuleField {
  path: string;
  type: FieldType;
  /** What the field is, in a host's words. */
  words: string;
  /** The value the context gives the field where it is not known (context.ts): a comparison never matches it, "is unknown" does. */
  unknown?: string;
  /** The only values the field takes, as the context spells them. */
  choices?: readonly string[];
}

const CHECK_WORDS: Record<string, string> = {
  identification_document: 'identity document',
  fraud_detection: 'fraud signals',
  payment_verification: 'payment',
  blacklist: 'your blocklist',
  house_rules: 'house rules',
  background_check: 'background',
  credit_check: 'credit',
  adverse_media: 'news about the guest',
  social_verification: 'online presence',
  sanctions: 'sanctions lists',
  general_risk: 'general risk',
};

/** The fields that may be unknown for a booking, with the value the context then gives them (context.ts). */
const UNKNOWN_AS: Record<string, { unknown: string }> = {
  'reservation.lead_days': { unknown: '-1' },
  'reservation.check_in_weekday': { unknown: '""' },
  'identification.age': { unknown: '-1' },
  'document.age': { unknown: '-1' },
};

/** The fields a host picks from, with what each means; the rest of the context is for CEL. */
export const RULE_FIELDS: RuleField[] = (
  [
    ['reservation.number_of_guests', 'Number of guests'],
    ['reservation.nights', 'Nights booked'],
    ['reservation.total_price', 'Total price of the booking'],
    ['reservation.lead_days', 'Days from booking to check-in'],
    ['reservation.check_in_weekday', 'Day of the week of check-in (Monday … Sunday)'],
    ['reservation.source', 'Booking source (Airbnb, Direct, …)'],
    ['reservation.listing_nickname', 'Listing'],
    ['reservation.status', 'Booking status (CONFIRMED, CANCELED, INQUIRY)'],
    ['guest.email_domain', "Domain of the guest's e-mail address"],
    ['guest.phone_country', "Country of the guest's phone number (ISO code, e.g. GB)"],
    ['guest.location', "Guest's location as booked"],
    ['identification.age', "Guest's age at check-in"],
    ['identification.nationality', "Guest's nationality (ISO code)"],
    ['document.read', "A photo of the guest's document was read"],
    ['document.valid', "Every check digit on the guest's document holds"],
    ['document.age', "Age on the document's photo at check-in"],
    ['document.printed_name', 'Name printed on the document against its machine-readable zone (same, differs, unread)'],
    ['identity.face_match', "Selfie against the document's portrait (same_person, not_same_person, cannot_tell)"],
    ['payments.failed', 'Failed payments'],
    ['payments.three_d_secure_failed', 'The latest 3-D Secure check failed'],
    ['payments.charged', 'Amount charged so far'],
    ['risk.score', 'Risk score before rules (0, 25, 50, 75 or 100)'],
    ['risk.color', 'Colour before rules (green, yellow, orange, red)'],
    ...CHECK_NAMES.map((c) => [`checks.${c}.status`, `Result of the ${CHECK_WORDS[c] ?? c} check (PASS, REVIEW, FAIL, INCOMPLETE, DISABLED)`] as const),
  ] as const
).map(([path, words]) => ({ path, words, type: RULE_FIELD_TYPES.get(path) as FieldType, ...UNKNOWN_AS[path], ...(path === 'reservation.check_in_weekday' ? { choices: WEEKDAYS } : {}) }));

const FIELDS = new Map(RULE_FIELDS.map((f) => [f.path, f]));

/** Comparisons by the type of field, each with its words. */
export const OPERATORS = {
  '==': 'is',
  '!=': 'is not',
  '>': 'is more than',
  '>=': 'is at least',
  '<': 'is less than',
  '<=': 'is at most',
  in: 'is one of (comma-separated)',
  contains: 'contains',
  startsWith: 'starts with',
  endsWith: 'ends with',
  true: 'is true',
  false: 'is false',
  unknown: 'is unknown',
} as const;
export type Operator = keyof typeof OPERATORS;

export const OPERATORS_FOR: Record<FieldType, Operator[]> = {
  int: ['==', '!=', '>', '>=', '<', '<='],
  double: ['==', '!=', '>', '>=', '<', '<='],
  string: ['==', '!=', 'in', 'contains', 'startsWith', 'endsWith'],
  bool: ['true', 'false'],
};

export interface Condition {
  field: string;
  op: Operator;
  value: string;
}

export type Join = 'all' | 'any';

/** The CEL of a built rule, or the problem with one of its conditions, in words. */
/** The comparisons a field takes: those of its type, and "is unknown" where it may be. */
export const operatorsOf = (field: RuleField): Operator[] => [...OPERATORS_FOR[field.type], ...(field.unknown ? (['unknown'] as const) : [])];

/**
 * The CEL of a built rule, or the problem with one of its conditions, in words. A comparison on a
 * field that may be unknown holds only where it is known ("age less than 21" never holds for a
 * guest whose birth date nobody gave); "is unknown" asks for the rest.
 */
export function toCel(conditions: Condition[], join: Join): { expression: string } | { problem: string } {
  if (!conditions.length) return { problem: 'Add at least one condition.' };
  const terms: string[] = [];
  for (const [i, c] of conditions.entries()) {
    const field = FIELDS.get(c.field);
    const n = `Condition ${i + 1}`;
    if (!field) return { problem: `${n}: pick a field.` };
    if (!operatorsOf(field).includes(c.op)) return { problem: `${n}: “${OPERATORS[c.op] ?? c.op}” does not apply to ${field.words.toLowerCase()}.` };
    if (c.op === 'unknown') {
      terms.push(`${field.path} == ${field.unknown}`);
      continue;
    }
    const term = termOf(field, c, n);
    if ('problem' in term) return term;
    terms.push(field.unknown ? `(${field.path} != ${field.unknown} && ${term.cel})` : term.cel);
  }
  return { expression: terms.join(join === 'all' ? ' && ' : ' || ') };
}

/** One condition's comparison in CEL, unguarded; or the problem with it. */
function termOf(field: RuleField, c: Condition, n: string): { cel: string } | { problem: string } {
  const value = c.value.trim();
  if (field.type === 'bool') return { cel: c.op === 'true' ? field.path : `!${field.path}` };
  if (field.type === 'int' || field.type === 'double') {
    if (!/^-?\d+(\.\d+)?$/.test(value)) return { problem: `${n}: ${field.words.toLowerCase()} is compared with a number; “${value}” is not one.` };
    if (field.type === 'int' && value.includes('.')) return { problem: `${n}: ${field.words.toLowerCase()} is a whole number.` };
    return { cel: `${field.path} ${c.op} ${field.type === 'double' && !value.includes('.') ? `${value}.0` : value}` };
  }
  let values = (c.op === 'in' ? value.split(',') : [value]).map((v) => v.trim()).filter(Boolean);
  if (field.choices) {
    // Spelt as the field spells its values, whatever the case typed: "friday" is Friday.
    const spelt = values.map((v) => field.choices!.find((x) => x.toLowerCase() === v.toLowerCase()));
    const wrong = values.find((_, i) => !spelt[i]);
    if (wrong !== undefined) return { problem: `${n}: “${wrong}” is not one of ${field.choices.join(', ')}.` };
    values = spelt as string[];
  }
  if (c.op === 'in') {
    if (!values.length) return { problem: `${n}: give the values, separated by commas.` };
    return { cel: `${field.path} in [${values.map((v) => JSON.stringify(v)).join(', ')}]` };
  }
  const one = values[0] ?? '';
  if (c.op === '==' || c.op === '!=') return { cel: `${field.path} ${c.op} ${JSON.stringify(one)}` };
  if (!one) return { problem: `${n}: give the text to look for.` };
  return { cel: `${field.path}.${c.op}(${JSON.stringify(one)})` };
}

/** Splits at the top-level `&&` or `||` (never both), outside strings and brackets. */
function splitTerms(expression: string): { terms: string[]; join: Join } | null {
  const terms: string[] = [];
  let join: Join | null = null;
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < expression.length; i++) {
    const ch = expression[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (depth === 0 && (expression.startsWith('&&', i) || expression.startsWith('||', i))) {
      const here: Join = ch === '&' ? 'all' : 'any';
      if (join && join !== here) return null;
      join = here;
      terms.push(expression.slice(start, i).trim());
      start = i + 2;
      i++;
    }
  }
  terms.push(expression.slice(start).trim());
  return { terms, join: join ?? 'all' };
}

/** A string literal as CEL writes it, single or double quoted, read as JSON reads it. */
function literal(text: string): string | null {
  const t = text.trim();
  const quoted = /^"(?:[^"\\]|\\.)*"$/.test(t) ? t : /^'(?:[^'\\]|\\.)*'$/.test(t) ? `"${t.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"` : null;
  if (!quoted) return null;
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return null;
  }
}

/** The builder's conditions for a rule's CEL, or null when the rule is not of a shape the builder makes. */
export function fromCel(expression: string): { conditions: Condition[]; join: Join } | null {
  const split = splitTerms(expression.trim());
  if (!split) return null;
  const conditions: Condition[] = [];
  for (const term of split.terms) {
    const c = guardedCondition(term);
    if (!c) return null;
    conditions.push(c);
  }
  return { conditions, join: split.join };
}

/**
 * A term as toCel writes it for its field: on a field that may be unknown, "is unknown" or a
 * comparison guarded to known values. An unguarded comparison on such a field (hand-written, or
 * saved before comparisons were guarded) also holds for unknown values: it stays CEL, as it means.
 */
function guardedCondition(term: string): Condition | null {
  const unknown = /^([a-z_.]+) == (-1|"")$/.exec(term);
  if (unknown && FIELDS.get(unknown[1]!)?.unknown === unknown[2]) return { field: unknown[1]!, op: 'unknown', value: '' };
  const guarded = /^\(([a-z_.]+) != (-1|"") && (.+)\)$/.exec(term);
  if (guarded) {
    const c = conditionOf(guarded[3]!);
    return c && c.field === guarded[1] && FIELDS.get(c.field)?.unknown === guarded[2] ? c : null;
  }
  const c = conditionOf(term);
  return c && !FIELDS.get(c.field)?.unknown ? c : null;
}

/** One comparison of a field the builder offers, read as the builder shows it; null for anything else. */
function conditionOf(term: string): Condition | null {
  let m: RegExpExecArray | null;
  const field = (path: string) => FIELDS.get(path);
  if ((m = /^(!?)([a-z_.]+)$/.exec(term)) && field(m[2]!)?.type === 'bool') return { field: m[2]!, op: m[1] ? 'false' : 'true', value: '' };
  if ((m = /^([a-z_.]+) in \[(.*)\]$/.exec(term)) && field(m[1]!)?.type === 'string') {
    const values = m[2]!.split(',').map(literal);
    return values.some((v) => v === null) ? null : { field: m[1]!, op: 'in', value: values.join(', ') };
  }
  if ((m = /^([a-z_.]+)\.(contains|startsWith|endsWith)\((.*)\)$/.exec(term)) && field(m[1]!)?.type === 'string') {
    const value = literal(m[3]!);
    return value === null ? null : { field: m[1]!, op: m[2] as Operator, value };
  }
  if ((m = /^([a-z_.]+) (==|!=|>=|<=|>|<) (.+)$/.exec(term)) && field(m[1]!)) {
    const f = field(m[1]!)!;
    if (f.type === 'string') {
      const value = literal(m[3]!);
      return value === null || !['==', '!='].includes(m[2]!) ? null : { field: f.path, op: m[2] as Operator, value };
    }
    if ((f.type === 'int' || f.type === 'double') && /^-?\d+(\.\d+)?$/.test(m[3]!)) return { field: f.path, op: m[2] as Operator, value: f.type === 'double' ? String(Number(m[3])) : m[3]! };
  }
  return null;
}

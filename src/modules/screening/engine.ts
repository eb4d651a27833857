import { createHash } from 'node:crypto';
import { fraudDetection } from './checks/fraud.js';
import { identificationDocument } from './checks/identification.js';
import { blacklist } from './checks/blocklist.js';
import { houseRules, unavailable } from './checks/other.js';
import { paymentVerification } from './checks/payment.js';
import { adverseMedia, sanctions } from './checks/watchlists.js';
import { evaluateRules, ruleContext } from './rule-context.js';
import { say, listInWords } from '../../lib/host-messages.js';
import { rank } from './checks/outcome.js';
import { CHECK_NAMES, type Check, type CheckName, type CheckResult, type Finding, type RiskTolerance, type Snapshot, type Strength } from './types.js';

export const ENGINE_VERSION = '2';

/** Each check by its details key. general_risk is derived from the others by the verdict. */
const CHECKS: Record<Exclude<CheckName, 'general_risk'>, Check> = {
  identification_document: identificationDocument,
  fraud_detection: fraudDetection,
  payment_verification: paymentVerification,
  blacklist,
  house_rules: houseRules,
  background_check: unavailable('background_check'),
  credit_check: unavailable('credit_check'),
  adverse_media: adverseMedia,
  social_verification: unavailable('social_verification'),
  sanctions,
};

/**
 * The evidence level at which a verdict becomes review, and declined, per risk tolerance
 * (docs/verdicts.md). Levels run from 0 (nothing) to 4 (decisive); see evidenceLevel.
 */
export const THRESHOLDS: Record<RiskTolerance, { review: number; decline: number }> = {
  low: { review: 1, decline: 3 },
  balanced: { review: 2, decline: 4 },
  high: { review: 3, decline: 4 },
};

export type VerificationStatus = 'pending' | 'verified' | 'review' | 'declined';

export interface Verdict {
  status: VerificationStatus;
  /** The evidence level as 0 to 100 (level × 25), for rules and sorting. */
  score: number;
  risk_color: 'green' | 'yellow' | 'orange' | 'red';
  reason: string;
  top_risks: string[];
  top_recommendations: string[];
  /** Where each top risk came from: a check's finding, or a business rule. */
  trace: { risk: string; check: CheckName | 'business_rules'; code: string; strength: Strength | 'rule' }[];
  details: Record<CheckName, CheckResult>;
  rules_fired: string[];
  rule_errors: { name: string; error: string }[];
}

/**
 * How strongly the findings speak against the guest, 0 to 4: the strongest finding's rank,
 * one higher when another check independently found something nearly as strong (at least one
 * rank below, and at least weak). Independent signals corroborate; several of one check do not.
 */
export function evidenceLevel(found: { f: Finding; check: CheckName }[]): number {
  const top = found[0];
  if (!top) return 0;
  const level = rank(top.f.strength);
  if (level >= 4) return 4;
  const corroborated = found.some((x) => x.check !== top.check && rank(x.f.strength) >= Math.max(1, level - 1));
  return Math.min(4, level + (corroborated ? 1 : 0));
}

export function inputsDigest(s: Snapshot): string {
  return createHash('sha256').update(JSON.stringify(s)).digest('hex');
}

/** Runs every check and turns the findings into a verdict. Pure: the same snapshot gives the same verdict. */
export function screen(s: Snapshot): Verdict {
  const details = {} as Record<CheckName, CheckResult>;
  for (const name of CHECK_NAMES) {
    if (name === 'general_risk') continue;
    details[name] = s.settings.disabledChecks.includes(name) ? { status: 'DISABLED', value: say('check.disabled.value'), help: say('check.disabled.help'), findings: [] } : CHECKS[name](s);
  }

  const found: { f: Finding; check: CheckName }[] = [];
  for (const name of CHECK_NAMES) {
    for (const f of details[name]?.findings ?? []) if (f.strength !== 'context') found.push({ f, check: name });
  }
  found.sort((a, b) => rank(b.f.strength) - rank(a.f.strength) || CHECK_NAMES.indexOf(a.check) - CHECK_NAMES.indexOf(b.check));
  const level = evidenceLevel(found);
  const score = level * 25;
  const t = THRESHOLDS[s.settings.riskTolerance];

  let status: VerificationStatus = level >= t.decline ? 'declined' : level >= t.review ? 'review' : 'verified';
  let risk_color: Verdict['risk_color'] = status === 'declined' ? 'red' : status === 'review' ? 'orange' : level > 0 ? 'yellow' : 'green';
  const waiting = !s.skipGuestPortal && !s.guestPortalCompleted;
  const top = found.slice(0, 5);
  const risks = top.map((w) => w.f.text).join('; ');
  const trace: Verdict['trace'] = top.map((w) => ({ risk: w.f.text, check: w.check, code: w.f.code, strength: w.f.strength }));
  let reason =
    status === 'declined'
      ? say('verdict.reason.declined', { risks })
      : status === 'review'
        ? say('verdict.reason.review', { risks })
        : top.length
          ? say('verdict.reason.verified_noted', { risks })
          : say('verdict.reason.verified');

  // The account's business rules have the last word: decline beats approve beats review.
  const { fired, errors } = evaluateRules(s.rules, ruleContext(s, details, { score, color: risk_color, status }));
  const ruleRisk = (r: (typeof fired)[number]) => say('verdict.rule_fired', { name: r.name, action: r.action });
  const ruleRisks = fired.filter((r) => r.action !== 'approve').map(ruleRisk);
  const byAction = (a: string) => listInWords(fired.filter((r) => r.action === a).map((r) => `“${r.name}”`));
  if (byAction('decline')) {
    status = 'declined';
    risk_color = 'red';
    reason = say('verdict.reason.rule_declined', { rules: byAction('decline') });
  } else if (byAction('approve')) {
    status = 'verified';
    reason = top.length ? say('verdict.reason.rule_approved_despite', { rules: byAction('approve'), risks }) : say('verdict.reason.rule_approved', { rules: byAction('approve') });
  } else if (byAction('review') && status === 'verified') {
    status = 'review';
    if (risk_color === 'green' || risk_color === 'yellow') risk_color = 'orange';
    reason = say('verdict.reason.rule_review', { rules: byAction('review') });
  }
  for (const r of fired.filter((x) => x.action !== 'approve')) trace.unshift({ risk: ruleRisk(r), check: 'business_rules', code: r.name, strength: 'rule' });
  if (waiting && status !== 'declined') {
    status = 'pending';
    reason = top.length ? say('verdict.reason.waiting_so_far', { risks }) : say('verdict.reason.waiting');
  }
  const topRisks = [...ruleRisks, ...top.map((w) => w.f.text)].slice(0, 5);

  details.general_risk = {
    status: status === 'declined' ? 'FAIL' : status === 'review' ? 'REVIEW' : status === 'pending' ? 'INCOMPLETE' : 'PASS',
    value: say('verdict.value', { level: risk_color, tolerance: s.settings.riskTolerance }),
    help: status === 'declined' ? say('verdict.help.declined') : status === 'review' ? say('verdict.help.review') : status === 'pending' ? say('verdict.help.pending') : say('check.no_action'),
    findings: [],
    ...(found[0] ? { strength: found[0].f.strength } : {}),
  };

  return {
    status,
    score,
    risk_color,
    reason,
    top_risks: topRisks,
    top_recommendations: [...new Set(top.map((w) => w.f.recommendation).filter((r): r is string => Boolean(r)))],
    trace: trace.filter((x) => topRisks.includes(x.risk)),
    details,
    rules_fired: fired.map((r) => r.name),
    rule_errors: errors,
  };
}

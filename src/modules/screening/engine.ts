import { createHash } from 'node:crypto';
import { fraudDetection } from './checks/fraud.js';
import { identificationDocument } from './checks/identification.js';
import { blacklist } from './checks/blocklist.js';
import { houseRules, unavailable } from './checks/other.js';
import { paymentVerification } from './checks/payment.js';
import { adverseMedia, sanctions } from './checks/watchlists.js';
import { evaluateRules, ruleContext } from '../rules/context.js';
import { CHECK_NAMES, type Check, type CheckName, type CheckResult, type Finding, type RiskTolerance, type Snapshot } from './types.js';

export const ENGINE_VERSION = '1';

/** Each check by its details key. general_risk is derived from the others by the verdict. */
const CHECKS: Record<Exclude<CheckName, 'general_risk'>, Check> = {
  identification_document: identificationDocument,
  fraud_detection: fraudDetection,
  payment_verification: paymentVerification,
  blacklist,
  house_rules: houseRules,
  background_check: unavailable('a background check'),
  credit_check: unavailable('a credit check'),
  adverse_media: adverseMedia,
  social_verification: unavailable('social verification'),
  sanctions,
};

/** Risk score at which the verdict becomes review, and declined, per risk tolerance. */
export const THRESHOLDS: Record<RiskTolerance, { review: number; decline: number }> = {
  low: { review: 15, decline: 50 },
  balanced: { review: 25, decline: 70 },
  high: { review: 40, decline: 90 },
};

export type VerificationStatus = 'pending' | 'verified' | 'review' | 'declined';

export interface Verdict {
  status: VerificationStatus;
  score: number;
  risk_color: 'green' | 'yellow' | 'orange' | 'red';
  reason: string;
  top_risks: string[];
  top_recommendations: string[];
  /** Where each top risk came from: a check's finding, or a business rule. */
  trace: { risk: string; check: CheckName | 'business_rules'; code: string; weight: number }[];
  details: Record<CheckName, CheckResult>;
  rules_fired: string[];
  rule_errors: { name: string; error: string }[];
}

export function inputsDigest(s: Snapshot): string {
  return createHash('sha256').update(JSON.stringify(s)).digest('hex');
}

/** Runs every check and turns the findings into a verdict. Pure: the same snapshot gives the same verdict. */
export function screen(s: Snapshot): Verdict {
  const details = {} as Record<CheckName, CheckResult>;
  for (const name of CHECK_NAMES) {
    if (name === 'general_risk') continue;
    details[name] = s.settings.disabledChecks.includes(name)
      ? { status: 'DISABLED', value: 'turned off for this account', help: 'Enable it in the screening settings to use it.', findings: [] }
      : CHECKS[name](s);
  }

  const weighed: { f: Finding; check: CheckName }[] = [];
  for (const name of CHECK_NAMES) {
    for (const f of details[name]?.findings ?? []) if (f.weight > 0) weighed.push({ f, check: name });
  }
  weighed.sort((a, b) => b.f.weight - a.f.weight || a.f.code.localeCompare(b.f.code));
  const score = weighed.reduce((n, w) => n + w.f.weight, 0);
  const t = THRESHOLDS[s.settings.riskTolerance];
  const failed = CHECK_NAMES.some((n) => details[n]?.status === 'FAIL');
  const flagged = failed || CHECK_NAMES.some((n) => details[n]?.status === 'REVIEW');

  let status: VerificationStatus = score >= t.decline ? 'declined' : score >= t.review || failed ? 'review' : 'verified';
  const waiting = !s.skipGuestPortal && !s.guestPortalCompleted;
  let risk_color: Verdict['risk_color'] = score >= t.decline ? 'red' : score >= t.review || failed ? 'orange' : flagged ? 'yellow' : 'green';
  const top = weighed.slice(0, 5);
  const trace: Verdict['trace'] = top.map((w) => ({ risk: w.f.text, check: w.check, code: w.f.code, weight: w.f.weight }));
  let reason =
    status === 'verified'
      ? 'no risk found in the checks that could run'
      : `${status === 'declined' ? 'high' : 'elevated'} risk (score ${score}): ${top.map((w) => w.f.text).join('; ')}`;

  // The account's business rules have the last word: decline beats approve beats review.
  const { fired, errors } = evaluateRules(s.rules, ruleContext(s, details, { score, color: risk_color, status }));
  const ruleRisks = fired.filter((r) => r.action !== 'approve').map((r) => `Business rule '${r.name}' fired (${r.action})`);
  const byAction = (a: string) => fired.filter((r) => r.action === a).map((r) => r.name);
  if (byAction('decline').length) {
    status = 'declined';
    risk_color = 'red';
    reason = `declined by business rule ${byAction('decline').map((n) => `'${n}'`).join(', ')}`;
  } else if (byAction('approve').length) {
    status = 'verified';
    reason = `approved by business rule ${byAction('approve').map((n) => `'${n}'`).join(', ')}${weighed.length ? ` despite: ${top.map((w) => w.f.text).join('; ')}` : ''}`;
  } else if (byAction('review').length && status === 'verified') {
    status = 'review';
    if (risk_color === 'green' || risk_color === 'yellow') risk_color = 'orange';
    reason = `sent to review by business rule ${byAction('review').map((n) => `'${n}'`).join(', ')}`;
  }
  for (const r of fired.filter((x) => x.action !== 'approve')) {
    trace.unshift({ risk: `Business rule '${r.name}' fired (${r.action})`, check: 'business_rules', code: r.name, weight: 0 });
  }
  if (waiting && status !== 'declined') {
    status = 'pending';
    reason = `waiting for the guest portal${weighed.length ? `; so far: ${top.map((w) => w.f.text).join('; ')}` : ''}`;
  }
  const topRisks = [...ruleRisks, ...top.map((w) => w.f.text)].slice(0, 5);

  details.general_risk = {
    status: status === 'declined' ? 'FAIL' : status === 'review' ? 'REVIEW' : status === 'pending' ? 'INCOMPLETE' : 'PASS',
    value: `${risk_color === 'green' ? 'low' : risk_color === 'yellow' ? 'slight' : risk_color === 'orange' ? 'elevated' : 'high'} risk (score ${score}, ${s.settings.riskTolerance} tolerance)`,
    help:
      status === 'declined'
        ? 'Decline the booking or verify the guest thoroughly before arrival.'
        : status === 'review'
          ? 'Review the risks listed before accepting the guest.'
          : status === 'pending'
            ? 'The verdict is final once the guest completes the portal.'
            : 'No action needed.',
    findings: [],
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

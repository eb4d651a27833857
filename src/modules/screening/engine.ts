import { createHash } from 'node:crypto';
import { fraudDetection } from './checks/fraud.js';
import { identificationDocument } from './checks/identification.js';
import { blacklist, houseRules, unavailable } from './checks/other.js';
import { paymentVerification } from './checks/payment.js';
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
  adverse_media: unavailable('an adverse-media search'),
  social_verification: unavailable('social verification'),
  sanctions: unavailable('a sanctions search'),
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
  /** Where each top risk came from: check and finding code, so every line is traceable. */
  trace: { risk: string; check: CheckName; code: string; weight: number }[];
  details: Record<CheckName, CheckResult>;
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
  const risk_color = score >= t.decline ? 'red' : score >= t.review || failed ? 'orange' : flagged ? 'yellow' : 'green';
  const top = weighed.slice(0, 5);
  let reason =
    status === 'verified'
      ? 'no risk found in the checks that could run'
      : `${status === 'declined' ? 'high' : 'elevated'} risk (score ${score}): ${top.map((w) => w.f.text).join('; ')}`;
  if (waiting && status !== 'declined') {
    status = 'pending';
    reason = `waiting for the guest portal${weighed.length ? `; so far: ${top.map((w) => w.f.text).join('; ')}` : ''}`;
  }

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
    top_risks: top.map((w) => w.f.text),
    top_recommendations: [...new Set(top.map((w) => w.f.recommendation).filter((r): r is string => Boolean(r)))],
    trace: top.map((w) => ({ risk: w.f.text, check: w.check, code: w.f.code, weight: w.f.weight })),
    details,
  };
}

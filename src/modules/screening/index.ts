/** What the screening module offers the modules above it: they import nothing else of it. */
export { CHECK_NAMES, STRENGTHS, type Snapshot, type Strength } from './types.js';
export { documentProblems, type DocumentProblem } from './checks/identification.js';
export { rank } from './checks/outcome.js';
export { decisionsView } from './decisions.js';
export { dismissSanctionsHit } from './dismissals.js';
export type { Verdict } from './engine.js';
export { forgetHistory } from './history.js';
export { IDENTIFICATION_FIELDS, openIdentification, sealIdentification, type Identification } from './identity.js';
export { deleteDismissalsOf, listPaymentEvents, paymentEventsOf } from './repo.js';
export { RULE_FIELD_TYPES, WEEKDAYS, compileProblem, evaluateRules, ruleContext, type RuleContext, type RuleDef } from './rule-context.js';
export { requestScreening, reservationPart, screeningSettings, waitForScreening } from './run.js';
export { DecisionList, EVENT_STATUSES, EVENT_TYPES, PaymentEventBody, type PaymentEvent } from './schemas.js';
export { RISK_COLORS, compositeStatus, emitScreeningEvent, statusView, storedVerdict, summaryView, type VerdictSummary } from './verdict.js';

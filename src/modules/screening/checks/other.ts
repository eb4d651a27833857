import type { Check } from '../types.js';

/** House rules are accepted in the guest portal; until the portal records it, this is open. */
export const houseRules: Check = (s) =>
  s.guestPortalCompleted
    ? { status: 'PASS', value: 'house rules accepted', help: 'No action needed.', findings: [] }
    : { status: 'INCOMPLETE', value: 'house rules not accepted yet', help: 'The guest accepts the house rules in the guest portal.', findings: [] };

/** A check whose data source this service does not have yet: said plainly, never guessed. */
export const unavailable =
  (what: string): Check =>
  () => ({
    status: 'INCOMPLETE',
    value: `${what} not run: no data source configured yet`,
    help: `This service does not run ${what} yet; it does not count for or against the guest.`,
    findings: [],
  });

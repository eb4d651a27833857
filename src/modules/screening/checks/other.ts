import { say } from '../../../lib/host-messages.js';
import type { Check, CheckName } from '../types.js';

/** House rules are accepted in the guest portal; until the portal records it, this is open. */
export const houseRules: Check = (s) =>
  s.guestPortalCompleted
    ? { status: 'PASS', value: say('house_rules.accepted.value'), help: say('check.no_action'), findings: [] }
    : { status: 'INCOMPLETE', value: say('house_rules.open.value'), help: say('house_rules.open.help'), findings: [] };

/** A check a screening has no data source for: said plainly, never guessed. */
export const unavailable =
  (what: Extract<CheckName, 'background_check' | 'credit_check' | 'social_verification'>): Check =>
  () => ({ status: 'INCOMPLETE', value: say('unavailable.value', { what }), help: say('unavailable.help', { what }), findings: [] });

import { alertHourly, onVerdictChanged, sendAlert } from '../modules/alerts/service.js';
import { runAuthorityPlan, runAuthoritySend } from '../modules/authority/reports.js';
import { rematchChecksOnListChange, runCheck, runCheckr } from '../modules/background-checks/service.js';
import { deliverWebhook } from '../modules/events/deliver.js';
import { eraseSentCopies, sendGuestMessage } from '../modules/messages/send.js';
import { onCheckInChanged, onStatusChanged } from '../modules/messages/check-in.js';
import { purgeSearchIndex } from '../modules/reservations/service.js';
import { rescreenOnBlocklistChange, rescreenOnListChange } from '../modules/screening/rescreen.js';
import { onBookingChecked, runScreening } from '../modules/screening/run.js';
import { runCompare, runFaceCheck } from '../modules/identity/faces.js';
import { runIdentityRead } from '../modules/identity/service.js';
import { refreshSanctionsLists } from '../providers/sanctions/refresh.js';
import type { JobHandlers } from './worker.js';

/** What runs each job kind of the catalog in kinds.ts. */
export const handlers: JobHandlers = {
  'webhook.deliver': deliverWebhook,
  'message.send': sendGuestMessage,
  'message.erase': eraseSentCopies,
  'alert.send': sendAlert,
  'alert.hourly': alertHourly,
  'verdict.changed': onVerdictChanged,
  'status.changed': onStatusChanged,
  'check_in.changed': onCheckInChanged,
  'payment.recorded': onBookingChecked,
  'identity.checked': onBookingChecked,
  'screening.run': runScreening,
  'check.run': runCheck,
  'check.checkr': runCheckr,
  'search.purge': purgeSearchIndex,
  'authority.send': runAuthoritySend,
  'authority.plan': runAuthorityPlan,
  'identity.read': runIdentityRead,
  'identity.face': runFaceCheck,
  'identity.compare': runCompare,
  'sanctions.rescreen': rescreenOnListChange,
  'blocklist.rescreen': rescreenOnBlocklistChange,
  'check.rematch': rematchChecksOnListChange,
  'sanctions.refresh': async (_payload, { deps }) => void (await refreshSanctionsLists(deps)),
};

import type { LookupContext, Source } from '../core.js';
import { embeddedPhone } from './embedded.js';
import { twilioPhone } from './twilio.js';

/** What is known of a phone number, in our terms. */
export interface PhoneReport {
  /** E.164, e.g. +14155552671. */
  e164: string;
  /** ISO 3166 alpha-2 of the number's country, null when the prefix is shared and unassigned. */
  country: string | null;
  nationalFormat: string;
  valid: boolean;
  /** mobile, landline, voip, toll_free, premium_rate, shared_cost, pager, personal, uan, voicemail, fixed_or_mobile, or null. */
  lineType: string | null;
  carrier: string | null;
  /** True when the carrier is today's (a live lookup), false when it is the range's original one. */
  carrierIsCurrent: boolean;
  /** The place the number's range belongs to, when the numbering plan says. */
  location: string | null;
  source: Source;
}

export interface PhoneProvider {
  name: string;
  /** Asks a service over the network (its answers are cached; the account's quota counts them). */
  remote: boolean;
  lookup(e164: string, ctx: LookupContext): Promise<PhoneReport>;
}

/** Twilio when configured (today's carrier, ported numbers), else Google's numbering plan data. */
export function phoneProvider(ctx: LookupContext): PhoneProvider {
  const twilio = ctx.deps.config.lookups.vendors.twilio;
  return twilio ? twilioPhone(twilio) : embeddedPhone;
}

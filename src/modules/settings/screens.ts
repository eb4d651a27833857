/**
 * The guest-portal screens, in the order a guest meets them: the spec's 22, and ours, Selfie (the
 * guest's face compared with the document's portrait: docs/identity-documents.md).
 */
export const SCREENS = [
  'AboutYou',
  'AuthorityReporting',
  'BuildingScreen',
  'BackgroundCheck',
  'CreditCheck',
  'IDVerification',
  'IDCollection',
  'Selfie',
  'SecurityDeposit',
  'UsageAgreement',
  'Coronavirus',
  'CustomScreen',
  'FileUpload',
  'GuestList',
  'HouseRules',
  'LongTerm',
  'PurposeOfStay',
  'TimeInfoEdit',
  'SexOffendersAddon',
  'SocialVerificationAddon',
  'SanctionsSearchAddon',
  'FraudDetectionAddon',
  'AdverseMediaSearchAddon',
] as const;

export type Screen = (typeof SCREENS)[number];

export const SCREEN_SETTINGS = ['required', 'optional', 'disabled'] as const;
export type ScreenSetting = (typeof SCREEN_SETTINGS)[number];
export type ScreenMap = Record<Screen, ScreenSetting>;

/**
 * The config keys an account can set. `by_source` and `for_repeat_guests` are the spec's;
 * `default` (ours) is what applies when neither matches.
 */
export const CONFIG_KEYS = ['guest_portal_screens_by_source', 'guest_portal_screens_for_repeat_guests', 'guest_portal_screens_default'] as const;

export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** What an account that never configured its portal asks of a guest: who they are, their ID, the rules. */
export const DEFAULT_SCREENS: ScreenMap = Object.fromEntries(SCREENS.map((s) => [s, s === 'AboutYou' || s === 'IDVerification' || s === 'HouseRules' ? 'required' : 'disabled'])) as ScreenMap;

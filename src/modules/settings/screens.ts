import { SCREENS, type Screen } from '../guests/index.js';

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

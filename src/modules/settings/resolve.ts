import type { Db } from '../../db/connection.js';
import * as repo from './repo.js';
import { SCREENS } from '../guests/index.js';
import { DEFAULT_SCREENS, type ScreenMap } from './screens.js';
import type { ScreensEntry } from './service.js';

export type ScreensRule = 'by_source' | 'for_repeat_guests' | 'default';

/**
 * The screens a reservation's guest is asked for: the account's entry for the reservation's
 * source, else its repeat-guest entry when the guest has booked before, else its default.
 * Screens an entry leaves out keep the built-in default.
 */
export async function resolveScreens(db: Db, accountId: string, source: string | null, isRepeatGuest: () => Promise<boolean>): Promise<{ screens: ScreenMap; rule: ScreensRule }> {
  const fill = (entry: ScreensEntry | undefined): ScreenMap => {
    const out = { ...DEFAULT_SCREENS };
    for (const s of SCREENS) {
      const v = entry?.guest_portal_screens[s];
      if (v) out[s] = v;
    }
    return out;
  };
  const bySource = ((await repo.readSetting(db, accountId, 'guest_portal_screens_by_source')) ?? []) as ScreensEntry[];
  const match = source ? bySource.find((e) => e.source?.toLowerCase() === source.toLowerCase()) : undefined;
  if (match) return { screens: fill(match), rule: 'by_source' };
  const repeat = ((await repo.readSetting(db, accountId, 'guest_portal_screens_for_repeat_guests')) ?? []) as ScreensEntry[];
  if (repeat[0] && (await isRepeatGuest())) return { screens: fill(repeat[0]), rule: 'for_repeat_guests' };
  const defaults = ((await repo.readSetting(db, accountId, 'guest_portal_screens_default')) ?? []) as ScreensEntry[];
  return { screens: fill(defaults[0]), rule: 'default' };
}

import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import { iso } from '../../lib/time.js';
import { accountFor, type AccountRow } from '../accounts/index.js';
import * as repo from './repo.js';
import type { Screen } from '../guests/index.js';
import { DEFAULT_SCREENS, type ConfigKey, type ScreenSetting } from './screens.js';

export interface ScreensEntry {
  source?: string | undefined;
  guest_portal_screens: { [S in Screen]?: ScreenSetting };
}

export interface SettingsBody {
  config_key?: string | undefined;
  config_data: ScreensEntry[];
}

export async function readScreenSettings(deps: Deps, caller: AccountRow, key: ConfigKey, userId?: string) {
  const account = await accountFor(deps, caller, userId);
  const stored = (await repo.readSetting(deps.db, account.id, key)) as ScreensEntry[] | undefined;
  const fallback: ScreensEntry[] = key === 'guest_portal_screens_default' ? [{ guest_portal_screens: DEFAULT_SCREENS }] : [];
  return { config_key: key, config_data: stored ?? fallback };
}

export async function writeScreenSettings(deps: Deps, caller: AccountRow, key: ConfigKey, body: SettingsBody, userId?: string) {
  if (body.config_key !== undefined && body.config_key !== key) {
    throw badRequest(`body.config_key: '${body.config_key}' does not match the path's '${key}'`);
  }
  if (key === 'guest_portal_screens_by_source') {
    const seen = new Set<string>();
    body.config_data.forEach((entry, i) => {
      if (!entry.source) throw badRequest(`body.config_data.${i}.source: is required for ${key}`);
      const s = entry.source.toLowerCase();
      if (seen.has(s)) throw badRequest(`body.config_data.${i}.source: '${entry.source}' appears twice`);
      seen.add(s);
    });
  } else if (body.config_data.length > 1) {
    throw badRequest(`body.config_data: ${key} takes one entry (it does not depend on the source)`);
  }
  const account = await accountFor(deps, caller, userId);
  await repo.writeSetting(deps.db, account.id, key, body.config_data, iso(deps.clock()));
  return { config_key: key, config_data: body.config_data };
}

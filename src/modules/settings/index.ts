/** What the settings module offers the modules above it: they import nothing else of it. */
export { readSetting, writeSetting } from './repo.js';
export { resolveScreens } from './resolve.js';
export type { ScreenMap } from './screens.js';

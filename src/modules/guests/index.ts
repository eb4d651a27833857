/**
 * What the portal collects about each guest of a stay, as data of its own: the screens and their
 * fields (the police systems' among them), the answers, sealed, and the files the guests sent.
 * The portal writes them; the police reports, the identity checks and the screening read them
 * from here and never import the portal.
 */
export * from './answers.js';
export * from './fields.js';
export { deleteFiles, findFile, findPortal, insertFile, lockPortal, markCompleted, saveAnswers, type PortalRow } from './repo.js';

/** The service's one timestamp format: ISO 8601, UTC, milliseconds. It sorts as text. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export const iso = (d: Date) => d.toISOString();

export const DAY_MS = 86_400_000;

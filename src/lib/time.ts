/** The service's one timestamp format: ISO 8601, UTC, milliseconds. It sorts as text. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export const iso = (d: Date) => d.toISOString();

export const DAY_MS = 86_400_000;

const zoneParts = new Map<string, Intl.DateTimeFormat>();

/** How far a time zone's clock is ahead of UTC at a moment, in ms (its formatter made once per zone). */
function zoneOffsetMs(at: number, timeZone: string): number {
  let f = zoneParts.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    zoneParts.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(at)).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year!, p.month! - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at / 1000) * 1000;
}

/**
 * The moment a day (YYYY-MM-DD) begins in a time zone (IANA name; UTC when it is missing or
 * unknown): a listing's check-in day begins at its own midnight, not at UTC's.
 */
export function startOfDayIn(day: string, timeZone: string | null | undefined): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  if (!timeZone) return new Date(midnightUtc);
  try {
    // Twice: the offset at the first guess may differ from the offset at local midnight (a change of clocks between).
    let at = midnightUtc - zoneOffsetMs(midnightUtc, timeZone);
    at = midnightUtc - zoneOffsetMs(at, timeZone);
    return new Date(at);
  } catch {
    return new Date(midnightUtc);
  }
}

/** The day (YYYY-MM-DD) a moment falls on in a time zone (UTC when it is missing or unknown). */
export function dayIn(at: string, timeZone: string | null | undefined): string {
  const t = Date.parse(at);
  if (!timeZone) return iso(new Date(t)).slice(0, 10);
  try {
    return iso(new Date(t + zoneOffsetMs(t, timeZone))).slice(0, 10);
  } catch {
    return iso(new Date(t)).slice(0, 10);
  }
}

/** A moment as a time zone's wall clock reads it, `YYYY-MM-DDTHH:MM:SS` (UTC's when the zone is unknown). */
export function localTimeIn(at: Date, timeZone: string): string {
  const t = at.getTime();
  try {
    return iso(new Date(t + zoneOffsetMs(t, timeZone))).slice(0, 19);
  } catch {
    return iso(at).slice(0, 19);
  }
}

/** Whole years from a birth date to a day, both YYYY-MM-DD: an age on that day. */
export function ageOn(birth: string, day: string): number {
  const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number];
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

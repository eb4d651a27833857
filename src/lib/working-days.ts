/**
 * Working days of a country: weekdays that are not its national public holidays, as the
 * date-holidays package keeps them (maintained upstream, not a list of ours). Regional holidays
 * and observances (Carnival in Portugal) are not counted as days off: a deadline in working days
 * is read against the national calendar.
 */
import { createRequire } from 'node:module';
import type Holidays from 'date-holidays';

/** The package, loaded on the first deadline counted: its calendars of every country take a fifth of a second to load, which the start of the service does not pay. */
let HolidaysClass: typeof Holidays | undefined;
const holidaysClass = () => (HolidaysClass ??= createRequire(import.meta.url)('date-holidays') as typeof Holidays);

const calendars = new Map<string, { holidays: Holidays; years: Map<number, Set<string>> }>();

/** The country's national public holidays of a year, as YYYY-MM-DD. */
function holidaysOf(country: string, year: number): Set<string> {
  let calendar = calendars.get(country);
  if (!calendar) {
    calendar = { holidays: new (holidaysClass())(country), years: new Map() };
    calendars.set(country, calendar);
  }
  let days = calendar.years.get(year);
  if (!days) {
    days = new Set(
      calendar.holidays
        .getHolidays(year)
        .filter((h) => h.type === 'public')
        .map((h) => h.date.slice(0, 10)),
    );
    calendar.years.set(year, days);
  }
  return days;
}

/** Whether a day (YYYY-MM-DD) is a working day in the country (ISO 3166-1 alpha-2). */
export function isWorkingDay(day: string, country: string): boolean {
  const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !holidaysOf(country, Number(day.slice(0, 4))).has(day);
}

/** The day `n` working days after `day` (the day itself not counted), as YYYY-MM-DD. */
export function addWorkingDays(day: string, n: number, country: string): string {
  let t = Date.parse(`${day}T12:00:00Z`);
  for (let left = n; left > 0;) {
    t += 86_400_000;
    if (isWorkingDay(new Date(t).toISOString().slice(0, 10), country)) left--;
  }
  return new Date(t).toISOString().slice(0, 10);
}

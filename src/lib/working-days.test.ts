import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addWorkingDays, isWorkingDay } from './working-days.js';

describe("Portugal's working days (SIBA's three after arrival)", () => {
  it('skips the weekend', () => {
    // Arrived on Friday 3 July 2026: Monday, Tuesday, Wednesday.
    assert.equal(addWorkingDays('2026-07-03', 3, 'PT'), '2026-07-08');
  });
  it('skips national holidays: Corpus Christi and the Day of Portugal in one week', () => {
    // Arrived Tuesday 2 June 2026: Wednesday 3, (Thursday 4 is Corpo de Deus), Friday 5, (weekend), Monday 8.
    assert.equal(addWorkingDays('2026-06-02', 3, 'PT'), '2026-06-08');
    // Arrived Monday 8 June: Tuesday 9, (Wednesday 10 is the Day of Portugal), Thursday 11, Friday 12.
    assert.equal(addWorkingDays('2026-06-08', 3, 'PT'), '2026-06-12');
  });
  it('counts Carnival (an observance, not a public holiday) and crosses the year', () => {
    assert.equal(isWorkingDay('2026-02-17', 'PT'), true);
    // Arrived Wednesday 30 December 2026: Thursday 31, (1 January), Monday 4, Tuesday 5 January 2027.
    assert.equal(addWorkingDays('2026-12-30', 3, 'PT'), '2027-01-05');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { releaseTime } from '../modules/messages/check-in.js';
import { dayIn, startOfDayIn } from './time.js';

describe('days where a listing is', () => {
  it('begins a day at the midnight of the time zone, summer and winter, and at UTC’s without one', () => {
    assert.equal(startOfDayIn('2027-03-10', 'Europe/Lisbon').toISOString(), '2027-03-10T00:00:00.000Z');
    assert.equal(startOfDayIn('2027-07-10', 'Europe/Lisbon').toISOString(), '2027-07-09T23:00:00.000Z');
    assert.equal(startOfDayIn('2027-03-10', 'America/New_York').toISOString(), '2027-03-10T05:00:00.000Z');
    // The clocks go forward at 02:00 that day: its midnight is still on standard time.
    assert.equal(startOfDayIn('2027-03-14', 'America/New_York').toISOString(), '2027-03-14T05:00:00.000Z');
    assert.equal(startOfDayIn('2027-07-10', 'Asia/Tokyo').toISOString(), '2027-07-09T15:00:00.000Z');
    assert.equal(startOfDayIn('2027-07-10', null).toISOString(), '2027-07-10T00:00:00.000Z');
    assert.equal(startOfDayIn('2027-07-10', 'Mars/Olympus_Mons').toISOString(), '2027-07-10T00:00:00.000Z', 'an unknown zone is read as UTC');
    assert.equal(dayIn('2027-07-09T23:30:00.000Z', 'Europe/Lisbon'), '2027-07-10');
    assert.equal(dayIn('2027-07-09T23:30:00.000Z', null), '2027-07-09');
  });

  it('releases the check-in details the hours set before the check-in day begins at the listing', () => {
    assert.equal(releaseTime({ check_in_date: '2027-07-10', listing_timezone_name: 'Europe/Lisbon' }, 24).toISOString(), '2027-07-08T23:00:00.000Z');
    assert.equal(releaseTime({ check_in_date: '2027-07-10', listing_timezone_name: null }, 24).toISOString(), '2027-07-09T00:00:00.000Z');
  });
});

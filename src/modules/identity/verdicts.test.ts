import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APART_DISTANCE, judgeDistance, SAME_DISTANCE, SURE_DISTANCE, verdictOf, withStrength, type Strength } from '../../lib/faces/compare.js';
import { STRENGTH_WORDS } from './faces.js';

/** What the words say, read as a host reads them. */
const said = (words: string) => (words.startsWith('cannot tell') ? 'cannot_tell' : words.startsWith('not the same') ? 'not_same_person' : / the same person$/.test(words) ? 'same_person' : 'unknown');

describe('a comparison says one thing', () => {
  it('every strength has a verdict and words that say the same', () => {
    for (const strength of Object.keys(STRENGTH_WORDS) as Strength[]) assert.equal(said(STRENGTH_WORDS[strength]), verdictOf(strength), strength);
  });

  it('at every distance, and when a photo shows several faces, the verdict, the strength and the words agree', () => {
    const distances = [null, 0, SURE_DISTANCE - 0.001, SURE_DISTANCE, SAME_DISTANCE - 0.001, SAME_DISTANCE, APART_DISTANCE - 0.001, APART_DISTANCE, 1.4];
    for (const d of distances)
      for (const c of [judgeDistance(d), withStrength(judgeDistance(d), 'several_faces')]) {
        assert.equal(c.verdict, verdictOf(c.strength));
        assert.equal(said(STRENGTH_WORDS[c.strength]), c.verdict, `distance ${d}: ${c.strength}`);
      }
  });
});

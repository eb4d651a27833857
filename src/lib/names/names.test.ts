import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchName } from './match.js';
import { nameTokens, nameVariants, normaliseName } from './names.js';

describe('name normalisation', () => {
  it('folds case, accents and punctuation, and transliterates other scripts to Latin letters', () => {
    assert.deepEqual(nameTokens("José O'Brien-Núñez"), ['jose', 'o', 'brien', 'nunez']);
    assert.deepEqual(nameTokens('Łukasz Żółć'), ['lukasz', 'zolc']);
    assert.deepEqual(nameTokens('Straße Ærø'), ['strasse', 'aero']);
    assert.deepEqual(nameTokens('Владимир Путин'), ['vladimir', 'putin']);
    assert.deepEqual(nameTokens('Γιώργος Παπαδόπουλος'), ['giorgos', 'papadopoylos']);
    assert.deepEqual(nameTokens('Ｍａｒｉａ'), ['maria']);
    // Chinese and Korean characters are a syllable each.
    assert.deepEqual(nameTokens('张小明'), ['zhang', 'xiao', 'ming']);
    assert.equal(normaliseName('PUTIN, Vladimir'), normaliseName('Владимир Путин'));
  });

  it('matches a name written in another script against the listed Latin one, and explains it in the original', () => {
    const cyrillic = matchName('Владимир Путин', 'PUTIN, Vladimir Vladimirovich');
    assert.ok(cyrillic.score >= 0.9, String(cyrillic.score));
    assert.match(cyrillic.explanation, /^'Владимир Путин' matched 'PUTIN, Vladimir Vladimirovich'/);
    assert.ok(matchName('张小明', 'ZHANG, Xiaoming').score >= 0.9);
    assert.ok(matchName('Мария Иванова', 'PUTIN, Vladimir').score < 0.7);
  });

  it('matches Korean names as lists spell them, in either order of family and given name', () => {
    // Names as the OFAC SDN list of 2021-07-07 writes them (shared/data/sanctions).
    for (const [hangul, listed] of [
      ['김정은', 'KIM, Jong Un'],
      ['백창호', 'PAEK, Chang-Ho'],
      ['창호 백', 'PAEK, Chang-Ho'],
      ['용철 김', 'KIM, Yong Chol'],
      ['장용선', 'JANG, Yong Son'],
      ['오국렬', 'O, Kuk-Ryol'],
      ['리병철', 'RI, Pyong Chol'],
      ['이병철', 'RI, Pyong Chol'],
    ] as const) {
      const m = matchName(hangul, listed);
      assert.ok(m.score >= 0.99, `${hangul} against ${listed}: ${m.score}`);
    }
    // The Revised Romanization stays one of the spellings: a South Korean passport's.
    assert.deepEqual(nameVariants('김정은')[0], ['gim', 'jeong', 'eun']);
    assert.ok(matchName('박지성', 'PARK, Ji-sung').score >= 0.95);
    assert.match(matchName('김정은', 'KIM, Jong Un').explanation, /\(the person's name spelled kim jong un\)$/);
    assert.ok(matchName('김정은', 'PARK, Ji-sung').score < 0.8);
    assert.deepEqual(nameVariants('Maria Santos'), [['maria', 'santos']]);
  });
});
